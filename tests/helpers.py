"""Helpers more than one test module uses: one place, one meaning per name.

Test modules import from here (``from helpers import ...``), never from each other
(``tests/test_layout_of_tests.py`` holds them to it). A name means one thing: the text
normalisations below each say what they drop, and none shares a name with another.
"""
from __future__ import annotations

import html
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "content"  # the shipped course


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


def convert_to_pdf(groups, pdf_dir: Path, work: Path) -> None:
    """Convert each group of decks to PDF in its own LibreOffice (private profile), all at once."""
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        pytest.skip("LibreOffice (soffice) is not installed")
    runs = [subprocess.Popen([soffice, f"-env:UserInstallation=file://{work}/profile-{n}", "--headless",
                              "--convert-to", "pdf", "--outdir", str(pdf_dir), *map(str, paths)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for n, paths in enumerate(groups)]
    for run in runs:
        assert run.wait(timeout=600) == 0


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
    x0, y0, x1, y1, _ = word
    # LibreOffice writes Ascent 0 / Descent 0 into its PDF font descriptors, so poppler boxes each word
    # with its defaults, 0.95 em above and 0.35 em below the baseline. Glyphs of DejaVu and Noto CJK
    # reach at most 0.29 em below it: the word's real bottom is there.
    size = (y1 - y0) / 1.3
    y1 = y1 - (0.35 - 0.29) * size
    return (x0 >= box[0] - TOLERANCE and y0 >= box[1] - TOLERANCE
            and x1 <= box[2] + TOLERANCE and y1 <= box[3] + TOLERANCE)
