"""Golden outputs: what the deck, the slides and the quiz of a small fixture course say, written out.

The fixture course (``tests/fixtures/course/``: two modules, five facts, cards of every kind, three
questions, two lessons, English and Chinese) is rendered as ``torchdeck build`` renders it, and each
output is read back the way a learner's tool reads it: the Anki packages through Anki's own library
(every note's fields, tags and deck, and every card's two sides as text), the slides through
python-pptx (every shape's text and the speaker notes), the quiz PDFs through ``pdftotext``, the
Moodle XML and GIFT files as they are. Each reading is compared with its file in ``tests/golden/``;
a mismatch shows the unified diff. After a deliberate change, rewrite them and review the diff:

    UPDATE_GOLDEN=1 python -m pytest -q tests/test_golden.py

What varies by machine is pinned here, in one place: the verification the outputs report is the
fixture course's own ledger run (torch 2.13.0+cpu, its date), never the installed torch or the
clock, and ``SOURCE_DATE_EPOCH`` is that run's day (the quiz's date). The fixture's checks pass on
any torch >= 2.13, CPU or CUDA build (``test_the_fixture_ledger_is_current`` runs them).
"""
from __future__ import annotations

import calendar
import datetime
import difflib
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from pptx import Presentation

from generator import ledger
from generator.loader import load_course
from generator.render import anki, quiz, slides
from generator.render.anki.notes import note_guid
from generator.render.base import RenderJob
from generator.verify import Verification, verify
from helpers import collapse_spaces, import_package, new_collection, slide_name, verification_of, visible_text

TESTS = Path(__file__).resolve().parent
COURSE = TESTS / "fixtures" / "course"
GOLDEN = TESTS / "golden"
LANGS = ("en", "zh")
QUIZ_FILES = {"paper": ".A.pdf", "answers": ".A.answers.pdf", "key": ".key.pdf", "marking": ".marking.pdf",
              "moodle": ".moodle.xml", "gift": ".gift.txt"}
GOLDEN_NAMES = [f"deck.{lang}.txt" for lang in LANGS] + [f"slides.{lang}.txt" for lang in LANGS] + [
    f"quiz.{lang}.{part}.{'xml' if part == 'moodle' else 'txt'}" for lang in LANGS for part in QUIZ_FILES]


# ------------------------------------------------------------------ the pinned verification
def recorded_verification(course) -> Verification:
    """The fixture ledger's one run, as the outputs report it: the same words on every machine."""
    (run,) = ledger.load(COURSE, course)
    return verification_of(run, course)


def epoch_of(day: str) -> int:
    return calendar.timegm(datetime.date.fromisoformat(day).timetuple())


# ------------------------------------------------------------------ reading the outputs back
def deck_text(path: Path, course, lang: str, work: Path) -> str:
    """Every note as Anki's library imported it: deck, note type, tags, fields; then each card's sides."""
    card_of_guid = {note_guid(lang, card.id): card.id for card in course.cards}
    col = new_collection(work)
    try:
        import_package(col, path)
        lines = []
        root = col.decks.by_name("PyTorch torch.backends")
        lines += ["deck description:", *_indented(root["desc"]), ""]
        notes = [col.get_note(note_id) for note_id in col.find_notes("")]
        cards = {note.id: sorted(note.cards(), key=lambda c: c.ord) for note in notes}
        notes.sort(key=lambda n: (col.decks.name(cards[n.id][0].did), min(c.due for c in cards[n.id])))
        for note in notes:
            lines.append(f"=== note {card_of_guid.get(note.guid, note.guid)}")
            lines.append(f"deck: {col.decks.name(cards[note.id][0].did)}")
            lines.append(f"note type: {note.note_type()['name']}")
            lines.append(f"tags: {' '.join(sorted(note.tags))}")
            for name, value in note.items():
                lines += [f"[{name}]", *_indented(value)]
            for card in cards[note.id]:
                lines.append(f"--- card {card.ord + 1} question")
                lines += _indented(collapse_spaces(visible_text(card.question())))
                lines.append(f"--- card {card.ord + 1} answer")
                lines += _indented(collapse_spaces(visible_text(card.answer())))
            lines.append("")
        media = sorted(os.listdir(col.media.dir()))
        lines += ["media:", *_indented("\n".join(media))]
    finally:
        col.close()
    return "\n".join(lines) + "\n"


def slides_text(path: Path) -> str:
    """Every slide: its name and layout, each shape's text (tables row by row), pictures by name with their
    alt text, notes."""
    lines = []
    for number, slide in enumerate(Presentation(str(path)).slides, 1):
        lines.append(f"=== slide {number}: {slide_name(slide)} [{slide.slide_layout.name}]")
        for shape in slide.shapes:
            if shape.has_text_frame and shape.text_frame.text.strip():
                lines += [f"[{shape.name}]", *_indented(shape.text_frame.text)]
            elif getattr(shape, "has_table", False) and shape.has_table:
                rows = [" | ".join(cell.text for cell in row.cells) for row in shape.table.rows]
                lines += [f"[{shape.name}: table]", *_indented("\n".join(rows))]
            elif shape.shape_type is not None and "PICTURE" in str(shape.shape_type):
                lines += [f"[{shape.name}: picture]", *_indented(shape._element.nvPicPr.cNvPr.get("descr", ""))]
        if slide.has_notes_slide and slide.notes_slide.notes_text_frame.text.strip():
            lines += ["[notes]", *_indented(slide.notes_slide.notes_text_frame.text)]
        lines.append("")
    return "\n".join(lines)


def pdf_text(path: Path) -> str:
    """The PDF's text as ``pdftotext -layout`` reads it, page by page, trailing spaces dropped."""
    out = subprocess.run(["pdftotext", "-layout", "-enc", "UTF-8", str(path), "-"], capture_output=True,
                         check=True).stdout.decode("utf-8")
    pages = out.split("\f")[:-1]
    lines = []
    for number, page in enumerate(pages, 1):
        lines.append(f"=== page {number} of {len(pages)}")
        page_lines = [line.rstrip() for line in page.split("\n")]
        while page_lines and not page_lines[-1]:
            page_lines.pop()
        lines += page_lines
    return "\n".join(lines) + "\n"


def _indented(text: str) -> list[str]:
    return ["    " + line if line else "" for line in text.split("\n")]


# ------------------------------------------------------------------ build once, compare each
@pytest.fixture(scope="module")
def readings(tmp_path_factory):
    """{golden file name: the text the fixture course's outputs say}."""
    if not shutil.which("pdftotext"):
        pytest.skip("needs pdftotext (apt package poppler-utils)")
    work = tmp_path_factory.mktemp("golden")
    course = load_course(COURSE)
    verification = recorded_verification(course)
    texts = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SOURCE_DATE_EPOCH", str(epoch_of(verification.date)))
        for lang in LANGS:
            job = RenderJob(course, verification, lang, work / "build")
            (package,) = anki.render(job, anki.AnkiOptions(work / "deck.lock"))
            texts[f"deck.{lang}.txt"] = deck_text(package, course, lang, work / f"col-{lang}")
            (deck,) = slides.render(job)
            texts[f"slides.{lang}.txt"] = slides_text(deck)
            paths = quiz.render(job, quiz.QuizOptions(versions=1, seed=0))
            for part, ending in QUIZ_FILES.items():
                (path,) = [p for p in paths if p.name.endswith(ending)]
                if path.suffix == ".pdf":
                    texts[f"quiz.{lang}.{part}.txt"] = pdf_text(path)
                else:
                    texts[f"quiz.{lang}.{part}.{path.suffix[1:]}"] = path.read_text(encoding="utf-8")
    assert sorted(texts) == sorted(GOLDEN_NAMES)
    return texts


@pytest.mark.parametrize("name", GOLDEN_NAMES)
def test_output_matches_its_golden_file(readings, name):
    golden = GOLDEN / name
    actual = readings[name]
    if os.environ.get("UPDATE_GOLDEN") == "1":
        GOLDEN.mkdir(exist_ok=True)
        golden.write_text(actual, encoding="utf-8")
    assert golden.exists(), f"{golden} is missing: UPDATE_GOLDEN=1 writes it (then review it)"
    expected = golden.read_text(encoding="utf-8")
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(keepends=True), actual.splitlines(keepends=True),
                                            f"tests/golden/{name}", f"{name} as built now"))
        pytest.fail(f"{name} differs from its golden file (UPDATE_GOLDEN=1 rewrites it after a deliberate "
                    f"change):\n{diff}", pytrace=False)


def test_no_golden_file_is_left_over():
    assert sorted(p.name for p in GOLDEN.iterdir()) == sorted(GOLDEN_NAMES)


def test_the_fixture_ledger_is_current(tmp_path):
    """The ledger run the golden files report is what this torch says: every fact passes here too, under
    the hashes recorded (an edited check makes its entry stale, and this fails), except the one that needs a
    CUDA GPU, skipped as the CPU run recorded it unless this machine has one."""
    import torch

    recorded = {"g-available-callable": "pass", "g-benchmark-default": "pass", "g-cudnn-exists": "pass",
                "g-deterministic-default": "pass", "g-enabled-default": "pass", "g-gpu-count": "skip"}
    course = load_course(COURSE)
    (run,) = ledger.load(COURSE, course)
    assert (run.torch, run.date) == ("2.13.0+cpu", "2026-11-27")
    assert {fact_id: entry.status for fact_id, entry in run.facts.items()} == recorded
    live = verify(course, cache_dir=tmp_path / "cache")
    here = dict(recorded, **{"g-gpu-count": "pass" if torch.cuda.is_available() else "skip"})
    assert {fact_id: result.status for fact_id, result in live.results.items()} == here
