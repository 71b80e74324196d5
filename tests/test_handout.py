"""A workshop's handout as poppler reads it back: the cheat table of flags with the defaults a passing check
asserts, the session's questions as a self-test with the answers on a later page, the diagrams in the
handout's language at a size that prints legibly, and verification as one mark and one note.

Also the content side of the cheat table: a lesson's ``flags`` and what the loader refuses in them."""
from __future__ import annotations

import dataclasses
import io
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image

from generator.defaults import asserted_default
from generator.diagrams import Variant, card_diagram_png
from generator.diagrams.layouts import MIN_LABEL
from generator.loader import load_course
from generator.markup import checked_part
from generator.render import handout
from generator.render.base import RenderJob
from generator.render.order import shown
from generator.wording import WORDS
from generator.workshops import course_for, lessons_of
from helpers import ROOT, as_in_pdf, torchdeck, without_spaces

START = 9 * 60
# What torch says of these flags (PyTorch's documentation says the same): the oracle the cheat table meets.
INTRO_DEFAULTS = {"torch.backends.cudnn.benchmark": "False", "torch.backends.cudnn.deterministic": "False",
                  "torch.backends.cuda.matmul.allow_tf32": "False", "torch.backends.cudnn.allow_tf32": "True"}
PAGES_AT_MOST = 6  # the intro handout: 3 pages before its diagrams, self-test and answers; 5 with them


@pytest.fixture(scope="module")
def intro(course):
    return next(w for w in course.workshops if w.id == "intro")


@pytest.fixture(scope="module")
def built(course, verification, intro, tmp_path_factory):
    """The intro workshop's handout in both languages: {lang: pdf}."""
    out = tmp_path_factory.mktemp("handout")
    return {lang: handout.render(RenderJob(course, verification, lang, out), handout.HandoutOptions(intro, START))[0]
            for lang in ("en", "zh")}


def pages(pdf: Path, layout: bool = True) -> list[str]:
    """The text of each page: laid out as printed (a table's rows), or in reading order (the answers' columns)."""
    command = ["pdftotext", *(["-layout"] if layout else []), str(pdf), "-"]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout.split("\f")[:-1]


def images(pdf: Path) -> list[dict]:
    """``pdfimages -list``: page, width, height and x-ppi of each image."""
    out = subprocess.run(["pdfimages", "-list", str(pdf)], capture_output=True, text=True, check=True).stdout
    rows = [line.split() for line in out.splitlines()[2:] if line.strip()]
    return [{"page": int(r[0]), "width": int(r[3]), "height": int(r[4]), "ppi": int(r[12])} for r in rows]


def page_of(texts: list[str], heading: str) -> int:
    """The (1-based) page whose text holds ``heading`` as its own line."""
    found = [n for n, text in enumerate(texts, 1)
             if any(line.strip() == heading for line in text.splitlines())]
    assert len(found) == 1, (heading, found)
    return found[0]


# ------------------------------------------------------------------ the cheat table
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_cheat_table_has_a_row_per_flag_taught_with_its_default(built, lang):
    texts = pages(built[lang])
    words = WORDS[lang]["workshop"]["handout"]
    page = texts[page_of(texts, words["cheat"]) - 1]
    table = page[page.index(words["cheat"]):page.index(words["links"])]
    assert all(column in table for column in words["cheat_columns"])
    flagged = [line for line in table.splitlines() if line.strip().startswith("torch.backends.")]
    found = {}
    for line in flagged:
        flag, default = line.split()[:2]
        found[flag.rstrip(handout.cheat.MARK)] = default
    assert found == INTRO_DEFAULTS


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_row_says_when_to_change_its_flag_and_marks_what_was_not_verified_here(built, course, verification,
                                                                                  intro, lang):
    texts = pages(built[lang])
    text = as_in_pdf(texts[page_of(texts, WORDS[lang]["workshop"]["handout"]["cheat"]) - 1])
    rows = [row for lesson in lessons_of(intro, course) for row in lesson.flags]
    assert len(rows) == len(INTRO_DEFAULTS)
    for row in rows:
        assert as_in_pdf(row.change.get(lang))[:40] in text, row.flag
        unverified = any(verification.results[f].status != "pass" for f in row.facts)
        assert (row.flag + handout.cheat.MARK in text) == unverified, row.flag


def test_a_flag_whose_default_fact_did_not_pass_here_is_left_out(course, verification, intro, tmp_path):
    results = dict(verification.results)
    results["cudnn-benchmark-default"] = dataclasses.replace(results["cudnn-benchmark-default"], status="skip",
                                                             needs=("cudnn",))
    job = RenderJob(course, dataclasses.replace(verification, results=results), "en", tmp_path)
    pdf, _ = handout.render(job, handout.HandoutOptions(intro, START))
    texts = pages(pdf)
    table = texts[page_of(texts, "Cheat sheet: the flags") - 1]
    assert "torch.backends.cudnn.benchmark" not in table
    assert "torch.backends.cudnn.deterministic" in table


# ------------------------------------------------------------------ the self-test
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_questions_come_first_and_their_answers_on_a_later_page(built, course, intro, lang):
    texts = pages(built[lang], layout=False)
    words = WORDS[lang]["workshop"]["handout"]
    asked_at, answers_at = page_of(texts, words["self_test"]), page_of(texts, words["answers"])
    assert answers_at > asked_at
    questions = [q for step in intro.agenda for q in course.questions if q.id in step.questions]
    assert len(questions) == 4  # the intro asks after four of its five lessons (the game asks its own)
    before = as_in_pdf("".join(texts[:answers_at - 1]))
    after = as_in_pdf("".join(texts[answers_at - 1:]))
    assert f"{answers_at}" in as_in_pdf(texts[asked_at - 1].split(words["self_test"])[1][:200])  # "on page N"
    selected = course_for(intro, course)
    last = 0
    for number, question in enumerate(questions, 1):
        stem = as_in_pdf(question.stem.get(lang))
        at = before.find(stem)
        assert at > last, question.id  # in the order the agenda asks them
        last = at
        options = shown(question, selected)
        letters = {"en": ",", "zh": "、"}[lang].join(chr(65 + i) for i, o in enumerate(options) if o.correct)
        assert as_in_pdf(words["answer_is"].format(letters=letters)) in after, question.id
        for option in options:
            text = option.text.get(lang)
            assert as_in_pdf(text) in before and as_in_pdf(text) in after
            assert as_in_pdf(checked_part(option.why.get(lang))) in after, (question.id, option.why.en)


# ------------------------------------------------------------------ diagrams
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_diagrams_are_printed_in_the_handouts_language_with_labels_of_8_pt_or_more(built, course, intro, lang):
    found = images(built[lang])
    names = list(dict.fromkeys(name for lesson in lessons_of(intro, course) for name in lesson.diagrams))
    assert len(names) == 3
    workshop_course = course_for(intro, course)
    expected = [Image.open(io.BytesIO(card_diagram_png(n, workshop_course, Variant(lang, False)))).size
                for n in names]
    assert [(image["width"], image["height"]) for image in found] == expected
    for image in found:
        assert MIN_LABEL / image["ppi"] * 72 >= 8.0 - 0.05  # the smallest label, in points on paper
    other = images(built["zh" if lang == "en" else "en"])
    assert [(i["width"], i["height"]) for i in other] != expected  # each language has its own pictures


# ------------------------------------------------------------------ verification status
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_verification_is_one_note_and_a_mark_never_a_line_under_a_heading(built, course, verification, intro, lang):
    text = "\n".join(pages(built[lang], layout=False))  # reading order: a title's mark follows it
    unverified = WORDS[lang]["needs"][0].split("(")[0].split("（")[0].strip()
    assert text.count(unverified) == 1  # the note under the title
    job = RenderJob(course, verification, lang, Path())
    squeezed = without_spaces(text)
    for lesson in lessons_of(intro, course):
        title = without_spaces(job.t(lesson.title).replace("`", ""))
        marked = bool(job.unverified_note(lesson.facts))
        assert (title + handout.cheat.MARK in squeezed) == marked, lesson.id


def test_the_handout_keeps_a_sensible_page_count(built):
    counts = {lang: len(pages(pdf)) for lang, pdf in built.items()}
    assert all(3 < count <= PAGES_AT_MOST for count in counts.values()), counts


# ------------------------------------------------------------------ the content
def test_asserted_default_reads_default_checks_and_snippets_that_read_before_changing(course):
    def fact(fact_id):
        return course.fact(fact_id).check

    assert str(asserted_default(fact("cudnn-benchmark-default"), "torch.backends.cudnn.benchmark")) == "False"
    assert asserted_default(fact("cudnn-benchmark-default"), "torch.backends.cudnn.deterministic") is None
    contrast = fact("cuda-cudnn-allow-tf32-contrast")  # read into local names, then asserted
    assert str(asserted_default(contrast, "torch.backends.cudnn.allow_tf32")) == "True"
    assert str(asserted_default(contrast, "torch.backends.cuda.matmul.allow_tf32")) == "False"

    class Snippet:
        kind = "snippet"

        def __init__(self, target):
            self.target = target

    flag = "torch.backends.cudnn.benchmark"
    assert asserted_default(Snippet(f"{flag} = True\nassert {flag} is True"), flag) is None
    assert asserted_default(Snippet(f"torch.backends.cudnn.flags(benchmark=True)\nassert {flag} is True"), flag) is None
    assert str(asserted_default(Snippet(f"x = 1\nassert {flag} == 10"), flag)) == "10"


def _fixture_with(tmp_path: Path, rows: str) -> Path:
    content = tmp_path / "content"
    shutil.copytree(ROOT / "tests" / "fixtures" / "course", content)
    path = content / "cudnn.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("  - id: g-flags\n", "  - id: g-flags\n" + rows, 1), encoding="utf-8")
    return content


FLAG_ROW = """    flags:
      - flag: torch.backends.cudnn.benchmark
        default: {default}
        change: {{en: "Turn it on.", zh: "打开它。"}}
        facts: [g-benchmark-default]
"""


def test_a_flag_row_loads_and_its_default_fact_must_assert_that_flags_default(tmp_path):
    good = load_course(_fixture_with(tmp_path / "good", FLAG_ROW.format(default="g-benchmark-default")))
    lesson = next(lesson for lesson in good.lessons if lesson.id == "g-flags")
    assert [row.flag for row in lesson.flags] == ["torch.backends.cudnn.benchmark"]
    for wrong, said in (("g-enabled-default", "does not assert the default of torch.backends.cudnn.benchmark"),
                        ("no-such-fact", "no fact has the id 'no-such-fact'")):
        content = _fixture_with(tmp_path / wrong, FLAG_ROW.format(default=wrong))
        result = torchdeck("lint", "--content", content)
        assert result.exit_code == 2 and "Traceback" not in result.output, result.output
        line = next(n for n, text in enumerate((content / "cudnn.yaml").read_text().splitlines(), 1)
                    if text.strip() == f"default: {wrong}")
        assert re.search(rf"cudnn\.yaml:{line}:\d*:? ?.*{re.escape(said)}", result.output), result.output
