"""Workshop slides: structure, notes, fonts, reproducibility, and fit as LibreOffice draws it.

The decks are built once per module (shipped content and a stress course that forces
every kind of continuation), converted to PDF in one LibreOffice run, and read back
with python-pptx and ``pdftotext -bbox``.
"""
from __future__ import annotations

import dataclasses
import io
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree
from PIL import Image
from pptx import Presentation

from generator.diagrams import diagram_png
from generator.errors import BuildError
from generator.model import Course, Module
from generator.render import slides
from generator.render.base import RenderJob
from generator.render.order import shown
from generator.render.slides import fit
from generator.render.teaching import REVIEW_EVERY
from generator.verify import verify
from generator.wording import WORDS
from helpers import (
    EMU_PER_PT,
    A,
    as_seen,
    convert_to_pdf,
    letters_and_digits,
    pdf_word_boxes,
    shape_boxes,
    slide_kind,
    slide_name,
    word_inside,
)

LAYOUT_OF = {"title": "Title", "outline": "Outline", "section": "Section", "lesson": "Lesson", "diagram": "Diagram",
             "quiz": "Quiz", "answer": "Answer", "review": "Review", "cheatsheet": "Cheat Sheet",
             "flashcards": "Flashcards"}


# ------------------------------------------------------------------ stress content
def _long(n: int, word: str = "autotuning") -> str:
    return " ".join(f"{word}{i % 7}" for i in range(n))


LONG_LINE = "result = torch.nn.functional.scaled_dot_product_attention(" + ", ".join(
    f"argument_number_{i}" for i in range(12)) + ")"
LONG_CODE = "\n".join(["import torch", LONG_LINE] + [f"x{i} = torch.zeros({i}, {i})  # line {i}" for i in range(40)])
CJK_POINT = "这是一个很长的中文要点，用来检查中文换行是否按真实字体度量计算，" * 4 + "并且不会超出文本框。"
GLUED_NAMES = ["torch.backends.cudnn.benchmark", "torch.backends.cudnn.deterministic",
               "torch.backends.cuda.matmul.allow_tf32", "torch.backends.cudnn.allow_tf32", "torch.backends.mkldnn.enabled"]
GLUED_POINT = {  # code names joined only by 、 and ，: one "word" to LibreOffice, wider than two lines
    "en": "Switches tuned together: " + ", ".join(f"`{n}`" for n in GLUED_NAMES) + ".",
    "zh": "一起调的开关有" + "、".join(f"`{n}`" for n in GLUED_NAMES[:-1]) + f"，`{GLUED_NAMES[-1]}`。"}
STRESS_MODULES = [
    {
        "module": "torch.backends.alpha", "order": 1,
        "title": {"en": "Alpha: a module with everything", "zh": "Alpha：什么都有的模块"},
        "summary": {"en": "A stress module: long points, long code, a long table.", "zh": "压力测试模块：长要点、长代码、长表格。"},
        "lessons": [
            {"id": "alpha-long", "title": {"en": "A very long lesson", "zh": "一节很长的课"},
             "points": [{"en": _long(45), "zh": CJK_POINT} for _ in range(6)],
             "code": [{"code": LONG_CODE, "caption": {"en": "A long listing", "zh": "一段长代码"}}],
             "table": {"columns": ["Flag", "Default", {"en": "Use when", "zh": "适用场景"}],
                       "rows": [[f"flag_{i}", "False", {"en": _long(14, "when"), "zh": "当输入形状固定并且需要更快的卷积时使用" * 2}]
                                for i in range(22)]},
             "quote": {"text": {"en": _long(30, "quoted"), "zh": "官方文档的一句很长的话，" * 5},
                       "source": "https://docs.pytorch.org/docs/stable/backends.html#torch.backends.cudnn.benchmark"},
             "analogy": {"en": "🏎️ " + _long(20, "lap"), "zh": "🏎️ 就像赛车先试跑一圈。"},
             "diagrams": ["cudnn-flags"],
             "notes": {"en": "Say the long thing.", "zh": "讲长内容。"},
             "ask": {"en": "What is long?", "zh": "什么很长？"}, "minutes": 12,
             "takeaway": {"en": "Long lessons continue on more slides.", "zh": "长课会续到更多页。"},
             "facts": ["alpha-pass"]},
            {"id": "alpha-gpu", "title": "Needs a GPU to check",
             "points": ["Rests on a fact this machine cannot observe."],
             "takeaway": "GPU-only claims are marked.", "facts": ["alpha-out-of-range"]},
            {"id": "alpha-short", "title": "Short and sweet, under a title long enough to need a second line "
                                            "and a smaller size before it fits the title box of its layout",
             "points": ["One point."],
             "diagrams": ["tf32-bits"], "facts": ["alpha-pass"]},
            {"id": "alpha-fourth", "title": "The fourth lesson", "points": ["After a review.", GLUED_POINT],
             "takeaway": "Reviews come every three lessons.", "facts": ["alpha-pass"]},
        ],
        "facts": [
            {"id": "alpha-pass", "claim": "torch imports", "check": {"expr": "torch is not None"}},
            {"id": "alpha-out-of-range", "claim": "an old torch behaviour", "check": {"expr": "True"},
             "torch": "<1.0"},
        ],
        "cards": [
            {"id": "alpha-basic", "kind": "basic", "front": "Front?", "back": "Back.", "facts": ["alpha-pass"]},
            {"id": "alpha-cloze", "kind": "cloze", "text": "Benchmark is {{c1::off}} by default.",
             "facts": ["alpha-out-of-range"]},
            {"id": "alpha-mcq", "kind": "mcq", "question": "Pick the true one",
             "options": [{"text": "yes", "correct": True, "why": "right"}, {"text": "no", "why": "wrong"}],
             "facts": ["alpha-pass"]},
        ],
        "questions": [
            {"id": "alpha-q-code", "kind": "single", "stem": "What does this print?",
             "code": "import torch\nprint(torch.backends.cudnn.benchmark)",
             "options": [{"text": "False", "correct": True, "why": "The default is off."},
                         {"text": "True", "why": "Only after you set it."}], "facts": ["alpha-pass"]},
            {"id": "alpha-q-gpu", "kind": "multi", "stem": "Which need a GPU?",
             "options": [{"text": "cuDNN autotuning", "correct": True, "why": "cuDNN runs on NVIDIA GPUs."},
                         {"text": "Python imports", "why": "Those run anywhere."}],
             "facts": ["alpha-out-of-range"]},
            {"id": "alpha-q-orphan", "kind": "truefalse", "stem": "No lesson teaches this fact.",
             "options": [{"text": "True", "correct": True, "why": "It is placed at the module end."},
                         {"text": "False", "why": "It is."}], "facts": ["alpha-orphan"]},
        ],
    },
    {
        "module": "torch.backends.beta", "order": 2, "title": "Beta",
        "lessons": [{"id": "beta-one", "title": "Beta one", "points": ["Beta point."], "facts": ["beta-pass"]}],
        "facts": [{"id": "beta-pass", "claim": "torch has a version", "check": {"expr": "bool(torch.__version__)"}}],
    },
]
STRESS_MODULES[0]["facts"].append({"id": "alpha-orphan", "claim": "true is true", "check": {"expr": "True"}})


# ------------------------------------------------------------------------ fixtures
@pytest.fixture(scope="module")
def stress_course():
    return Course(tuple(Module.model_validate(m) for m in STRESS_MODULES))


@pytest.fixture(scope="module")
def stress_verification(stress_course, tmp_path_factory):
    return verify(stress_course, cache_dir=tmp_path_factory.mktemp("stress-cache"))


@pytest.fixture(scope="module")
def built(course, verification, stress_course, stress_verification, tmp_path_factory):
    """Every presentation the tests read: {key: (job, Presentation, pptx path)}."""
    out = tmp_path_factory.mktemp("slides")
    decks = {}
    for lang in ("en", "zh"):
        job = RenderJob(course, verification, lang, out / "real")
        decks[f"real-{lang}"] = (job, *slides.render(job))
        stress = RenderJob(stress_course, stress_verification, lang, out / "stress")
        decks[f"stress-{lang}"] = (stress, *slides.render(stress))
    return {key: (job, Presentation(str(path)), path) for key, (job, path) in decks.items()}


@pytest.fixture(scope="module")
def drawn(built, tmp_path_factory):
    """The presentations as LibreOffice draws them: {key: (Presentation, pdf path)}, converted in one run
    per language; only the tests that read a PDF ask for it."""
    out = tmp_path_factory.mktemp("drawn")
    flat = out / "flat"  # unique names: the real and the stress decks share file names
    flat.mkdir()
    for key, (_, _, path) in built.items():
        shutil.copyfile(path, flat / f"{key}.pptx")
    convert_to_pdf([sorted(flat.glob("*-en.pptx")), sorted(flat.glob("*-zh.pptx"))], out / "pdf", out)
    return {key: (prs, out / "pdf" / f"{key}.pdf") for key, (_, prs, _) in built.items()}


@pytest.fixture(scope="module")
def module_decks(course, verification, tmp_path_factory):
    """``torchdeck slides --module a --module b``: one deck per selected module (read back, not converted)."""
    chosen = course.select([m.name for m in course.modules[:3]])
    job = RenderJob(chosen, verification, "en", tmp_path_factory.mktemp("modules"))
    return job, slides.render(job, slides.SlidesOptions(per_module=True))


def _deck(built, key):
    return built[key]


# --------------------------------------------------------------------- structure
@pytest.mark.parametrize("key", ["real-en", "real-zh", "stress-en", "stress-zh"])
def test_every_slide_uses_the_template_layout_named_for_its_kind(built, key):
    _, prs, _ = _deck(built, key)
    assert prs.slide_width == 12192000 and prs.slide_height == 6858000  # 16:9 from the template
    for slide in prs.slides:
        assert slide.slide_layout.name == LAYOUT_OF[slide_kind(slide)], slide_name(slide)


def _expected_names(course) -> list[str]:
    """The names of the first slide of every planned slide, in order, from the content alone."""
    first_module_diagrams = [d for lesson in course.modules[0].lessons for d in lesson.diagrams]
    names = ["title", "outline"] + ([] if "backends-map" in first_module_diagrams else ["diagram:backends-map"])
    count = 0
    for module in course.modules:
        names.append(f"section:{module.name}")
        lesson_of = {}
        for question in module.questions:
            lesson_of[question.id] = None
            for lesson in module.lessons:
                if set(lesson.facts) & set(question.facts):
                    lesson_of[question.id] = lesson.id
        for lesson in module.lessons:
            names.append(f"lesson:{lesson.id}")
            names += [f"diagram:{d}" for d in lesson.diagrams]
            for question in module.questions:
                if lesson_of[question.id] == lesson.id:
                    names += [f"quiz:{question.id}", f"answer:{question.id}"]
            count += 1
            if count % REVIEW_EVERY == 0:
                names.append(f"review:{lesson.id}")
        for question in module.questions:
            if lesson_of[question.id] is None:
                names += [f"quiz:{question.id}", f"answer:{question.id}"]
    return names + ["flashcards", "cheatsheet"]  # the take-aways close the deck


@pytest.mark.parametrize("key", ["real-en", "real-zh", "stress-en", "stress-zh"])
def test_slide_sequence_matches_lessons_questions_and_reviews(built, key):
    job, prs, _ = _deck(built, key)
    names = [slide_name(s) for s in prs.slides]
    firsts = [n for n in names if ":cont" not in n]
    assert firsts == _expected_names(job.course)
    slides_ = list(prs.slides)
    for index, slide in enumerate(slides_):
        if ":cont" in slide_name(slide):  # continuation slides follow their first slide, under a headline of their own
            first = slide_name(slide).split(":cont")[0]
            assert names[index - 1] == first or names[index - 1].startswith(first + ":cont")
            assert slide.shapes.title.text_frame.text != slides_[index - 1].shapes.title.text_frame.text, names[index]


@pytest.mark.parametrize("key", ["real-en", "stress-en"])
def test_per_module_counts(built, key):
    """Each module's stretch of slides holds one lesson slide per lesson and a quiz and answer per question."""
    job, prs, _ = _deck(built, key)
    names = [slide_name(s) for s in prs.slides]
    for module in job.course.modules:
        start = names.index(f"section:{module.name}")
        end = next(i for i in range(start + 1, len(names))
                   if names[i].startswith(("section:", "flashcards")) and ":cont" not in names[i])
        stretch = [n for n in names[start:end] if ":cont" not in n]
        kinds = [n.split(":")[0] for n in stretch]
        assert kinds.count("lesson") == len(module.lessons)
        assert kinds.count("quiz") == kinds.count("answer") == len(module.questions)
        assert kinds.count("diagram") == sum(len(lesson.diagrams) for lesson in module.lessons)
        layouts = [s.slide_layout.name for s in list(prs.slides)[start:end] if ":cont" not in slide_name(s)]
        assert layouts.count("Quiz") == len(module.questions)


def test_the_stress_deck_continues_rather_than_shrinks(built):
    job, prs, _ = _deck(built, "stress-en")
    names = [slide_name(s) for s in prs.slides]
    assert sum(n.startswith("lesson:alpha-long:cont") for n in names) >= 3
    assert any(n.startswith("cheatsheet") for n in names)
    sizes = [int(e.get("sz")) for s in prs.slides for e in s._element.iter(f"{A}rPr") if e.get("sz")]
    assert min(sizes) >= 1400  # nothing below 14 pt


def test_titles_shrink_to_fit_but_never_below_14_pt(built, tmp_path):
    job, prs, _ = _deck(built, "stress-en")
    long_title = next(s for s in prs.slides if slide_name(s) == "lesson:alpha-short")
    sizes = {r.font.size.pt for p in long_title.shapes.title.text_frame.paragraphs for r in p.runs}
    assert len(sizes) == 1 and 14 <= sizes.pop() < 32
    module = job.course.modules[1]
    endless = module.model_copy(update={"lessons": [module.lessons[0].model_copy(
        update={"title": module.lessons[0].title.model_copy(update={"en": _long(160, "title")})})]})
    too_long = dataclasses.replace(job, course=Course((endless,)), out_dir=tmp_path)
    with pytest.raises(BuildError, match="does not fit its box even at 14 pt"):
        slides.render(too_long)


def test_long_code_keeps_every_line_and_breaks_only_visibly(built):
    _, prs, _ = _deck(built, "stress-en")
    code_lines = []
    for shape in _shapes_of(prs, "lesson:alpha-long"):
        if shape.name.startswith("Code"):
            body = shape.text_frame._txBody.find(f"{A}bodyPr")
            assert body.get("wrap") == "none"  # the renderer never wraps code
            for para in shape.text_frame.paragraphs:
                bullet = para._p.find(f"{A}pPr/{A}buChar")
                line = para.text
                if bullet is not None:
                    assert bullet.get("char") == "↪"
                    code_lines[-1] += line
                else:
                    code_lines.append(line)
    assert code_lines == LONG_CODE.split("\n")


def test_tables_repeat_their_header_and_keep_every_row(built):
    _, prs, _ = _deck(built, "stress-en")
    rows = []
    for shape in _shapes_of(prs, "lesson:alpha-long"):
        if shape.has_table:
            cells = [[c.text for c in r.cells] for r in shape.table.rows]
            assert cells[0] == ["Flag", "Default", "Use when"]
            rows += [r[0] for r in cells[1:]]
    assert rows == [f"flag_{i}" for i in range(22)]


def _shapes_of(prs, slide_name_prefix: str):
    """Every shape of the slides whose name starts with ``slide_name_prefix`` (a lesson and its continuations)."""
    for slide in prs.slides:
        if slide_name(slide).startswith(slide_name_prefix):
            yield from slide.shapes


def test_points_survive_splitting_word_for_word(built):
    _, prs, _ = _deck(built, "stress-zh")
    text = ""
    for slide in prs.slides:
        if slide_name(slide).startswith("lesson:alpha-long"):
            for shape in slide.shapes:
                if shape.has_text_frame and shape.name.startswith("Body"):
                    text += "".join(p.text for p in shape.text_frame.paragraphs)
    assert text == CJK_POINT * 6


# ------------------------------------------------------------ notes, footer, numbers
@pytest.mark.parametrize("key", ["real-en", "real-zh", "stress-en", "stress-zh"])
def test_every_content_slide_has_notes_with_say_ask_and_minutes(built, key):
    job, prs, _ = _deck(built, key)
    words = WORDS[job.lang]["slides"]
    lessons = {lesson.id: lesson for lesson in job.course.lessons}
    for slide in list(prs.slides)[1:]:
        assert slide.has_notes_slide, slide_name(slide)
        lines = slide.notes_slide.notes_text_frame.text.split("\n")
        assert [line[:len(p)] for line, p in zip(lines, (words["say"], words["ask"], words["time"]))] == \
            [words["say"], words["ask"], words["time"]], slide_name(slide)
        assert all(len(line) > len(p) + 1 for line, p in zip(lines, (words["say"], words["ask"])))
        assert re.search(r"\d+", lines[2])
        if slide_kind(slide) == "lesson":
            lesson = lessons[slide_name(slide).split(":")[1]]
            if lesson.notes:
                assert lines[0] == words["say"] + job.t(lesson.notes)
            if lesson.ask:
                assert lines[1] == words["ask"] + job.t(lesson.ask)
            assert str(lesson.minutes) in lines[2]
    assert not list(prs.slides)[0].has_notes_slide  # the title slide is no content slide


@pytest.mark.parametrize("key", ["real-en", "real-zh", "stress-en"])
def test_footer_on_every_slide_and_slide_number_fields_on_all_but_the_title(built, key):
    job, prs, _ = _deck(built, key)
    for index, slide in enumerate(prs.slides, 1):
        footers = [s for s in slide.placeholders if s.placeholder_format.idx == 11]
        said = {"en": f"verified against torch {job.verification.torch} on {job.verification.date}",
                "zh": f"已于 {job.verification.date} 对照 torch {job.verification.torch} 验证"}[job.lang]
        assert [f.text_frame.text for f in footers] == [said]
        assert " pass, " not in footers[0].text_frame.text  # no check counts before a room
        fields = [f for f in slide._element.iter(f"{A}fld") if f.get("type") == "slidenum"]
        if index == 1:
            assert fields == []
        else:
            assert len(fields) == 1 and fields[0].findtext(f"{A}t") == str(index)


@pytest.mark.parametrize("key", ["real-zh", "real-en", "stress-zh"])
def test_every_run_names_latin_and_east_asian_fonts(built, key):
    _, _, path = _deck(built, key)
    with zipfile.ZipFile(path) as archive:
        parts = [n for n in archive.namelist() if re.match(r"ppt/(slides|notesSlides)/\w+\.xml$", n)]
        runs = 0
        for name in parts:
            root = etree.fromstring(archive.read(name))
            for run in root.iter(f"{A}r", f"{A}fld"):
                props = run.find(f"{A}rPr")
                assert props is not None and props.find(f"{A}latin") is not None, name
                assert props.find(f"{A}ea").get("typeface"), name
                runs += 1
    assert runs > 100
    if key.endswith("zh"):
        assert b'typeface="Noto Sans CJK SC"' in zipfile.ZipFile(path).read("ppt/slides/slide5.xml")


@pytest.mark.parametrize("key", ["real-zh", "stress-zh"])
def test_no_space_is_written_beside_full_width_punctuation(built, key):
    """The runs python-pptx reads join code and Chinese punctuation with no space (`x`。, （`x`）): the gap
    LibreOffice draws there is its own space between Asian and Latin text (see ``fit.AUTOSPACE_EM``)."""
    _, prs, _ = _deck(built, key)
    spaced = re.compile(r" [，。、；：！？）]|（ ")
    checked = 0
    for slide in prs.slides:
        texts = [p.text for s in slide.shapes if s.has_text_frame for p in s.text_frame.paragraphs]
        texts += [c.text for s in slide.shapes if s.has_table for r in s.table.rows for c in r.cells]
        for text in texts:
            assert not spaced.search(text), (slide_name(slide), text)
            checked += bool(re.search(r"[A-Za-z0-9)][，。、；：！？）]", text))
    assert checked > (100 if key == "real-zh" else 2)


def _shown_text(slide) -> str:
    """What the room reads on a slide: every text box and table cell but the title, footer and number."""
    shapes = [s for s in slide.shapes if not s.name.startswith(("Title", "Footer", "Slide Number"))]
    return "\n".join([s.text_frame.text for s in shapes if s.has_text_frame] +
                     [c.text for s in shapes if s.has_table for r in s.table.rows for c in r.cells])


def _notes(slide) -> str:
    return slide.notes_slide.notes_text_frame.text if slide.has_notes_slide else ""


@pytest.mark.parametrize("key", ["real-en", "real-zh"])
def test_a_reviews_lesson_titles_show_no_backticks(built, key):
    """Inline code in a lesson's title is set in the mono font on a review slide, its backticks dropped."""
    _, prs, _ = built[key]
    shown = {slide_name(slide): _shown_text(slide) for slide in prs.slides if slide_name(slide).startswith("review:")}
    assert len(shown) > 5 and not {name: text[:120] for name, text in shown.items() if "`" in text}


@pytest.mark.parametrize("key", ["real-en", "real-zh"])
def test_a_review_asks_about_a_lesson_it_shows(built, key):
    """A review slide's notes ask the room about one of the lessons on it, by the title the slide shows, and
    no two reviews ask the same: no stock prompt ("Which of these would you explain to a colleague first?")."""
    _, prs, _ = built[key]
    asks = []
    for slide in prs.slides:
        if slide_name(slide).startswith("review:"):
            quoted = re.findall(r"“([^”]+)”", _notes(slide))
            assert quoted and any(title in as_seen(_shown_text(slide)) for title in quoted), (slide_name(slide), quoted)
            asks.append(quoted[0])
    assert len(asks) > 5 and max(asks.count(ask) for ask in asks) <= 2, asks  # two modules may share a title


def test_skipped_facts_are_marked_in_the_notes_not_on_the_slide(built):
    """Where a fact could not be checked here, the speaker's notes say so; the slide shows no banner."""
    job, prs, _ = _deck(built, "stress-en")
    note = "not verified here (needs another torch version)"  # its torch range is "<1.0"
    on_slide = {slide_name(s) for s in prs.slides if note in _shown_text(s)}
    in_notes = {slide_name(s) for s in prs.slides if note in _notes(s)}
    assert on_slide == set()
    assert {"lesson:alpha-gpu", "quiz:alpha-q-gpu", "answer:alpha-q-gpu", "review:alpha-short",
            "cheatsheet", "flashcards"} <= in_notes
    assert "lesson:alpha-short" not in in_notes and "quiz:alpha-q-code" not in in_notes
    review = next(s for s in prs.slides if slide_name(s) == "review:alpha-short")
    assert f"Needs a GPU to check: ⚠ {note}" in _notes(review).split("\n")  # which lesson of the review


UNVERIFIED = {lang: WORDS[lang]["needs"][0].split("{")[0] for lang in ("en", "zh")}  # 'not verified here ('
PICTOGRAPH = re.compile("[\U0001F000-\U0001FAFF\u2600-\u26FF\u2B00-\u2BFF\uFE0F\u200D]")


@pytest.mark.parametrize("key", ["real-en", "real-zh", "stress-en", "stress-zh"])
def test_no_banner_and_no_emoji_on_any_slide(built, key):
    """No slide body says "not verified here" nor shows a ⚠ box (the notes do); titles hold no emoji, nor does
    the text under them (Impress draws them as blanks); ✔ and ✘ are drawn from DejaVu and stay; code is as written."""
    job, prs, _ = _deck(built, key)
    told = 0
    for slide in prs.slides:
        name = slide_name(slide)
        assert not any(s.name.startswith("Warn") for s in slide.shapes), name
        shown = _shown_text(slide)
        assert UNVERIFIED[job.lang] not in shown and "⚠" not in shown, name
        title = slide.shapes.title.text_frame.text
        assert title and not PICTOGRAPH.search(title), (name, title)
        prose = "\n".join(s.text_frame.text for s in slide.shapes if s.has_text_frame and not s.name.startswith(
            ("Code", "Title"))) + "".join(c.text for s in slide.shapes if s.has_table for r in s.table.rows for c in r.cells)
        assert not PICTOGRAPH.search(prose), (name, prose[:200])
        told += UNVERIFIED[job.lang] in _notes(slide)
    assert told >= (30 if key.startswith("real") else 5)


@pytest.mark.parametrize("key", ["real-en", "real-zh", "stress-en", "stress-zh"])
def test_every_answer_slide_gives_each_options_reason_under_it(built, key):
    """Under every option one line: its why's checked part (or its explanation where that is all it has),
    shortened at a sentence, a clause or a word with '…' where it would not fit; the whole why in the notes."""
    job, prs, _ = _deck(built, key)
    questions = {q.id: q for q in job.course.questions}
    answered = 0
    for slide in prs.slides:
        if slide_kind(slide) != "answer":
            continue
        assert ":cont" not in slide_name(slide) or key.startswith("stress"), slide_name(slide)
        if ":cont" in slide_name(slide):
            continue
        options = shown(questions[slide_name(slide).split(":")[1]], job.course)
        box = next(s for s in slide.shapes if s.has_text_frame and s.text_frame.text[:1] in "✔✘")
        lines = [as_seen(p.text) for p in box.text_frame.paragraphs]
        assert len(lines) == 2 * len(options), (slide_name(slide), lines)
        notes = _notes(slide).replace("`", "")
        for option, shown_option, reason in zip(options, lines[::2], lines[1::2]):
            assert shown_option[:1] in "✔✘" and shown_option.endswith(job.t(option.text).replace("`", ""))
            why = job.t(option.why).replace("`", "")
            fact, _, explanation = why.partition("ℹ")
            full = fact.strip() or explanation.strip()
            assert reason == full or (reason.endswith("…") and full.startswith(reason[:-1].rstrip())) \
                or (reason[-1] in ".。!?！？" and full.startswith(reason)), (slide_name(slide), reason, full)
            assert not reason.startswith(WORDS[job.lang]["slides"]["why"])
            assert why in notes
        answered += 1
    assert answered == len(job.course.questions)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_reason_is_drawn_as_the_slide_says_it(drawn, lang):
    """As LibreOffice draws the whole course: each reason on its page as the slide says it, over the lines it
    needs, nothing of it lost or overlaid."""
    prs, pdf = drawn[f"real-{lang}"]
    pages = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                           check=True).stdout.split("\f")
    squeeze = lambda text: re.sub(r"[\s`\u200b]+", "", text)  # noqa: E731
    checked = 0
    for number, slide in enumerate(prs.slides):
        if slide_kind(slide) == "answer":
            box = next(s for s in slide.shapes if s.has_text_frame and s.text_frame.text[:1] in "✔✘")
            page = squeeze(pages[number])
            for reason in [p.text for p in box.text_frame.paragraphs][1::2]:
                assert squeeze(reason) in page, (number + 1, reason)
                checked += 1
    assert checked > 400


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_titles_start_at_their_boxs_left_edge_as_drawn(drawn, lang):
    """As LibreOffice draws the whole course: every left-aligned title's first word starts at its box's
    inset, not after a blank where an emoji was."""
    prs, pdf = drawn[f"real-{lang}"]
    checked = 0
    for number, ((_, _, words), slide) in enumerate(zip(pdf_word_boxes(pdf), prs.slides), 1):
        if slide.slide_layout.name == "Title":
            continue
        box = next(b for b, _, name in shape_boxes(slide) if name.startswith("Title"))
        inside = sorted((w for w in words if word_inside(w, box) and letters_and_digits(w[4])),
                        key=lambda w: (round(w[1]), w[0]))
        assert inside, (number, slide_name(slide))
        assert inside[0][0] - box[0] <= 7.2 + 3, (number, slide_name(slide), inside[0], box)  # the layouts' inset
        checked += 1
    assert checked > 500


@pytest.mark.parametrize("key", ["real-en", "real-zh", "stress-en"])
def test_sources_are_short_clickable_links(built, key):
    """A lesson's source shows short link text (``docs.pytorch.org › torch.backends.cudnn.benchmark``), never a
    raw address; the address is the link's target, on the slide that shows it."""
    job, prs, _ = _deck(built, key)
    source = WORDS[job.lang]["slides"]["source"]
    linked = 0
    for slide in prs.slides:
        for para in [p.text for s in slide.shapes if s.has_text_frame for p in s.text_frame.paragraphs]:
            if para.startswith(source):
                lesson = next(x for x in job.course.lessons if x.id == slide_name(slide).split(":")[1])
                assert "://" not in para and "/" not in para.split(" › ")[0], (slide_name(slide), para)
                assert " › " in para and len(para) <= len(source) + 90, para
                targets = {r.target_ref for r in slide.part.rels.values() if r.is_external}
                assert lesson.quote.source in targets
                linked += 1
    assert linked == sum(1 for lesson in job.course.lessons if lesson.quote)
    if key == "stress-en":
        assert linked == 1


@pytest.mark.parametrize("key", ["real-en", "real-zh", "stress-en", "stress-zh"])
def test_the_deck_closes_with_the_take_aways(built, key):
    """The last slides are the cheat sheet: a row per lesson in teaching order with its takeaway's checked
    part (no ℹ, no verification mark), then the reference, clickable and on a slide with rows; the
    explanations and marks are in the notes."""
    job, prs, _ = _deck(built, key)
    slides_ = list(prs.slides)
    closing = [s for s in slides_ if slide_kind(s) == "cheatsheet"]
    assert closing and closing == slides_[-len(closing):]
    rows = [[as_seen(c.text) for c in r.cells] for s in closing for sh in s.shapes if sh.has_table
            for r in list(sh.table.rows)[1:]]
    lessons = [lesson for module in job.course.modules for lesson in module.lessons]
    expected = []
    for lesson in lessons:
        takeaway = (job.t(lesson.takeaway) or job.t(lesson.title)).replace("`", "")
        fact = takeaway.split("ℹ")[0].strip()
        expected.append(fact or takeaway.lstrip("ℹ").strip())
    assert [row[2] for row in rows] == [PICTOGRAPH.sub("", e).replace("  ", " ").strip() for e in expected] or \
        [PICTOGRAPH.sub("", row[2]) for row in rows] == [PICTOGRAPH.sub("", e) for e in expected]
    last = closing[-1]
    assert any(sh.has_table for sh in last.shapes)  # the reference never goes on alone
    reference = WORDS[job.lang]["workshop"]["docs"]
    assert reference in _shown_text(last)
    assert any(r.is_external and r.target_ref.startswith("https://docs.pytorch.org") for r in last.part.rels.values())
    notes = _notes(closing[0])
    for lesson in lessons:
        mark = job.item_mark(lesson.facts)
        if mark:
            assert f"{job.t(lesson.title)}{WORDS[job.lang]['label']}{mark}" in notes  # "title：" in Chinese


# ---------------------------------------------------------------- pictures
@pytest.mark.parametrize("key", ["real-en", "stress-en"])
def test_diagrams_keep_their_aspect_ratio_inside_the_body(built, key):
    job, prs, _ = _deck(built, key)
    pictures = 0
    for slide in prs.slides:
        body = next(p for p in slide.slide_layout.placeholders if p.placeholder_format.idx == 1)
        for shape in slide.shapes:
            if shape.shape_type == 13:  # picture
                name = slide_name(slide).split(":")[1]
                png = diagram_png(name, job.course, job.lang)
                assert shape.image.blob == png
                width, height = Image.open(io.BytesIO(png)).size
                assert shape.width / shape.height == pytest.approx(width / height, rel=0.002)
                assert body.left - 1 <= shape.left and shape.left + shape.width <= body.left + body.width + 1
                assert body.top - 1 <= shape.top and shape.top + shape.height <= body.top + body.height + 1
                pictures += 1
    opening = [] if "backends-map" in [d for x in job.course.modules[0].lessons for d in x.diagrams] else [1]
    assert pictures == len(opening) + sum(len(lesson.diagrams) for lesson in job.course.lessons)


# ------------------------------------------------------------ reproducibility
def test_same_content_gives_identical_bytes_and_changed_content_does_not(built, tmp_path):
    job, _, path = _deck(built, "real-zh")
    again = slides.render(dataclasses.replace(job, out_dir=tmp_path))[0]
    assert again.read_bytes() == path.read_bytes()
    with zipfile.ZipFile(again) as archive:
        assert {i.date_time for i in archive.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        assert job.verification.date[:10].encode() in archive.read("docProps/core.xml")
    stress, _, stress_path = _deck(built, "stress-zh")
    other = dataclasses.replace(stress, out_dir=tmp_path / "other",
                                verification=dataclasses.replace(stress.verification, date="2001-02-03"))
    changed = slides.render(other)[0]
    assert changed.read_bytes() != stress_path.read_bytes()
    assert b"2001-02-03" in zipfile.ZipFile(changed).read("docProps/core.xml")


def test_per_module_decks_hold_one_module_each(module_decks):
    job, paths = module_decks
    assert [p.name for p in paths] == [f"torch-backends.{m.name}.en.pptx" for m in job.course.modules]
    for module, path in zip(job.course.modules, paths):
        prs = Presentation(str(path))
        names = [slide_name(s) for s in prs.slides]
        assert [n for n in names if n.startswith("section:") and ":cont" not in n] == [f"section:{module.name}"]
        assert sum(n.startswith("lesson:") and ":cont" not in n for n in names) == len(module.lessons)
        assert prs.slides[0].shapes.title.text_frame.text == module.display_title("en")


def test_a_module_deck_draws_the_whole_course_map(module_decks, course):
    """A module's presentation is a selection of the course: its map of torch.backends shows every
    module, not only its own."""
    from generator.diagrams import diagram_png

    whole = diagram_png("backends-map", course)
    job, paths = module_decks
    shown = 0
    for module, path in zip(job.course.modules, paths):
        if not any("backends-map" in lesson.diagrams for lesson in module.lessons):
            continue
        pictures = {shape.image.blob for slide in Presentation(str(path)).slides for shape in slide.shapes
                    if shape.shape_type == 13}
        alone = diagram_png("backends-map", dataclasses.replace(course.select([module.name]), highlighted=(module.name,)))
        assert whole in pictures and alone not in pictures
        shown += 1
    assert shown, "no selected module shows the map"


# ------------------------------------------------------------ template by name
def _template_copy(tmp_path, edit) -> Path:
    source = zipfile.ZipFile(slides.TEMPLATE)
    target = tmp_path / "template.pptx"
    with zipfile.ZipFile(target, "w") as out:
        for item in source.infolist():
            data = source.read(item.filename)
            out.writestr(item, edit(item.filename, data))
    return target


def test_layouts_are_found_by_name(built, tmp_path):
    job, _, _ = _deck(built, "stress-en")
    renamed = _template_copy(tmp_path, lambda n, d: d.replace(b'name="Quiz"', b'name="Pop Quiz"'))
    with pytest.raises(BuildError, match="no layout named 'Quiz'"):
        slides.build_presentation(job, template=renamed)


def test_moving_a_layout_placeholder_moves_the_content(built, tmp_path):
    job, _, _ = _deck(built, "stress-en")

    def narrower(name, data):
        if name.startswith("ppt/slideLayouts/slideLayout") and b'name="Lesson"' in data:
            return re.sub(rb'(<p:cNvPr id="3" name="Body"/>.*?<a:off x=")(\d+)(" y="\d+"/><a:ext cx=")(\d+)',
                          lambda m: m[1] + b"3000000" + m[3] + str(int(m[4]) - 2451360).encode(), data, flags=re.S)
        return data

    prs = Presentation(io.BytesIO(slides.build_presentation(job, template=_template_copy(tmp_path, narrower))))
    lesson = next(s for s in prs.slides if slide_kind(s) == "lesson")
    content = [s for s in lesson.shapes if not s.is_placeholder or s.placeholder_format.idx == 1]
    assert content and all(s.left == 3000000 for s in content if s.shape_type != 13)


# --------------------------------------------------------------- fit, as drawn
@pytest.mark.parametrize("key", ["real-en", "real-zh", "stress-en", "stress-zh"])
def test_every_text_span_lies_inside_the_slide_and_its_own_box(drawn, key):
    prs, pdf = drawn[key]
    pages = pdf_word_boxes(pdf)
    assert len(pages) == len(prs.slides)
    checked = 0
    for number, ((width, height, words), slide) in enumerate(zip(pages, prs.slides), 1):
        assert (width, height) == (pytest.approx(960, abs=0.1), pytest.approx(540, abs=0.1))
        boxes = shape_boxes(slide)
        for word in words:
            assert word_inside(word, (0, 0, width, height)), (number, word)
            key_text = letters_and_digits(word[4])
            own = [b for b in boxes if key_text in b[1]] if key_text else boxes
            assert own, f"slide {number}: {word[4]!r} is in no shape"
            assert any(word_inside(word, box) for box, _, _ in own), \
                f"slide {number} ({slide_name(slide)}): {word} outside {[(n, b) for b, _, n in own]}"
            checked += 1
    assert checked > 100


def test_code_lines_are_drawn_unwrapped(drawn):
    """As many lines of code in the PDF as paragraphs in each code box: LibreOffice wrapped none."""
    prs, pdf = drawn["stress-en"]
    pages = pdf_word_boxes(pdf)
    boxes = 0
    for (_, _, words), slide in zip(pages, prs.slides):
        for shape in slide.shapes:
            if shape.name.startswith("Code"):
                box = tuple(v / EMU_PER_PT for v in (shape.left, shape.top, shape.left + shape.width,
                                                      shape.top + shape.height))
                tops = sorted(w[1] for w in words if word_inside(w, box))
                lines = 1 + sum(b - a > 4 for a, b in zip(tops, tops[1:]))
                assert lines == len(shape.text_frame.paragraphs)
                boxes += 1
    assert boxes >= 3


def test_code_names_glued_by_a_pause_mark_break_between_names_as_drawn(drawn):
    """LibreOffice reads code names joined only by 、 or ， as one word and used to break it inside a name
    (``torch._transformer_encoder_laye`` / ``r_fwd``); the slide text lets it break after the mark, so each
    name is drawn whole on one line."""
    prs, pdf = drawn["stress-zh"]
    number = next(n for n, slide in enumerate(prs.slides) if slide_name(slide) == "lesson:alpha-fourth")
    page = subprocess.run(["pdftotext", "-layout", "-f", str(number + 1), "-l", str(number + 1), str(pdf), "-"],
                          capture_output=True, text=True, check=True).stdout
    lines = [re.sub(r"[\s\u200b]+", "", line) for line in page.split("\n")]
    glued = [line for line in lines if any(name[:12] in line for name in GLUED_NAMES)]
    assert len(glued) >= 3, page  # the names fill three lines or more: the line had to break among them
    for name in GLUED_NAMES:
        assert any(name in line for line in glued), (name, glued)


# ------------------------------------------------------------ measurement unit
SANS = fit.FontSet("DejaVu Sans", "Noto Sans CJK SC")


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="abc def-/中文，。（）ghijk 12", min_size=1, max_size=200),
       st.floats(min_value=40, max_value=400))
def test_wrapped_lines_fit_their_width_and_lose_nothing(text, width):
    starts = fit.wrap([(text, SANS)], 14, width)
    assert starts[0] == 0 and starts == sorted(set(starts))
    widths = fit.measure([(text, SANS)])
    for start, end in zip(starts, starts[1:] + [len(text)]):
        line = widths[start:end]
        visible = len(text[start:end].rstrip(" "))
        assert visible == 1 or sum(line[:visible]) * 14 <= width + 1e-6


def test_measurement_uses_the_real_fonts():
    mono = fit.FontSet("DejaVu Sans Mono", "Noto Sans Mono CJK SC")
    assert fit.text_width("iiiiiiiiii", mono, 10) == pytest.approx(fit.text_width("WWWWWWWWWW", mono, 10))
    assert fit.text_width("iiiiiiiiii", SANS, 10) < fit.text_width("WWWWWWWWWW", SANS, 10) / 2
    assert fit.text_width("中文", SANS, 10) == pytest.approx(20, rel=0.02)  # CJK glyphs are one em wide


# ------------------------------------------------------------ one-line reasons, keeping and cutting
def _flow():
    from generator.render.slides.flow import Flow
    from generator.render.slides.text import Typefaces

    return Flow(Typefaces("DejaVu Sans", "Noto Sans CJK SC"), presenting=True)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["cuDNN", "picks", "the", "fastest", "algorithm,", "per", "shape;", "timing.",
                                 "noise", "可能", "选出", "不同算法，", "torch.backends.cudnn.benchmark"]),
                min_size=1, max_size=40),
       st.floats(min_value=120, max_value=800))
def test_a_clipped_paragraph_is_one_line_cut_between_words(words_, width):
    from generator.render.slides.text import Para, Span

    text = " ".join(words_)
    flow = _flow()
    clipped = flow.clip(Para((Span(text, italic=True),), 20, margin=36, clip=True), width)
    shown = clipped.text
    if shown == text:
        return
    assert len(flow.lines(clipped, width)) == 1 or " " not in text  # a lone word wider than the line stays
    body = shown[:-1] if shown.endswith("…") else shown
    assert text.startswith(body.rstrip()) and (shown.endswith("…") or shown[-1] in ".。")
    after = text[len(body.rstrip()):]
    assert not after or after[0] in " ,;:，；" or fit.is_east_asian(after[0])  # never inside a word


def test_reasons_are_whole_where_the_slide_has_room_and_lose_a_line_at_a_time_where_not():
    """An answer's reasons (``clip``): whole where the block fits the room left; where it does not, the longest
    loses a line at a time (cut between words) until the block fits, and a short reason stays whole."""
    from generator.render.slides.flow import Area, TextBlock
    from generator.render.slides.text import Para, Span

    flow = _flow()
    long_why = "The flag defaults to False without the override variable at start, so TF32 matmuls are opt-in. " * 2
    short_why = "The default is False."
    paras = (Para((Span("A.  False"),), 20), Para((Span(long_why.strip()),), 20, margin=36, keep=True, clip=True),
             Para((Span("B.  True"),), 20), Para((Span(short_why),), 20, margin=36, keep=True, clip=True))
    block = TextBlock(paras)
    width = 700
    whole_lines = len(flow.lines(paras[1], width - 4))
    assert whole_lines >= 3
    pages = flow.paginate([block], Area(0, 0, width, 400))
    assert len(pages) == 1 and [p.text for p in pages[0][0].block.paras] == [p.text for p in paras]
    for height in range(60, 400, 9):
        room = Area(0, 0, width, height)
        first = flow.paginate([block], room)[0][0]
        shown = first.block.paras
        if len(shown) < 4:  # not even one line each fitted: the block went on over slides
            continue
        long_shown, short_shown = shown[1].text, shown[3].text
        assert short_shown == short_why, height
        lines = len(flow.lines(shown[1], width - 4))
        if long_shown != paras[1].text:
            assert long_shown.endswith(("…", ".")) and paras[1].text.startswith(long_shown.rstrip("…").rstrip())
            taller = flow.clip(paras[1], width - 4, lines + 1)
            more = (shown[0], taller, shown[2], shown[3])
            assert lines == 1 or taller.text == long_shown or flow.text_height(more, width, block.style) > height, \
                height  # one more line of it would not fit
        assert first.area.h <= height or lines == 1


def test_a_kept_paragraph_goes_with_the_one_before_and_no_lone_last_line_goes_on():
    from generator.render.slides.flow import Area, TextBlock
    from generator.render.slides.text import Para, Span

    flow = _flow()
    point = Para((Span(_long(30)),), 20)
    source = Para((Span("Source: docs.pytorch.org › cudnn"),), 20, keep=True)
    body = Area(0, 0, 600, 300)
    pages = flow.paginate([TextBlock((point, point, source))], body)
    assert len(pages) == 2
    last = pages[-1][0].block.paras
    assert last[-1] == source and len(last) >= 2  # the source never goes on alone
    for room in range(60, 300, 7):  # a paragraph cut across slides leaves two lines or more to go on
        head, rest = flow.split_paras((point,), 600, TextBlock(()).style, room)
        if head and rest:
            assert len(flow.lines(rest[0], 600 - 4)) >= 2
            assert head[0].text.endswith(" ") or rest[0].text.startswith(" ") or head[0].text[-1:] == " "


def test_what_keeps_to_a_table_and_a_last_paragraph_never_go_on_alone():
    """A block kept with what comes before (an analogy, the take-aways' reference) takes the table's last row
    with it rather than open a "(cont.)" slide alone; a quiz's last option never goes on alone either."""
    from generator.render.slides.flow import Area, Flow, TableBlock, TextBlock
    from generator.render.slides.text import Para, Span, Typefaces

    flow = Flow(Typefaces("DejaVu Sans", "Noto Sans CJK SC"))
    header = ((Para((Span("Flag"),), 15),), (Para((Span("Use"),), 15),))
    table = TableBlock(header, tuple(((Para((Span(f"flag_{i}"),), 15),), (Para((Span(_long(6)),), 15),))
                                     for i in range(8)))
    kept = TextBlock((Para((Span("The reference: docs.pytorch.org › torch.backends"),), 18),), keep_with_previous=True)
    options = TextBlock(tuple(Para((Span(f"{chr(65 + i)}.  " + _long(5)),), 22, before=10) for i in range(4)))
    alone = 0
    for height in range(120, 420, 3):
        body = Area(0, 0, 600, height)
        pages = flow.paginate([table, kept], body)
        assert all(len(page) > 1 or page[0].block is not kept for page in pages), height
        rows = [len(p.block.rows) for page in pages for p in page if isinstance(p.block, TableBlock)]
        assert sum(rows) == 8
        pages = flow.paginate([options], body)
        for before, page in zip(pages, pages[1:]):  # the last option alone, where the one before could go too
            last_alone = page[0].block.paras == options.paras[-1:]
            alone += last_alone and len(before[0].block.paras) >= 2
    assert alone == 0


def test_a_long_code_line_loses_its_comments_alignment_before_it_wraps_and_never_wraps_one_word_alone():
    """A listing too wide at the least code size: a line whose comment fits two spaces after the code keeps it
    there on one line (``pass  # generic TF32 for this block only``, not ``↪ only``); a line that must wrap
    carries two words or more onto its ``↪`` line."""
    from generator.render.slides.flow import CONTINUED_CODE, CodeBlock
    from generator.render.slides.text import Span

    flow = _flow()
    aligned = "    pass" + " " * 60 + "# generic TF32 for this block only"
    code = "torch.backends.cuda.matmul.fp32_precision = 'tf32'" + " " * 17 + "# ... except CUDA matmuls"
    closer = 0
    for width in range(420, 900, 20):
        lines = tuple((Span(text, mono=True),) for text in (code, aligned))
        listing = flow.code_text(CodeBlock(lines, 20.0), width)
        texts = [p.text for p in listing.paras]
        assert max(flow.widest_line(p) + p.margin for p in listing.paras) <= width, width
        assert "".join(texts).split() == (code + aligned).split(), width  # nothing lost but alignment
        closer += "    pass  # generic TF32 for this block only" in texts
        for para in listing.paras:
            if para.bullet == CONTINUED_CODE:
                assert len(para.text.split()) >= 2, (width, texts)
    assert closer >= 3
