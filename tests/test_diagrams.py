"""Diagrams on slides, as a room sees them: in the deck's language, readable from the back, described in
words, and the whole deck as a PDF.

Two shipped workshops (together they show every diagram) are built in both languages with ``pdf=True``:
each picture is read back from the .pptx with python-pptx (its bytes, where it is placed, its ``descr``),
each PDF through poppler (``pdfinfo``, ``pdftotext``), as LibreOffice wrote it. The card pictures (upright,
light and night) are held byte for byte by the golden deck (tests/golden, file names carry their hash).
"""
from __future__ import annotations

import io
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image
from pptx import Presentation

from generator.diagrams import CARD, DIAGRAM_NAMES, SLIDE, Variant, card_diagram_png, diagram_png, labels_drawn
from generator.diagrams.scenes import SCENES
from generator.errors import BuildError
from generator.render import slides
from generator.render.slides.pdf import write_pdf
from generator.workshops import course_for
from helpers import DRAWN_WORKSHOPS, EMU_PER_PT, letters_and_digits, slide_name, torchdeck

CJK = re.compile(r"[\u3400-\u9fff]")
SMALLEST_PT = 18.0  # a label read from the back of a room


@pytest.fixture(scope="module")
def decks(course, drawn_workshop_decks):
    """{(workshop id, lang): (workshop's course, .pptx path, .pdf path)}, built with ``pdf=True``
    (``drawn_workshop_decks``: DRAWN_WORKSHOPS, together they show every diagram)."""
    return {(workshop_id, lang): (course_for(course.workshop(workshop_id), course), deck, pdf)
            for (workshop_id, lang), (deck, pdf) in drawn_workshop_decks.items()}


def pictures(deck: Path):
    """(diagram name, picture shape) of every picture in the deck."""
    return [(slide_name(slide).split(":")[1], shape) for slide in Presentation(str(deck)).slides
            for shape in slide.shapes if shape.shape_type == 13]


def test_every_scene_has_its_words_in_every_language():
    for name, scene in SCENES.items():
        assert set(scene.WORDS) == {"en", "zh"}, name
        assert set(scene.WORDS["zh"]) == set(scene.WORDS["en"]), name
        assert all(not CJK.search(text) for text in scene.WORDS["en"].values()), name


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_scene_fits_its_slide_picture_and_a_card_is_as_tall_as_its_scene(course, lang):
    """A slide picture has the shape of the Diagram layout's body (1746 × 770 px: what a scene draws fits
    it, or the picture would grow and shrink on the slide); a card picture is 720 px wide."""
    for name in DIAGRAM_NAMES:
        with Image.open(io.BytesIO(diagram_png(name, course, lang))) as image:
            assert image.size == (round(SLIDE.width * SLIDE.scale), round(SLIDE.height * SLIDE.scale)), name
        for night in (False, True):
            with Image.open(io.BytesIO(card_diagram_png(name, course, Variant(lang, night)))) as image:
                assert image.width == CARD.width and 300 < image.height < 2400, name


def test_the_decks_show_every_diagram(decks):
    shown = {name for _, deck, _ in decks.values() for name, _ in pictures(deck)}
    assert shown == set(DIAGRAM_NAMES)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_deck_shows_the_diagrams_drawn_in_its_language(decks, lang):
    """A Chinese deck's pictures are the Chinese drawings (their words in Chinese), an English one's the
    English drawings; the two differ."""
    for workshop_id in DRAWN_WORKSHOPS:
        own, deck, _ = decks[(workshop_id, lang)]
        found = pictures(deck)
        assert found
        for name, shape in found:
            other = "zh" if lang == "en" else "en"
            assert shape.image.blob == diagram_png(name, own, lang), name
            assert shape.image.blob != diagram_png(name, own, other), name
            words = "".join(text for text, _, _ in labels_drawn(name, own, Variant(lang, False, SLIDE)))
            assert bool(CJK.search(words)) == (lang == "zh"), (name, words)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_diagram_labels_are_readable_from_the_back_of_the_room(decks, lang):
    """The smallest line of text a picture draws, at the size the slide shows the picture, is 18 pt or more."""
    smallest = []
    for workshop_id in DRAWN_WORKSHOPS:
        own, deck, _ = decks[(workshop_id, lang)]
        for name, shape in pictures(deck):
            with Image.open(io.BytesIO(shape.image.blob)) as image:
                pt_per_pixel = shape.width / EMU_PER_PT / image.width
                assert shape.height / EMU_PER_PT / image.height == pytest.approx(pt_per_pixel, rel=0.01)
            sizes = [size for _, size, _ in labels_drawn(name, own, Variant(lang, False, SLIDE))]
            smallest.append((min(sizes) * pt_per_pixel, name))
    assert min(smallest)[0] >= SMALLEST_PT, min(smallest)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_picture_is_described_in_the_decks_language(decks, lang):
    """Alt text (``descr``) on every picture: Chinese in a Chinese deck (full-width punctuation between
    Chinese words), none in an English one."""
    for workshop_id in DRAWN_WORKSHOPS:
        _, deck, _ = decks[(workshop_id, lang)]
        for name, shape in pictures(deck):
            alt = shape._element.nvPicPr.cNvPr.get("descr", "")
            assert len(alt) > 40, (name, alt)
            assert bool(CJK.search(alt)) == (lang == "zh"), (name, alt)
            assert not re.search(r"[\u3400-\u9fff][,;:]|[,;:] ?[\u3400-\u9fff]", alt), (name, alt)


def test_the_workshop_map_shows_the_whole_course_with_its_own_modules_filled_in(decks, course):
    own, deck, _ = decks[("cpu-performance", "en")]
    (picture,) = [shape for name, shape in pictures(deck) if name == "backends-map"]
    drawn = labels_drawn("backends-map", own, Variant("en", False, SLIDE))
    modules = {m.name for m in course.modules} - {"backends"}
    shown = {text for text, _, _ in drawn if text in modules}
    assert shown == modules  # the whole course, not the workshop's four modules only
    filled = {text for text, _, bold in drawn if text in modules and bold}  # a filled box's name is bold
    assert filled == set(own.highlighted) == {m.name for m in own.modules} and filled < modules
    alt = picture._element.nvPicPr.cNvPr.get("descr")
    assert all(name in alt for name in modules) and "Taught here: " + ", ".join(own.highlighted) in alt


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_pdf_has_a_page_per_slide_and_its_text(decks, lang):
    for workshop_id in DRAWN_WORKSHOPS:
        _, deck, pdf = decks[(workshop_id, lang)]
        assert pdf == deck.with_suffix(".pdf")
        prs = Presentation(str(deck))
        info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
        assert int(re.search(r"^Pages:\s+(\d+)", info, re.M)[1]) == len(prs.slides)
        pages = subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True,
                               check=True).stdout.decode("utf-8").split("\f")
        for slide, page in zip(prs.slides, pages):
            title = slide.shapes.title.text_frame.text
            assert letters_and_digits(title) in letters_and_digits(page), (slide_name(slide), title)


def test_the_same_deck_gives_the_same_pdf(decks, verification, tmp_path):
    """LibreOffice dates its PDF and gives it a random id: both are set from the deck, so a rebuild (another
    LibreOffice run, from another folder) is the same file as the one the build wrote."""
    _, deck, pdf = decks[("gpu-tuning", "en")]
    again = tmp_path / deck.name
    shutil.copy(deck, again)
    date = slides.document_date(verification.date)  # the build's date (``slides.render``)
    assert write_pdf(again, date).read_bytes() == pdf.read_bytes()


def test_a_failed_conversion_is_raised_with_what_libreoffice_said(tmp_path, monkeypatch):
    fake = tmp_path / "bin" / "soffice"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'Error: source file could not be loaded' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(fake.parent))
    deck = tmp_path / "deck.pptx"
    deck.write_bytes(b"not a deck")
    with pytest.raises(BuildError, match="could not convert .*source file could not be loaded"):
        write_pdf(deck, slides.document_date("2026-11-27"))
    assert not deck.with_suffix(".pdf").exists()


def test_pdf_without_libreoffice_is_a_clear_error_before_anything_is_written(tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    out = tmp_path / "build"
    result = torchdeck("slides", "--pdf", "--out", out, "--lang", "en", env={"PATH": str(empty)})
    assert result.exit_code == 2, result.output
    assert "--pdf needs LibreOffice" in result.output
    assert not out.exists()
