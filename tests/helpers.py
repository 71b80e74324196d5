"""Helpers more than one test module uses: one place, one meaning per name.

Test modules import from here (``from helpers import ...``), never from each other
(``tests/test_layout_of_tests.py`` holds them to it). A name means one thing: the text
normalisations below each say what they drop, and none shares a name with another.
"""
from __future__ import annotations

import fcntl
import html
import os
import posixpath
import re
import shutil
import subprocess
import unicodedata
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "content"  # the shipped course
DRAWN_WORKSHOPS = ("gpu-tuning", "cpu-performance")  # shipped workshops drawn once a run: together every diagram


# ------------------------------------------------------------------ work shared by the run's workers
def once_per_run(tmp_path_factory, name: str, make) -> Path:
    """``make(folder)`` run once per pytest run, whichever worker asks first; every worker gets ``folder``.

    pytest-xdist's workers each hold the session fixtures of their own: work two test files need (the same
    live verification, the same deck drawn) would be done once per worker. The folder lies in this run's
    temp root, shared by its workers and new in every run (nothing is kept from one run to the next); a
    lock lets the first worker make it while the others wait. Without xdist it is simply this session's.
    Readers change nothing in it: copy what a build would write to."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # xdist: <run's temp>/popen-gwN
    folder, done = root / f"shared-{name}", root / f"shared-{name}.done"
    with open(root / f"shared-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            folder.mkdir(exist_ok=True)
            make(folder)
            done.touch()
    return folder


# ------------------------------------------------------------------ a recorded run as the outputs read it
def verification_of(run, course):
    """A ledger ``run`` as a ``Verification`` of ``course``: each fact's recorded result, where it was
    written, and the run's torch, date and build (what the renderers read, without running a check)."""
    from generator.verify import FactResult, Verification

    results = {}
    for fact in course.facts:
        entry = run.facts[fact.id]
        origin = course.where(fact.id, "facts")
        results[fact.id] = FactResult(fact.id, entry.status, entry.detail, origin.file, origin.line, entry.needs)
    return Verification(run.torch, run.python, run.capabilities, run.date, results, run.build)


# ------------------------------------------------------------------ the command line
def torchdeck(*args, env=None):
    """``torchdeck ARGS`` in this process (click's runner): the result has ``exit_code`` and ``output``."""
    from generator.cli import main

    return CliRunner().invoke(main, [str(a) for a in args], env=env)


# ------------------------------------------------------------------ text, normalised
def collapse_spaces(text: str) -> str:
    """Each run of whitespace one space, none at the ends: HTML and slide text as read."""
    return " ".join(text.split())


def as_on_card(text: str) -> str:
    """A content string as a card's visible text reads it: backticks gone (they became ``<code>``), spaces
    collapsed."""
    return collapse_spaces(text.replace("`", ""))


def without_spaces(text: str) -> str:
    """No whitespace at all (and no emoji variation selector): a PDF's line wrapping cannot break a match."""
    return "".join(text.replace("\ufe0f", "").split())


def as_in_pdf(text: str) -> str:
    """A content string as ``without_spaces`` reads a PDF: backticks gone (code spans are a font, not marks)."""
    return without_spaces(text.replace("`", ""))


ZERO_WIDTH_SPACE = "\u200b"  # where a slide lets a line break without a space (after 、 between code names)


LINE_BREAK = "\v"  # how python-pptx reads an <a:br/>: a line break a Chinese slide sets before a word to keep it whole


def as_seen(text: str) -> str:
    """A slide's text as a reader sees it: the zero-width spaces that only allow a line break dropped, and the
    line breaks that only move a word to the next line (the space before each stays)."""
    return text.replace(ZERO_WIDTH_SPACE, "").replace(LINE_BREAK, "")


def letters_and_digits(text: str) -> str:
    """Only letters and digits, NFKC-normalised and lower-cased: a slide's text against LibreOffice's PDF."""
    return "".join(c for c in unicodedata.normalize("NFKC", text).lower() if c.isalnum())


# ------------------------------------------------------------------ Anki
_BLOCK_TAG = re.compile(r"</?(?:div|br|hr|li|ol|ul|p|blockquote|pre)\b[^>]*>")


def visible_text(card_html: str) -> str:
    """What a learner reads of a card side Anki rendered: no CSS, no tags (blocks become spaces), entities
    decoded; spaces as they come (``collapse_spaces`` folds them)."""
    body = re.sub(r"<style>.*?</style>", "", card_html, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", _BLOCK_TAG.sub(" ", body)))


def new_collection(folder: Path):
    """A fresh, empty Anki collection in ``folder`` (Anki's own library)."""
    from anki.collection import Collection

    folder.mkdir(parents=True, exist_ok=True)
    return Collection(str(folder / "collection.anki2"))


def import_package(col, path: Path):
    """Import with the options Anki's import dialog starts with (update notes and note types if newer)."""
    from anki.collection import ImportAnkiPackageOptions, ImportAnkiPackageRequest

    request = ImportAnkiPackageRequest(package_path=str(path), options=ImportAnkiPackageOptions())
    return col.import_anki_package(request).log


def introduction_days(col) -> list[list[int]]:
    """New cards day by day as Anki's default options introduce them from the course's root deck (20 a day,
    gathered deck by deck, siblings not buried): each day's queue is built by Anki's scheduler, then
    suspended so the next build is the next day's. Changes ``col``: use a scratch collection."""
    from generator.render.anki.notes import ROOT_DECK
    from generator.render.anki.spread import NEW_PER_DAY

    assert col.decks.config_dict_for_deck_id(1)["new"]["perDay"] == NEW_PER_DAY
    col.decks.select(col.decks.id_for_name(ROOT_DECK))
    days = []
    while new := [c.card.id for c in col.sched.get_queued_cards(fetch_limit=1000).cards if c.queue == 0]:
        days.append(new)
        col.sched.suspend_cards(new)
    return days


# ------------------------------------------------------------------ slides (.pptx) and their drawing
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
EMU_PER_PT = 12700
TOLERANCE = 1.5  # pt: PDF glyph boxes vs. shape boxes


def slide_name(slide) -> str:
    """The name torchdeck gives a slide (``lesson:ID``, ``quiz:ID``, ``title`` ...)."""
    return slide._element.cSld.get("name", "")


def slide_kind(slide) -> str:
    """What a slide is: its name up to the first colon."""
    return slide_name(slide).split(":", 1)[0]


PART = 100  # slides per part LibreOffice draws (see convert_to_pdf)


def convert_to_pdf(groups, pdf_dir: Path, work: Path) -> None:
    """Convert each group of decks to PDF in its own LibreOffice (private profile), all at once:
    ``pdf_dir/<deck stem>.pdf``, one page per slide.

    LibreOffice's time grows with the square of a document's slides (closing a 750-slide deck costs more
    than drawing it), so each deck is drawn in parts of at most ``PART`` slides (``deck_parts``), then
    the parts' pages are joined in order with ``pdfunite``. Every slide is drawn as in the whole deck: the
    words and lines read back the same (CJK words may end up to 0.5 pt apart: the PDF's font subsets
    differ); the slide number a part would restart is written in as the number the whole deck shows."""
    from generator.render.slides.pdf import private_profile  # drawn as `slides --pdf` draws them

    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        pytest.skip("LibreOffice (soffice) is not installed")
    parts_dir = work / "parts"
    parts = {deck: deck_parts(deck, parts_dir / deck.stem) for group in groups for deck in group}
    runs = [subprocess.Popen([soffice, private_profile(work / f"profile-{n}"), "--headless",
                              "--convert-to", "pdf", "--outdir", str(parts_dir / "pdf"),
                              *(str(part) for deck in decks for part in parts[deck])],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for n, decks in enumerate(groups)]
    for run in runs:
        assert run.wait(timeout=600) == 0
    pdf_dir.mkdir(parents=True, exist_ok=True)
    for deck, deck_part_paths in parts.items():
        drawn = [str(parts_dir / "pdf" / f"{part.stem}.pdf") for part in deck_part_paths]
        subprocess.run(["pdfunite", *drawn, str(pdf_dir / f"{deck.stem}.pdf")], check=True)


_SLIDE_ID = re.compile(r'<p:sldId [^>]*r:id="([^"]+)"[^>]*/>')
_SLIDE_NUMBER = re.compile(rb'<a:fld [^>]*type="slidenum"[^>]*>(.*?)<a:t>[^<]*</a:t></a:fld>', re.S)


def deck_parts(deck: Path, folder: Path, size: int = PART) -> list[Path]:
    """``deck`` as decks of at most ``size`` consecutive slides each (``folder/<stem>.partNNN.pptx``): the same
    package with the other slides (and their notes) left out, and each slide-number field replaced by the
    number it shows in the whole deck (LibreOffice would count from 1 in every part)."""
    with zipfile.ZipFile(deck) as package:
        files = {name: package.read(name) for name in package.namelist()}
    presentation = files["ppt/presentation.xml"].decode("utf-8")
    rels = files["ppt/_rels/presentation.xml.rels"].decode("utf-8")
    target = {m[1]: "ppt/" + m[2] for m in re.finditer(r'<Relationship Id="([^"]+)" Type="[^"]*/slide" '
                                                       r'Target="([^"]+)"/>', rels)}
    order = [m[1] for m in _SLIDE_ID.finditer(presentation)]
    assert sorted(order) == sorted(target), "every slide of the list and of the relationships"

    def rels_of(part: str) -> str:
        return posixpath.join(posixpath.dirname(part), "_rels", posixpath.basename(part) + ".rels")

    def notes_of(slide: str) -> list[str]:
        found = re.findall(r'Target="(\.\./notesSlides/[^"]+)"', files.get(rels_of(slide), b"").decode("utf-8"))
        return [posixpath.normpath(posixpath.join(posixpath.dirname(slide), name)) for name in found]

    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for start in range(0, len(order), size):
        kept = order[start:start + size]
        left_out = {target[rid] for rid in order if rid not in kept}
        left_out |= {notes for slide in list(left_out) for notes in notes_of(slide)}
        left_out |= {rels_of(part) for part in list(left_out)}
        number = {target[rid]: start + n for n, rid in enumerate(kept, 1)}
        changed = {
            "ppt/presentation.xml": re.sub(r"<p:sldIdLst>.*?</p:sldIdLst>", lambda _: "<p:sldIdLst>" + "".join(
                m[0] for m in _SLIDE_ID.finditer(presentation) if m[1] in kept) + "</p:sldIdLst>",
                presentation, flags=re.S).encode("utf-8"),
            "ppt/_rels/presentation.xml.rels": re.sub(
                r'<Relationship Id="([^"]+)"[^>]*/>', lambda m: "" if target.get(m[1]) in left_out else m[0],
                rels).encode("utf-8"),
            "[Content_Types].xml": re.sub(rb'<Override PartName="/([^"]+)"[^>]*/>',
                                          lambda m: b"" if m[1].decode() in left_out else m[0],
                                          files["[Content_Types].xml"]),
        }
        for slide, shown in number.items():
            changed[slide] = _SLIDE_NUMBER.sub(lambda m: b"<a:r>" + m[1] + b"<a:t>%d</a:t></a:r>" % shown,
                                               files[slide])
        path = folder / f"{deck.stem}.part{start // size:03d}.pptx"
        with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as part:
            for name, data in files.items():
                if name not in left_out:
                    part.writestr(name, changed.get(name, data))
        paths.append(path)
    return paths


def pdf_word_boxes(pdf: Path):
    """Per page, (width, height, words), each word (x0, y0, x1, y1, text), from ``pdftotext -bbox``."""
    out = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    pages = []
    for page in re.finditer(r'<page width="([\d.]+)" height="([\d.]+)">(.*?)</page>', out, re.S):
        words = [(float(a), float(b), float(c), float(d), html.unescape(t)) for a, b, c, d, t in
                 re.findall(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*?)</word>',
                            page[3])]
        pages.append((float(page[1]), float(page[2]), words))
    return pages


def shape_boxes(slide):
    """(box in pt, ``letters_and_digits`` of its text, name) of every text-holding shape (read with lxml:
    900 slides)."""
    boxes = []
    for shape in slide.shapes._spTree.iterchildren(f"{P}sp", f"{P}graphicFrame"):
        xfrm = shape.find(f"{P}spPr/{A}xfrm")
        if xfrm is None:
            xfrm = shape.find(f"{P}xfrm")
        off, ext = xfrm.find(f"{A}off"), xfrm.find(f"{A}ext")
        x, y = int(off.get("x")) / EMU_PER_PT, int(off.get("y")) / EMU_PER_PT
        box = (x, y, x + int(ext.get("cx")) / EMU_PER_PT, y + int(ext.get("cy")) / EMU_PER_PT)
        text = "".join(t.text or "" for t in shape.iter(f"{A}t"))
        name = shape.find(f".//{P}cNvPr").get("name")
        boxes.append((box, letters_and_digits(text), name))
    return boxes


def word_inside(word, box) -> bool:
    """Whether a PDF word (``pdf_word_boxes``) lies inside a shape's box, within ``TOLERANCE``."""
    x0, y0, x1, y1, text = word
    # LibreOffice writes Ascent 0 / Descent 0 into its PDF font descriptors, so poppler boxes each word
    # with its defaults, 0.95 em above and 0.35 em below the baseline. Glyphs of DejaVu and Noto CJK
    # reach at most 0.29 em below it: the word's real bottom is there.
    size = (y1 - y0) / 1.3
    y1 = y1 - (0.35 - 0.29) * size
    if text.endswith(ZERO_WIDTH_SPACE):
        # A zero-width space after 、 or ， carries LibreOffice's space between Asian and Latin text (its
        # "autospace", 1/5 of the line height) as its advance, which pdftotext counts into the word's box;
        # at a line's end that blank hangs past the text area, and the glyphs end 0.25 em before it.
        x1 = x1 - 0.25 * size
    return (x0 >= box[0] - TOLERANCE and y0 >= box[1] - TOLERANCE
            and x1 <= box[2] + TOLERANCE and y1 <= box[3] + TOLERANCE)
