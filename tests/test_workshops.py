"""Workshops: the shipped selections, their one timetable, their decks as LibreOffice draws them,
their handouts and scripts.

Each shipped workshop is built once per session in both languages (``built``); only the decks
and handouts a test reads as PDF are converted (``drawn``).
"""
from __future__ import annotations

import ast
import dataclasses
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pptx import Presentation
from pypdf import PdfReader

from generator.diagrams import diagram_png
from generator.render import handout, slides
from generator.render.base import RenderJob
from generator.wording import WORDS
from generator.workshops import BREAK_FROM, REVIEW_AFTER, course_for, schedule, total_minutes
from helpers import (
    CONTENT,
    A,
    as_seen,
    convert_to_pdf,
    letters_and_digits,
    pdf_word_boxes,
    shape_boxes,
    slide_kind,
    slide_name,
    torchdeck,
    word_inside,
)

SHIPPED = ("intro", "gpu-tuning", "cpu-performance", "tour")


# ------------------------------------------------------------------ content and listing
def test_the_four_shipped_workshops_fit_their_slots(course):
    minutes = {w.id: total_minutes(w, course) for w in course.workshops}
    assert set(SHIPPED) <= set(minutes)
    assert minutes["intro"] <= 60
    assert 75 <= minutes["gpu-tuning"] <= 120 and 75 <= minutes["cpu-performance"] <= 120
    assert minutes["tour"] >= 150
    modules = {w.id: {lesson.split("-")[0] for lesson in w.lesson_ids} for w in course.workshops}
    assert {"cudnn", "cuda"} <= modules["gpu-tuning"]
    assert {"mkldnn", "mkl", "openmp"} <= modules["cpu-performance"]


def test_workshops_lists_id_titles_minutes_and_lessons(course):
    result = torchdeck("workshops", "--json")
    assert result.exit_code == 0, result.output
    listed = {item["id"]: item for item in json.loads(result.output)}
    for workshop in course.workshops:
        item = listed[workshop.id]
        assert item["title"] == {"en": workshop.title.en, "zh": workshop.title.zh}
        assert item["minutes"] == total_minutes(workshop, course)
        assert item["lessons"] == workshop.lesson_ids
    plain = torchdeck("workshops")
    assert plain.exit_code == 0 and all(w in plain.output for w in SHIPPED)


def test_the_timetable_is_the_sum_of_its_parts(course):
    for workshop in course.workshops:
        segments = schedule(workshop, course)
        assert all(a.end == b.start for a, b in zip(segments, segments[1:]))
        lessons = {lesson.id: lesson for lesson in course.lessons}
        assert [s.ref for s in segments if s.kind == "lesson"] == workshop.lesson_ids
        assert all(s.minutes == lessons[s.ref].minutes for s in segments if s.kind == "lesson")
        taught = 0
        for segment in segments:  # a review at least every REVIEW_AFTER teaching minutes
            if segment.kind in ("review", "break"):
                taught = 0
            elif segment.kind in ("section", "lesson", "question"):
                taught += segment.minutes
                assert taught <= REVIEW_AFTER, (workshop.id, segment)
        recapped = [lesson for s in segments if s.kind == "review" for lesson in s.lessons]
        assert recapped == workshop.lesson_ids  # every lesson reviewed once, in order
        has_break = any(s.kind == "break" for s in segments)
        assert has_break == (segments[-1].end >= BREAK_FROM)


def _content_copy(tmp_path, edit):
    folder = tmp_path / "content"
    shutil.copytree(CONTENT, folder, ignore=shutil.ignore_patterns("ledger"))
    path = folder / "workshops.yaml"
    path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
    return folder


def test_an_unknown_lesson_or_question_is_a_file_line_error_and_exit_2(tmp_path):
    folder = _content_copy(tmp_path, lambda text: text.replace("lesson: cudnn-tf32\n", "lesson: cudnn-tf23\n", 1)
                           .replace("[cuda-q-sdpa-priority]", "[cuda-q-sdpa-priorty]", 1))
    lines = (folder / "workshops.yaml").read_text().splitlines()
    lesson_line = next(n for n, line in enumerate(lines, 1) if "cudnn-tf23" in line)
    question_line = next(n for n, line in enumerate(lines, 1) if "cuda-q-sdpa-priorty" in line)
    out = tmp_path / "build"
    for args in (("workshops",), ("slides", "--workshop", "gpu-tuning", "--out", out),
                 ("handout", "--workshop", "gpu-tuning", "--out", out)):
        result = torchdeck(*args, "--content", folder)
        assert result.exit_code == 2, result.output
        assert f"workshops.yaml:{lesson_line}:" in result.output and "no lesson has the id 'cudnn-tf23'" in result.output
        assert f"workshops.yaml:{question_line}:" in result.output and "cuda-q-sdpa-priorty" in result.output
    assert not out.exists()


def test_a_long_workshop_without_a_break_is_refused(tmp_path):
    folder = _content_copy(tmp_path, lambda text: text.replace("      - break: 15\n", ""))
    result = torchdeck("workshops", "--content", folder)
    assert result.exit_code == 2
    assert "workshops.yaml:" in result.output and "needs a 'break: MINUTES' step" in result.output


def test_an_unknown_workshop_or_clock_is_a_usage_error(tmp_path):
    result = torchdeck("slides", "--workshop", "nope", "--out", tmp_path / "b")
    assert result.exit_code == 2 and "no workshop named 'nope'" in result.output and "intro" in result.output
    result = torchdeck("slides", "--workshop", "intro", "--start", "25:00", "--out", tmp_path / "b")
    assert result.exit_code == 2 and "HH:MM" in result.output
    assert not (tmp_path / "b").exists()


# ------------------------------------------------------------------ the decks
START = 9 * 60
CLOCK = re.compile(r"(\d\d):(\d\d) · (\d+)")
RANGE = re.compile(r"(\d\d):(\d\d)–(\d\d):(\d\d) · (\d+)")


@pytest.fixture(scope="session")
def built(course, verification, tmp_path_factory):
    """Every shipped workshop's deck in both languages: {(id, lang): (job, Presentation, path)}."""
    out = tmp_path_factory.mktemp("workshops")
    decks = {}
    for workshop in course.workshops:
        for lang in ("en", "zh"):
            job = RenderJob(course, verification, lang, out)
            path, = slides.render(job, slides.SlidesOptions(workshop=workshop, start=START))
            decks[(workshop.id, lang)] = (job, Presentation(str(path)), path)
    return decks


@pytest.fixture(scope="session")
def drawn(built, drawn_workshop_decks, tmp_path_factory):
    """The decks as LibreOffice draws them: {(id, lang): pdf path}. Those of DRAWN_WORKSHOPS as ``slides --pdf``
    drew them once this run (``drawn_workshop_decks``: the same bytes as ``built``'s), the others here, in one
    LibreOffice run per language."""
    for key, (deck, _) in drawn_workshop_decks.items():
        assert deck.read_bytes() == built[key][2].read_bytes(), f"{key}: not the deck drawn for this run"
    rest = {key: path for key, (_, _, path) in built.items() if key not in drawn_workshop_decks}
    out = tmp_path_factory.mktemp("workshops-drawn")
    convert_to_pdf([sorted(path for (_, lang), path in rest.items() if lang == code) for code in ("en", "zh")],
                   out / "pdf", out)
    return {**{key: out / "pdf" / (path.stem + ".pdf") for key, path in rest.items()},
            **{key: pdf for key, (_, pdf) in drawn_workshop_decks.items()}}


def _notes(slide) -> list[str]:
    return slide.notes_slide.notes_text_frame.text.split("\n") if slide.has_notes_slide else []


def _clock(slide) -> tuple[int, int]:
    """(minutes after midnight, minutes of its part) from the slide's notes."""
    found = CLOCK.search(_notes(slide)[2])
    return int(found[1]) * 60 + int(found[2]), int(found[3])


def _parts(prs) -> list[tuple[int, int, list]]:
    """The deck's timed parts in order: (clock, minutes, slides), from the notes alone."""
    parts: list[tuple[int, int, list]] = []
    for slide in prs.slides:
        when, minutes = _clock(slide)
        if parts and parts[-1][0] == when:
            assert parts[-1][1] == minutes, slide_name(slide)
            parts[-1][2].append(slide)
        else:
            parts.append((when, minutes, [slide]))
    return parts


def _body_text(slide, skip=("Title", "Footer", "Slide Number")) -> str:
    return as_seen("\n".join(shape.text_frame.text for shape in slide.shapes
                              if shape.has_text_frame and not shape.name.startswith(skip)))


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("workshop_id", SHIPPED)
def test_title_agenda_and_every_slides_notes_agree_on_the_clock(built, course, workshop_id, lang):
    job, prs, path = built[(workshop_id, lang)]
    assert path.name == f"workshop-{workshop_id}.{lang}.pptx"
    workshop = course.workshop(workshop_id)
    total = total_minutes(workshop, course)
    title = RANGE.search(_body_text(prs.slides[0]))
    start, end = int(title[1]) * 60 + int(title[2]), int(title[3]) * 60 + int(title[4])
    assert (start, end - start, int(title[5])) == (START, total, total)
    parts = _parts(prs)
    assert parts[0][0] == START
    assert all(a[0] + a[1] == b[0] for a, b in zip(parts, parts[1:]))  # each part starts where the last ended
    assert parts[-1][0] + parts[-1][1] == end
    assert sum(minutes for _, minutes, _ in parts) == total
    assert len(parts) == len(schedule(workshop, course))
    agenda = [s for s in prs.slides if slide_name(s).startswith("agenda")]
    rows = [line for slide in agenda for line in _body_text(slide).split("\n") if re.match(r"\d\d:\d\d", line)]
    times = [int(r[:2]) * 60 + int(r[3:5]) for r in rows]
    assert times == sorted(times) and times[-1] == end
    starts = {when: slides_ for when, _, slides_ in parts}
    for when in times[:-1]:  # each row is the clock of the section, break or close it names
        assert slide_kind(starts[when][0]) in ("section", "break", "closing"), (rows, when)
    named = [when for when, _, slides_ in parts if slide_kind(slides_[0]) in ("section", "break", "closing")]
    assert named == times[:-1]


def _recap(takeaway: str) -> str:
    fact = takeaway.split("ℹ")[0].strip()
    return fact or takeaway


@pytest.mark.parametrize("workshop_id", SHIPPED)
def test_reviews_every_half_hour_from_the_takeaways_just_taught_and_breaks_in_long_ones(built, course, workshop_id):
    job, prs, _ = built[(workshop_id, "en")]
    lessons = {lesson.id: lesson for lesson in course.lessons}
    taught, since = [], 0
    for when, minutes, part in _parts(prs):
        kind = slide_kind(part[0])
        if kind == "review":
            lines = _body_text(part[0]).split("\n")
            expected = [f"{job.t(lessons[i].title)}: {_recap(job.t(lessons[i].takeaway))}".replace("`", "")
                        for i in taught]
            expected = [re.sub("[\U0001F000-\U0001FAFF\uFE0F] ?", "", line) for line in expected]  # drawn blank
            assert [line.split("  ")[0] for line in lines] == expected
            taught, since = [], 0
        elif kind == "break":
            assert not taught, "a break comes after a review"
            back = re.search(r"\d\d:\d\d", _body_text(part[0]))[0]
            assert int(back[:2]) * 60 + int(back[3:]) == when + minutes
            since = 0
        elif kind in ("section", "lesson", "table", "code", "diagram", "quiz"):
            since += minutes
            assert since <= REVIEW_AFTER, (workshop_id, slide_name(part[0]))
            if kind != "section" and slide_name(part[0]).startswith("lesson:") or kind == "table":
                lesson_id = slide_name(part[0]).split(":")[1]
                if lesson_id not in taught:
                    taught.append(lesson_id)
    assert not taught
    breaks = sum(slide_kind(s) == "break" for s in prs.slides)
    assert (breaks > 0) == (total_minutes(course.workshop(workshop_id), course) >= BREAK_FROM)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("workshop_id", SHIPPED)
def test_at_most_1_3_slides_a_minute_and_real_notes_on_every_slide(built, course, workshop_id, lang):
    job, prs, _ = built[(workshop_id, lang)]
    assert len(prs.slides) <= 1.3 * total_minutes(course.workshop(workshop_id), course)
    words = WORDS[lang]["slides"]
    for slide in prs.slides:
        lines = _notes(slide)
        assert [line[:len(p)] for line, p in zip(lines, (words["say"], words["ask"], words["time"]))] == \
            [words["say"], words["ask"], words["time"]], slide_name(slide)
        assert all(len(line) > len(p) + 5 for line, p in zip(lines, (words["say"], words["ask"])))
        assert not re.search(r"\{\w+\}", "\n".join(lines)), slide_name(slide)


FIXED_PRINT = re.compile(r"""print\((?:"[^"]*"|'[^']*')\)""")  # a print of a fixed text: nothing to predict


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("workshop_id", SHIPPED)
def test_a_code_slide_asks_the_room_about_its_own_print(built, course, workshop_id, lang):
    """A code slide's notes ask the room to predict one of the sample's printed lines by name, not a stock
    'what will it print?' repeated on every code slide."""
    _, prs, _ = built[(workshop_id, lang)]
    lessons = {lesson.id: lesson for lesson in course.lessons}
    asked = 0
    for slide in prs.slides:
        name = slide_name(slide)
        if not name.startswith("code:") or ":cont" in name:
            continue
        _, lesson_id, number = name.split(":")
        example = lessons[lesson_id].code[int(number) - 1]
        prints = [line.split("  #")[0].strip() for line in example.code_in(lang).splitlines()
                  if line.strip().startswith("print(") and not FIXED_PRINT.fullmatch(line.split("  #")[0].strip())]
        lines = [line.split("  #")[0].strip() for line in example.code_in(lang).splitlines()]
        if example.runs != "raises" and prints:  # a print asked before: another line of the sample
            assert any(f"“{line}”" in _ask(slide) for line in prints) or \
                any(f"“{line}”" in _ask(slide) for line in lines if line), name
            asked += 1
    assert asked > 0


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("workshop_id", SHIPPED)
def test_an_answer_slide_asks_about_its_own_wrong_option(built, workshop_id, lang):
    """An answer slide's notes name the question's first wrong option as shown, not a stock 'who picked a
    wrong option?' on every answer slide."""
    _, prs, _ = built[(workshop_id, lang)]
    asked = 0
    for slide in prs.slides:
        name = slide_name(slide)
        if not name.startswith("answer:") or ":cont" in name:
            continue
        # the first option the slide marks wrong, as drawn: "✘ B.  <option>"
        drawn = [as_seen(p.text) for shape in slide.shapes if shape.has_text_frame
                 and not shape.name.startswith(("Title", "Footer", "Slide Number")) for p in shape.text_frame.paragraphs]
        wrong = [m.group(1).strip() for p in drawn if (m := re.match(r"✘ [A-Z]\.\s+(.*)", p))]
        if wrong:
            assert f"“{wrong[0]}”" in "\n".join(_notes(slide)), (name, wrong[0])
            asked += 1
    assert asked > 0


AUTHOR_ONLY = re.compile(r"\d+ pass|\d+ skip|`|seed chat|source note|Checked with", re.I)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("workshop_id", SHIPPED)
def test_slides_are_made_to_be_presented(built, workshop_id, lang):
    """20 pt text and 16 pt code in the file; code, a quiz or a table never split; a caption on its code's slide;
    no continuation slide holding only a box; each diagram once; nothing an author alone should see."""
    job, prs, _ = built[(workshop_id, lang)]
    pictures = []
    for slide in prs.slides:
        name = slide_name(slide)
        # an answer's options alone may go on to a second slide, each with its whole reason (the answer tests)
        assert not name.startswith(("code:", "quiz:", "table:")) or ":cont" not in name, name
        shapes = [s for s in slide.shapes if not s.name.startswith(("Title", "Footer", "Slide Number"))]
        for shape in shapes:
            floor = 16 if shape.name.startswith("Code") else 20
            sizes = [int(r.get("sz")) for r in shape._element.iter(f"{A}rPr") if r.get("sz")]
            assert min(sizes, default=floor * 100) >= floor * 100, (name, shape.name, min(sizes))
        kinds = [s.name.split()[0] for s in shapes]
        if "Caption" in kinds:
            assert kinds[kinds.index("Caption") + 1] == "Code", name
        if ":cont" in name:
            assert "Body" in kinds, f"{name} continues with only {kinds}"
        pictures += [s.image.blob for s in shapes if s.shape_type == 13]
        shown_text = _body_text(slide, ("Title", "Footer", "Slide Number", "Code")) + slide.shapes.title.text_frame.text
        assert not AUTHOR_ONLY.search(shown_text), name
        footer = [as_seen(s.text_frame.text) for s in slide.placeholders if s.placeholder_format.idx == 11]
        assert footer == [job.t(job.course.workshop(workshop_id).title)]
    assert len(pictures) == len(set(pictures)) > 0


def test_the_map_is_drawn_with_the_workshops_own_modules_highlighted(built, course):
    """The whole course's map with the workshop's modules filled in, not the map of the whole course alone."""
    job, prs, _ = built[("cpu-performance", "en")]
    own = course_for(course.workshop("cpu-performance"), course)
    blobs = {s.image.blob for slide in prs.slides for s in slide.shapes if s.shape_type == 13}
    assert diagram_png("backends-map", own) in blobs
    assert diagram_png("backends-map", course) not in blobs


@pytest.mark.parametrize("workshop_id", SHIPPED)
def test_questions_show_shuffled_options_and_answer_on_the_next_slide(built, course, workshop_id):
    job, prs, _ = built[(workshop_id, "en")]
    slides_ = list(prs.slides)
    questions = {q.id: q for q in course.questions}
    for index, slide in enumerate(slides_):
        if slide_kind(slide) != "quiz":
            continue
        question = questions[slide_name(slide).split(":")[1]]
        lines = _body_text(slide).split("\n")[-len(question.options):]  # "A.  text", as the room reads them
        assert [line[:4] for line in lines] == [f"{chr(65 + i)}.  " for i in range(len(lines))]
        by_text = {job.t(o.text).replace("`", ""): o for o in question.options}
        assert sorted(line[4:] for line in lines) == sorted(by_text), question.id  # each option once
        options = [by_text[line[4:]] for line in lines]  # in the order the slide shows them
        letters = ", ".join(chr(65 + i) for i, o in enumerate(options) if o.correct)
        answer = slides_[index + 1]
        assert slide_name(answer) == f"answer:{question.id}" and letters in answer.shapes.title.text_frame.text
        notes = "\n".join(_notes(answer))
        assert all(job.t(o.why).replace("`", "") in notes for o in options)  # the whys are for the speaker
        assert f"The answer: {letters}." in "\n".join(_notes(slide))


def test_answers_are_spread_over_the_letters(built):
    firsts = []
    for (_, lang), (_, prs, _) in built.items():
        if lang == "en":
            firsts += [slide_name(s) and s.shapes.title.text_frame.text.split(": ")[1] for s in prs.slides
                       if slide_kind(s) == "answer"]
    assert len(set(firsts)) >= 3 and max(firsts.count(x) for x in set(firsts)) < 0.5 * len(firsts)


def test_the_scenario_game_hides_its_answers_until_the_next_slide(built):
    _, prs, _ = built[("gpu-tuning", "en")]
    names = [slide_name(s) for s in prs.slides]
    game = names.index("table:cudnn-tuning-master:game")
    assert names[game + 1] == "table:cudnn-tuning-master" and names[game + 2] == "lesson:cudnn-tuning-master"
    hidden, shown_ = (next(s for s in prs.slides[i].shapes if s.has_table) for i in (game, game + 1))
    rows = [[c.text for c in r.cells] for r in hidden.table.rows][1:]
    assert rows and all(cell == "?" for row in rows for cell in row[1:])
    revealed = [[c.text for c in r.cells] for r in shown_.table.rows][1:]
    assert [r[0] for r in revealed] == [r[0] for r in rows] and "True" in {c for r in revealed for c in r[1:]}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_docs_are_quoted_as_quotes_on_a_slide_of_their_own(built, course, lang):
    job, prs, _ = built[("gpu-tuning", lang)]
    names = [slide_name(s) for s in prs.slides]
    quoted = [lesson for lesson in course.lessons if lesson.quote and lesson.id in
              course.workshop("gpu-tuning").lesson_ids]
    asks = []
    for lesson in quoted:
        at = names.index(f"quote:{lesson.id}")
        assert names[at - 1] == f"lesson:{lesson.id}"  # right after the lesson's points
        slide = prs.slides[at]
        assert slide.shapes.title.text == {"en": "In the documentation's words", "zh": "文档怎么说"}[lang]
        body = _body_text(slide)
        quote = job.t(lesson.quote.text).replace("`", "")
        assert f"“{quote}”" in body.replace("\n", " "), (lesson.id, body)
        assert lesson.quote.source not in body  # a short link, the address only as its target
        points = prs.slides[at - 1]
        assert lesson.quote.source not in points.notes_slide.notes_text_frame.text  # said once, on its slide
        # the notes ask about this quote, by its first words, and say what the lesson checked
        notes = slide.notes_slide.notes_text_frame.text
        first_words = quote[:12] if lang == "zh" else " ".join(quote.split()[:3])
        assert f"“{first_words}" in notes and job.t(lesson.takeaway).replace("`", "") in notes, (lesson.id, notes)
        asks.append(notes)
    assert len(set(asks)) == len(quoted) > 1  # no stock prompt shared by every quote


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("workshop_id", SHIPPED)
def test_table_and_code_slides_say_their_own_headline(built, course, workshop_id, lang):
    job, prs, _ = built[(workshop_id, lang)]
    lessons = {lesson.id: lesson for lesson in course.lessons}
    for slide in prs.slides:
        name = slide_name(slide)
        kind, _, rest = name.partition(":")
        if kind not in ("table", "code") or rest.endswith(":game"):
            continue
        lesson = lessons[rest.split(":")[0]]
        title = as_seen(slide.shapes.title.text)
        if kind == "code":
            caption = lesson.code[int(rest.split(":")[1]) - 1].caption
            expected = job.t(caption) if caption else \
                {"en": "{}: in code", "zh": "{}：看代码"}[lang].format(job.t(lesson.title))
            assert title == expected.replace("`", ""), (name, title)
        elif lesson.game:
            assert title == {"en": "{}: the answers", "zh": "{}：答案揭晓"}[lang].format(
                job.t(lesson.title).replace("🎮", "").strip()), (name, title)
        assert title != as_seen(job.t(lesson.title)), (name, title)  # its own headline, never the lesson's title


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("workshop_id", SHIPPED)
def test_every_slide_says_its_own_headline(built, course, workshop_id, lang):
    """No two slides in a row share a headline (a table after its lesson, the take-aways' three "(cont.)"
    slides), and a lesson's title heads only its points slide (its slides over two say which part they are)."""
    job, prs, _ = built[(workshop_id, lang)]
    titles = {as_seen(job.t(lesson.title)): lesson.id for lesson in course.lessons}
    slides_ = list(prs.slides)
    headlines = [as_seen(slide.shapes.title.text) for slide in slides_]
    for number, (before, after) in enumerate(zip(headlines, headlines[1:]), 2):
        assert before != after, (workshop_id, number, after)
    for slide, headline in zip(slides_, headlines):
        if headline in titles:
            assert slide_name(slide) == f"lesson:{titles[headline]}", (slide_name(slide), headline)
    parted = [h for s, h in zip(slides_, headlines) if ":cont" in slide_name(s)]
    assert len(set(parted)) == len(parted), parted


def test_source_links_are_clickable(built, course):
    _, prs, path = built[("gpu-tuning", "en")]
    quoted = [lesson for lesson in course.lessons if lesson.quote and lesson.id in
              course.workshop("gpu-tuning").lesson_ids]
    assert quoted
    for lesson in quoted:
        slide = next(s for s in prs.slides if slide_name(s) == f"quote:{lesson.id}")
        targets = {r.target_ref for r in slide.part.rels.values() if r.is_external}
        assert lesson.quote.source in targets
    closing = [s for s in prs.slides if slide_kind(s) == "closing"]  # the take-aways may go on for a slide or two
    assert any(r.is_external and "docs.pytorch.org" in r.target_ref for s in closing for r in s.part.rels.values())


def test_the_start_sets_the_clock_and_the_bytes_repeat(built, course, verification, tmp_path):
    job, _, path = built[("intro", "en")]
    again, = slides.render(dataclasses.replace(job, out_dir=tmp_path),
                           slides.SlidesOptions(workshop=course.workshop("intro"), start=START))
    assert again.read_bytes() == path.read_bytes()
    later, = slides.render(dataclasses.replace(job, out_dir=tmp_path / "later"),
                           slides.SlidesOptions(workshop=course.workshop("intro"), start=13 * 60 + 30))
    prs = Presentation(str(later))
    total = total_minutes(course.workshop("intro"), course)
    end = 13 * 60 + 30 + total
    assert f"13:30–{end // 60:02d}:{end % 60:02d}" in _body_text(prs.slides[0])
    assert _parts(prs)[0][0] == 13 * 60 + 30


# ------------------------------------------------------------------ as LibreOffice draws them
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("workshop_id", SHIPPED)
def test_no_word_off_a_slide_and_sizes_as_rendered(built, drawn, workshop_id, lang):
    _, prs, _ = built[(workshop_id, lang)]
    pages = pdf_word_boxes(drawn[(workshop_id, lang)])
    assert len(pages) == len(prs.slides)
    checked = 0
    for number, ((width, height, words), slide) in enumerate(zip(pages, prs.slides), 1):
        boxes = shape_boxes(slide)
        for word in words:
            assert word_inside(word, (0, 0, width, height)), (number, word)
            key = letters_and_digits(word[4])
            own = [b for b in boxes if key in b[1]] if key else boxes
            assert any(word_inside(word, box) for box, _, _ in own), f"slide {number} ({slide_name(slide)}): {word}"
            names = [n for box, _, n in own if word_inside(word, box)]
            if key and not any(n.startswith(("Title", "Footer", "Slide Number")) for n in names):
                size = (word[3] - word[1]) / 1.3  # poppler boxes a word 1.3 em tall
                floor = 16 if any(n.startswith("Code") for n in names) else 20
                assert size >= floor * 0.97, (number, slide_name(slide), word, names)
            checked += 1
    assert checked > 200


# ------------------------------------------------------------------ take-aways
@pytest.fixture(scope="session")
def handouts(course, verification, tmp_path_factory):
    """Every shipped workshop's handout in both languages and its script: {(id, lang): pdf}, {id: script}."""
    out = tmp_path_factory.mktemp("handouts")
    pdfs, scripts = {}, {}
    for workshop in course.workshops:
        for lang in ("en", "zh"):
            job = RenderJob(course, verification, lang, out)
            pdfs[(workshop.id, lang)], scripts[workshop.id] = handout.render(job, handout.HandoutOptions(workshop, START))
    return pdfs, scripts


def _squeeze(text: str) -> str:
    """Text without whitespace (zero-width spaces too), backticks and emoji (pdftotext places an emoji glyph
    apart from its line)."""
    return re.sub(r"[\s\u200b`\U0001F000-\U0001FFFF\u2600-\u27BF\uFE0F]+", "", text)


def _pdf_text(pdf: Path) -> list[str]:
    """The text of each page."""
    out = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    return out.split("\f")


def _without_footer(page: str, verified: str) -> str:
    """A page's text without its footer (the verification line and the page number) at its end."""
    lines = page.rstrip().splitlines()
    while lines and (not lines[-1].strip() or re.search(r"\d+ / \d+$", lines[-1].strip())
                     or verified in lines[-1]):
        lines.pop()
    return "\n".join(lines)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("workshop_id", SHIPPED)
def test_the_handout_holds_agenda_key_points_takeaways_a_one_page_cheat_table_and_links(built, handouts, course, workshop_id,
                                                                              lang):
    pdfs, _ = handouts
    pdf = pdfs[(workshop_id, lang)]
    assert pdf.name == f"workshop-{workshop_id}.{lang}.handout.pdf"
    job, prs, _ = built[(workshop_id, lang)]
    pages = [_squeeze(_without_footer(page, job.verified_as_of_edition())) for page in _pdf_text(pdf)]
    text = "".join(pages)  # a point cut by a page break reads on across it
    workshop = course.workshop(workshop_id)
    assert _squeeze(job.t(workshop.title)) in text
    agenda = [line for slide in prs.slides if slide_name(slide).startswith("agenda")
              for line in _body_text(slide).split("\n")]
    assert all(_squeeze(line) in text for line in agenda)  # as on the slides
    lessons = [lesson for lesson in course.lessons if lesson.id in workshop.lesson_ids]
    for lesson in lessons:
        assert _squeeze(job.t(lesson.title)) in text
        assert all(_squeeze(job.t(point)) in text for point in lesson.points), lesson.id
    assert all(_squeeze(job.t(lesson.takeaway)) in text for lesson in lessons if lesson.takeaway)
    cheat = [page for page in pages if _squeeze(WORDS[lang]["workshop"]["handout"]["cheat"]) in page]
    assert len(cheat) == (1 if any(lesson.flags for lesson in lessons) else 0)  # on one page (its rows: test_handout)
    uris = {annot.get_object()["/A"]["/URI"] for page in PdfReader(pdf).pages
            for annot in page.get("/Annots", []) if "/A" in annot.get_object()}
    quoted = {lesson.quote.source for lesson in lessons if lesson.quote}
    assert quoted <= uris and any("docs.pytorch.org" in uri for uri in uris)


def _legend_first(text: str, legend: str) -> bool:
    """Whether ``text`` (squeezed) says what ℹ means before its first other ℹ, and only once; a text without ℹ
    needs no legend and has none."""
    legend = _squeeze(legend)
    shows = "ℹ" in text.replace(legend, "")
    return text.count(legend) == 1 and text.index(legend) <= text.index("ℹ") if shows else legend not in text


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("workshop_id", SHIPPED)
def test_the_deck_and_the_handout_say_what_the_explanation_mark_means_where_it_first_shows(built, drawn, handouts,
                                                                                          workshop_id, lang):
    """As LibreOffice draws the deck and pdftotext reads the handout: what ℹ means is said once, in the deck's
    language, on the title slide of a deck that shows ℹ (its tables' advice, a review's game, the whys in the
    notes), and under the handout's title, before any ℹ."""
    legend = WORDS[lang]["explained"]
    deck = "".join(_squeeze(page) for page in _pdf_text(drawn[(workshop_id, lang)]))
    assert "ℹ" in deck.replace(_squeeze(legend), "")  # every shipped workshop shows some advice
    assert _legend_first(deck, legend)
    assert _squeeze(legend) in _squeeze(_pdf_text(drawn[(workshop_id, lang)])[0])  # on the title slide
    pdfs, _ = handouts
    handout_text = "".join(_squeeze(page) for page in _pdf_text(pdfs[(workshop_id, lang)]))
    assert "ℹ" in handout_text.replace(_squeeze(legend), "")  # its points' and cheat table's advice
    assert _legend_first(handout_text, legend)


def test_the_script_holds_the_workshops_code_in_order_and_runs(handouts, course):
    _, scripts = handouts
    for workshop in course.workshops:
        source = scripts[workshop.id].read_text(encoding="utf-8")
        ast.parse(source)
        cells = source.split("\n# %%")[1:]
        samples = [example for lesson_id in workshop.lesson_ids for lesson in course.lessons
                   if lesson.id == lesson_id for example in lesson.code]
        assert len(cells) == len(samples)
        for cell, example in zip(cells, samples):
            lines = [line for line in example.code_in("en").strip().split("\n") if line.strip()]
            assert all(line.strip() in cell for line in lines)
    done = subprocess.run([sys.executable, scripts["intro"].name], cwd=scripts["intro"].parent, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("# %%") == len(cells_of(scripts["intro"]))


def cells_of(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n# %%")[1:]


def test_the_handout_is_the_same_whatever_day_its_checks_ran(course, verification, tmp_path):
    """Its date is the ledger's newest run (as a quiz's), never the day of the verification."""
    from generator import ledger

    recorded = dataclasses.replace(verification, elsewhere=ledger.load(CONTENT, course))
    intro = next(w for w in course.workshops if w.id == "intro")
    built = []
    for day in ("2026-01-02", "2031-12-30"):
        job = RenderJob(course, dataclasses.replace(recorded, date=day), "en", tmp_path / day)
        pdf, _script = handout.render(job, handout.HandoutOptions(intro, START))
        built.append(pdf.read_bytes())
        assert day not in _squeeze(subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True,
                                                   text=True, check=True).stdout)
    assert built[0] == built[1]
    newest = max(run.date for run in recorded.elsewhere)
    assert PdfReader(pdf).metadata.creation_date.date().isoformat() == newest


def test_handout_needs_a_workshop(tmp_path):
    result = torchdeck("handout", "--out", tmp_path / "b")
    assert result.exit_code == 2 and "--workshop" in result.output


def test_each_code_slide_names_its_cell_of_the_script(built, handouts, course):
    _, scripts = handouts
    _, prs, _ = built[("gpu-tuning", "en")]
    cells = cells_of(scripts["gpu-tuning"])
    lessons = {lesson.id: lesson for lesson in course.lessons}
    named = 0
    for slide in prs.slides:
        if slide_kind(slide) == "code":
            _, lesson_id, number = slide_name(slide).split(":")[:3]
            cell = int(re.search(r"cell (\d+)", _notes(slide)[0])[1])
            first = lessons[lesson_id].code[int(number) - 1].code_in("en").strip().split("\n")[0]
            assert cells[cell - 1].startswith(f" [{cell}]") and first in cells[cell - 1]
            named += 1
    assert named == len(cells)


def test_the_commands_write_the_deck_handout_and_script_on_the_clock_asked_for(tmp_path, with_shipped_cache):
    """The CLI end to end, the checks' results read from the build's cache (this run's, ``shipped_verify_cache``)."""
    out = with_shipped_cache(tmp_path / "build")
    result = torchdeck("slides", "--workshop", "intro", "--start", "13:30", "--lang", "en", "--out", out, "--quiet")
    assert result.exit_code == 0, result.output
    title = _body_text(Presentation(str(out / "workshop-intro.en.pptx")).slides[0])
    assert re.search(r"13:30–14:\d\d", title)
    result = torchdeck("handout", "--workshop", "intro", "--start", "13:30", "--lang", "zh", "--out", out)
    assert result.exit_code == 0, result.output
    assert (out / "workshop-intro.py").is_file() and "13:30" in "".join(_pdf_text(out / "workshop-intro.zh.handout.pdf"))


# ------------------------------------------------------------------ what the room sees
UNVERIFIED = {lang: WORDS[lang]["needs"][0].split("{")[0] for lang in ("en", "zh")}  # 'not verified here ('


def _facts_of(course, name: str) -> tuple[str, ...]:
    """The facts behind a slide, from its name (``lesson:ID``, ``answer:QID``, ``code:ID:1`` …)."""
    kind, _, rest = name.partition(":")
    key = rest.split(":")[0]
    if kind in ("quiz", "answer"):
        return tuple(next(q for q in course.questions if q.id == key).facts)
    if kind in ("lesson", "code", "table"):
        return tuple(next(lesson for lesson in course.lessons if lesson.id == key).facts)
    return ()


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("workshop_id", SHIPPED)
def test_verification_status_is_for_the_speaker_not_a_banner_on_the_slide(built, course, workshop_id, lang):
    """No slide body says "not verified here" (nor shows a ⚠ box); the notes of every slide whose facts were
    not verified here say so, with what they need."""
    job, prs, _ = built[(workshop_id, lang)]
    told = 0
    for slide in prs.slides:
        name = slide_name(slide)
        shapes = [s for s in slide.shapes if not s.name.startswith(("Footer", "Slide Number"))]
        assert not any(s.name.startswith("Warn") for s in shapes), name
        shown_text = "\n".join(s.text_frame.text for s in shapes if s.has_text_frame)
        shown_text += "".join(c.text for s in shapes if s.has_table for r in s.table.rows for c in r.cells)
        assert UNVERIFIED[lang] not in shown_text and "⚠" not in shown_text, name
        note = job.unverified_note(_facts_of(course, name))
        if note:
            assert note in "\n".join(_notes(slide)), name
            told += 1
    if workshop_id in ("intro", "gpu-tuning"):  # cuDNN and TF32: facts no CPU machine can check
        assert told >= 10


def _is_emoji(char: str) -> bool:
    return ord(char) >= 0x1F000 or char in "\uFE0F\u200D" or 0x2600 <= ord(char) <= 0x27BF


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("workshop_id", SHIPPED)
def test_titles_and_text_hold_no_emoji(built, workshop_id, lang):
    _, prs, _ = built[(workshop_id, lang)]
    titles = [(slide_name(s), s.shapes.title.text_frame.text) for s in prs.slides]
    assert all(title and not any(_is_emoji(c) for c in title) for _, title in titles), \
        [t for t in titles if any(_is_emoji(c) for c in t[1])]
    for slide in prs.slides:  # nor does the text under them (the agenda's 📋, a content title's 🎮); ✔ ✘ are drawn
        shown_text = _body_text(slide, ("Title", "Code"))
        shown_text += "".join(c.text for s in slide.shapes if s.has_table for r in s.table.rows for c in r.cells)
        assert not re.search("[\U0001F000-\U0001FAFF\u2600-\u26FF\uFE0F]", shown_text), (slide_name(slide), shown_text)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_titles_start_at_their_boxs_left_edge_as_drawn(built, drawn, lang):
    """As LibreOffice draws the intro: every left-aligned title's first word starts at its box's inset, not
    after a blank where an emoji was."""
    _, prs, _ = built[("intro", lang)]
    pages = pdf_word_boxes(drawn[("intro", lang)])
    checked = 0
    for number, ((_, _, words), slide) in enumerate(zip(pages, prs.slides), 1):
        if slide.slide_layout.name == "Title":
            continue
        box, text, _ = next(b for b in shape_boxes(slide) if b[2].startswith("Title"))
        inside = sorted((w for w in words if word_inside(w, box) and letters_and_digits(w[4])), key=lambda w: (round(w[1]), w[0]))
        assert inside, (number, slide_name(slide))
        assert inside[0][0] - box[0] <= 7.2 + 3, (number, slide_name(slide), inside[0], box)  # the layouts' inset
        checked += 1
    assert checked > 20


def _reason_of(job, option) -> str:
    """The why an answer slide gives for an option: its checked part, else its explanation."""
    why = job.t(option.why).replace("`", "")
    fact, _, explanation = why.partition("ℹ")
    return fact.strip() or explanation.strip()


def _answer_lines(slide) -> list[str]:
    """The paragraphs of an answer slide's options box: each option (✔/✘) and what follows it."""
    box = next(s for s in slide.shapes if s.has_text_frame and s.text_frame.text[:1] in "✔✘")
    return [as_seen(p.text) for p in box.text_frame.paragraphs]


def _answers(prs):
    """Each question's answer slides (the first, then those its options go on to): (question id, [(page
    number, slide)])."""
    found: list[tuple[str, list]] = []
    for number, slide in enumerate(prs.slides):
        if slide_kind(slide) == "answer":
            question = slide_name(slide).split(":")[1]
            if found and found[-1][0] == question and slide_name(slide).endswith(f":cont{len(found[-1][1])}"):
                found[-1][1].append((number, slide))
            else:
                found.append((question, [(number, slide)]))
    return found


@pytest.mark.parametrize("workshop_id", SHIPPED)
def test_every_answer_slide_gives_each_options_reason_under_it(built, course, workshop_id):
    """Under every option its why, whole: options a slide has no room for go on to a second answer slide,
    headed "(1/2)", "(2/2)", never a reason cut; the whole why is in the notes too."""
    questions = {q.id: q for q in course.questions}
    answered = split = 0
    for lang in ("en", "zh"):
        job, prs, _ = built[(workshop_id, lang)]
        for question_id, slides_ in _answers(prs):
            question = questions[question_id]
            lines = [line for _, slide in slides_ for line in _answer_lines(slide)]
            assert len(lines) == 2 * len(question.options), (question_id, lines)
            titles = [slide.shapes.title.text_frame.text for _, slide in slides_]
            if len(slides_) > 1:
                part = WORDS[lang]["slides"]["part"]
                assert titles == [titles[0][:-len(part.format(k=1, n=2))] + part.format(k=k, n=len(slides_))
                                  for k in range(1, len(slides_) + 1)], titles
                split += 1
            notes = "\n".join(_notes(slides_[0][1]))
            seen = set()
            for shown_option, reason in zip(lines[::2], lines[1::2]):
                # the option whose whole text ends the line (the longest, where one text ends another: "False")
                option = max((o for o in question.options if shown_option.endswith(job.t(o.text).replace("`", ""))),
                             key=lambda o: len(job.t(o.text)))
                seen.add(id(option))
                assert shown_option[:1] == ("✔" if option.correct else "✘"), (question_id, shown_option)
                assert reason == _reason_of(job, option), (question_id, reason)
                assert job.t(option.why).replace("`", "").replace("ℹ ", "") in notes.replace("ℹ ", "")
            assert len(seen) == len(question.options), (question_id, lines)
            answered += 1
    assert answered == 2 * sum(len(step.questions) for step in course.workshop(workshop_id).agenda)
    assert split <= answered // 10  # most answers fit one slide


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("workshop_id", SHIPPED)
def test_every_reason_is_drawn_whole(built, course, drawn, workshop_id, lang):
    """As LibreOffice draws every workshop: each option's whole reason is on its answer slide's page, over as
    many lines as it needs (the tour's "what belongs in torch.backends", five options with long reasons in
    Chinese, goes on to a second slide)."""
    job, prs, _ = built[(workshop_id, lang)]
    questions = {q.id: q for q in course.questions}
    pages = _pdf_text(drawn[(workshop_id, lang)])
    reasons = 0
    for question_id, slides_ in _answers(prs):
        for number, slide in slides_:
            page = _squeeze(pages[number])
            for shown_option in _answer_lines(slide)[::2]:
                option = next(o for o in questions[question_id].options
                              if _squeeze(shown_option).endswith(_squeeze(job.t(o.text))))
                assert _squeeze(_reason_of(job, option)) in page, (workshop_id, number + 1, _reason_of(job, option))
                reasons += 1
    assert reasons >= 2 * len(_answers(prs))


PAUSE_MARKS = "、，。；："


@pytest.mark.parametrize("workshop_id", SHIPPED)
def test_no_space_is_drawn_beside_a_chinese_pause_mark_in_a_title(built, drawn, workshop_id):
    """As LibreOffice draws the Chinese decks (``slides --pdf``): a title reads "答案：B、C", never
    "答案： B 、 C" (LibreOffice's spacing between Asian and Latin text is off in the conversion's profile):
    pdftotext reads no space beside 、，。；： in any slide's title, answer slides' above all."""
    _, prs, _ = built[(workshop_id, "zh")]
    pages = _pdf_text(drawn[(workshop_id, "zh")])
    titles = answers = 0
    for number, slide in enumerate(prs.slides):
        title = as_seen(slide.shapes.title.text_frame.text)
        if not any(mark in title for mark in PAUSE_MARKS):
            continue
        drawn_title = next(line.strip() for line in pages[number].splitlines() if line.strip())
        assert _squeeze(title).startswith(_squeeze(drawn_title)), (number + 1, drawn_title, title)  # its first line
        assert not re.search(f"\\s[{PAUSE_MARKS}]|[{PAUSE_MARKS}]\\s", drawn_title.replace("\u200b", "")), \
            (number + 1, drawn_title)
        titles += 1
        answers += slide_kind(slide) == "answer"
    assert titles >= 10 and answers >= 1


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("workshop_id", ["intro", "tour"])
def test_a_wrapped_code_line_never_leaves_one_word_alone(built, drawn, workshop_id, lang):
    """As LibreOffice draws the code slides: a line of a listing that goes on (↪) holds two words or more
    (the tour's "↪ only" under a comment that would have fitted without its alignment)."""
    _, prs, _ = built[(workshop_id, lang)]
    pages = _pdf_text(drawn[(workshop_id, lang)])
    listings = 0
    for number, slide in enumerate(prs.slides):
        if slide_kind(slide) != "code":
            continue
        listings += 1
        for line in pages[number].splitlines():
            if line.strip().startswith("↪"):
                assert len(line.strip()[1:].split()) >= 2, (workshop_id, number + 1, line)
    assert listings >= 4


GLUED = re.compile(r"(?=([A-Za-z0-9_.()=\[\]]+[、，；：][A-Za-z0-9_.()=\[\]]+))")  # Latin、Latin, overlapping


def test_code_names_glued_by_a_pause_mark_are_drawn_whole(built, drawn):
    """As LibreOffice draws the tour in Chinese: where 、 or ， alone joins two code names (the fast path's two
    native ops, the stem of mha-default-q), the line breaks after the mark, never inside a name."""
    _, prs, _ = built[("tour", "zh")]
    pages = _pdf_text(drawn[("tour", "zh")])
    names = set()
    for number, slide in enumerate(prs.slides):
        lines = [_squeeze(line) for line in pages[number].split("\n")]
        for para in _body_paras(slide) + [as_seen(slide.shapes.title.text)]:
            for pair in GLUED.findall(para.replace("`", "")):
                for name in re.split(r"[、，；：]", pair):
                    assert any(name in line for line in lines), (number + 1, name, para)
                    names.add(name)
    assert {"torch._native_multi_head_attention", "torch._transformer_encoder_layer_fwd",
            "set_fastpath_enabled()", "torch.backends.mha.get_fastpath_enabled()"} <= names


def _body_paras(slide) -> list[str]:
    return [as_seen(p.text) for s in slide.shapes if s.has_text_frame and s.name.startswith(("Body", "Quote"))
            for p in s.text_frame.paragraphs]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("workshop_id", SHIPPED)
def test_sources_are_short_links_and_nothing_is_split_mid_word_or_left_stray(built, course, workshop_id, lang):
    """A source shows short link text (the address is the link's target), on the slide of a point; a
    continuation slide holds more than a stray line and starts where a word starts."""
    job, prs, _ = built[(workshop_id, lang)]
    source = WORDS[lang]["slides"]["source"]
    slides_ = list(prs.slides)
    linked = 0
    for index, slide in enumerate(slides_):
        name = slide_name(slide)
        paras = _body_paras(slide)
        for para in paras:
            if para.startswith(source):
                assert "://" not in para and len(para) <= len(source) + 90, (name, para)
                assert len(paras) >= 2, f"{name} holds only its source"
                linked += 1
        if ":cont" in name:
            words = re.findall(r"[A-Za-z0-9_]+|[\u4e00-\u9fff]", " ".join(p for p in paras if not p.startswith(source)))
            assert len(words) >= 4, (name, paras)
    lessons = [lesson for lesson in course.lessons if lesson.id in course.workshop(workshop_id).lesson_ids]
    assert linked == sum(1 for lesson in lessons if lesson.quote)
    for lesson in lessons:  # a point cut across slides is cut where a word starts
        shown_paras = [p for s in slides_ if slide_name(s).startswith(f"lesson:{lesson.id}") for p in _body_paras(s)]
        for point in lesson.points:
            text = job.t(point).split("ℹ")[0].strip().replace("`", "")
            if text and text not in shown_paras:
                cut = next(i for i in range(len(shown_paras) - 1) if shown_paras[i] + shown_paras[i + 1] == text)
                head = shown_paras[cut]
                assert head.endswith(" ") or re.search(r"[\u3000-\u9fff\uff00-\uffef]$", head), (lesson.id, head)
        if lesson.quote:
            slide = next(s for s in slides_ if slide_name(s) == f"quote:{lesson.id}"
                         and any(p.startswith(source) for p in _body_paras(s)))
            targets = {r.target_ref for r in slide.part.rels.values() if r.is_external}
            assert lesson.quote.source in targets


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("workshop_id", SHIPPED)
def test_the_closing_slides_hold_the_workshops_takeaways(built, course, workshop_id, lang):
    """The take-aways are each lesson's takeaway (its checked part), in teaching order, then the reference;
    the handout and the script are named in the notes."""
    job, prs, _ = built[(workshop_id, lang)]
    closing = [s for s in prs.slides if slide_kind(s) == "closing"]
    assert closing and closing == list(prs.slides)[-len(closing):]
    shown_paras = [p for s in closing for p in _body_paras(s)]
    workshop = course.workshop(workshop_id)
    lessons = {lesson.id: lesson for lesson in course.lessons}
    expected = [_recap(job.t(lessons[i].takeaway)).lstrip("ℹ").strip().replace("`", "") for i in workshop.lesson_ids]
    assert shown_paras[:-1] == expected
    assert shown_paras[-1] == WORDS[lang]["workshop"]["docs"]
    assert any(r.is_external and "docs.pytorch.org" in r.target_ref for r in closing[-1].part.rels.values())
    # where the take-aways need two slides, they are cut about half way: no slide of one or two leftovers
    if len(closing) == 2:
        first, second = (len(_body_paras(s)) for s in closing)
        assert abs(first - (second - 1)) <= 2, (first, second)  # the second also holds the reference line
    for slide in closing:
        assert f"workshop-{workshop_id}" not in _body_text(slide)  # no file names on the slide
        notes = "\n".join(_notes(slide))
        assert f"workshop-{workshop_id}.{lang}.handout.pdf" in notes and f"workshop-{workshop_id}.py" in notes


# ------------------------------------------------------------------ looked at as pictures (issue 23)
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("workshop_id", SHIPPED)
def test_a_code_slide_says_its_caption_once_as_drawn(built, drawn, workshop_id, lang):
    """A code sample's caption is its slide's headline: LibreOffice draws it once, not again above the code."""
    _, prs, _ = built[(workshop_id, lang)]
    pages = _pdf_text(drawn[(workshop_id, lang)])
    checked = 0
    for number, slide in enumerate(prs.slides):
        if slide_kind(slide) == "code":
            title = _squeeze(slide.shapes.title.text)
            assert _squeeze(pages[number]).count(title) == 1, (number + 1, slide_name(slide), title)
            checked += 1
    assert checked >= 3


# A table no slide can hold with its names whole, even at its columns' least widths: four dotted names of
# 30 to 46 characters in three columns (content/backends.yaml, lesson backends-fp32-precision), reported.
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("workshop_id", SHIPPED)
def test_table_cells_keep_every_name_whole_as_drawn(built, drawn, workshop_id, lang):
    """As LibreOffice draws a table: a column is at least as wide as its longest name (a Chinese column
    may break between any two characters), so ``torch.backends.mps.is_available()`` is one word on the
    page, not ``…is_availabl`` over ``e()``. A break after a hyphen is a break."""
    _, prs, _ = built[(workshop_id, lang)]
    pages = pdf_word_boxes(drawn[(workshop_id, lang)])
    checked = 0
    for number, ((_, _, words), slide) in enumerate(zip(pages, prs.slides), 1):
        drawn_words = {w[4] for w in words}
        for shape in slide.shapes:
            if not shape.has_table:
                continue
            for cell in (c for row in shape.table.rows for c in row.cells):
                for name in cell.text.split():
                    if len(name) >= 4 and name.isascii():
                        parts = re.split(r"(?<=-)", name)  # deep-learning, drawn whole or as deep- over learning
                        assert name in drawn_words or all(p in drawn_words for p in parts), \
                            (number, slide_name(slide), name)
                        checked += 1
    assert checked >= 20


def _ink(pdf: Path, page: int, box) -> int:
    """How many dark pixels LibreOffice's PDF has inside ``box`` (pt) of page ``page`` (1-based), at 144 dpi."""
    scale = 2.0
    x0, y0, x1, y1 = (round(v * scale) for v in box)
    pgm = subprocess.run(["pdftoppm", "-gray", "-r", "144", "-f", str(page), "-l", str(page), "-x", str(x0),
                          "-y", str(y0), "-W", str(max(x1 - x0, 1)), "-H", str(max(y1 - y0, 1)), str(pdf)],
                         capture_output=True, check=True).stdout
    header = re.match(rb"P5\s+(\d+)\s+(\d+)\s+255\s", pgm)
    assert header, pgm[:40]
    return sum(1 for value in pgm[header.end():] if value < 128)


def test_the_explanation_mark_is_drawn_before_chinese(built, drawn):
    """The ℹ that sets an explanation apart is drawn in the Chinese deck too (LibreOffice took an ℹ before
    Chinese as East Asian text, found it in no CJK font and drew it blank): ink inside each ℹ's box."""
    _, prs, _ = built[("intro", "zh")]
    pdf = drawn[("intro", "zh")]
    checked = 0
    for number, (_, _, words) in enumerate(pdf_word_boxes(pdf), 1):
        for word in words:
            if word[4].startswith("ℹ"):
                x0, y0, _, y1 = word[:4]
                assert _ink(pdf, number, (x0, y0, x0 + (y1 - y0) * 0.45, y1)) > 5, (number, word)
                checked += 1
    assert checked >= 3


@pytest.mark.parametrize("workshop_id", SHIPPED)
def test_chinese_labels_end_in_a_full_width_colon(built, drawn, handouts, workshop_id):
    """A review's lesson titles and the handout's links are labels: in Chinese 'title：', never 'title: '."""
    _, prs, _ = built[(workshop_id, "zh")]
    pages = _pdf_text(drawn[(workshop_id, "zh")])
    reviews = [pages[n] for n, slide in enumerate(prs.slides) if slide_kind(slide) == "review"]
    links = [line for page in _pdf_text(handouts[0][(workshop_id, "zh")]) for line in page.splitlines()
             if "https://" in line or "docs.pytorch.org ›" in line]
    assert reviews and links
    for text in (*reviews, *links):
        assert not re.search(r"[\u3000-\u9fff\uff00-\uffef)）]\s*:\s", text), re.findall(r".{12}[^\S\n]*:\s.{8}", text)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("workshop_id", SHIPPED)
def test_a_section_slide_promises_only_what_the_workshop_teaches(built, drawn, course, workshop_id, lang):
    """As drawn: a module's section slide shows the module's summary (all it covers) only where the
    workshop teaches every lesson of the module; otherwise only the lessons taught."""
    job, prs, _ = built[(workshop_id, lang)]
    pages = _pdf_text(drawn[(workshop_id, lang)])
    taught = set(course.workshop(workshop_id).lesson_ids)
    modules = {m.name: m for m in course.modules}
    partial = 0
    for number, slide in enumerate(prs.slides):
        if slide_kind(slide) != "section":
            continue
        module = modules[slide_name(slide).split(":")[1]]
        summary = _squeeze(job.t(module.summary).replace("`", ""))
        whole = taught >= {lesson.id for lesson in module.lessons}
        assert (summary in _squeeze(pages[number])) == whole, (number + 1, module.name, whole)
        partial += not whole
    assert partial >= 1


def _ask(slide) -> str:
    return _notes(slide)[1]


def _agenda_text(prs) -> str:
    return "\n".join(_body_text(slide) for slide in prs.slides if slide_kind(slide) == "agenda")


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("workshop_id", SHIPPED)
def test_a_sections_title_agenda_row_and_notes_name_only_what_the_workshop_teaches(built, course, workshop_id,
                                                                                     lang):
    """Where a workshop teaches part of a module, its section slide's title and its agenda row are the module's
    bare path (the module's title promises all of it: "matmul precision, attention kernels and CUDA libraries"
    over one TF32 lesson), and the notes name the lessons taught, never the module's summary."""
    job, prs, _ = built[(workshop_id, lang)]
    taught = set(course.workshop(workshop_id).lesson_ids)
    modules = {m.name: m for m in course.modules}
    agenda = _agenda_text(prs)
    partial = 0
    for slide in prs.slides:
        if slide_kind(slide) != "section":
            continue
        module = modules[slide_name(slide).split(":")[1]]
        notes = "\n".join(_notes(slide))
        title = module.display_title(lang)
        if taught >= {lesson.id for lesson in module.lessons}:
            assert slide.shapes.title.text == title and title in agenda, module.name
            continue
        partial += 1
        assert slide.shapes.title.text == module.module, (module.name, slide.shapes.title.text)
        assert title not in agenda and f"{module.module} ·" in agenda, (module.name, agenda)
        summary = job.t(module.summary).replace("`", "")
        assert summary not in notes, (module.name, notes)
        said, listed = letters_and_digits(notes), letters_and_digits(_body_text(slide))
        here = [letters_and_digits(job.t(lesson.title)) for lesson in module.lessons if lesson.id in taught]
        assert any(title in said for title in here), (module.name, notes)
        assert all(title in listed for title in (letters_and_digits(job.t(lesson.title)) for lesson in module.lessons)
                   if title in said), (module.name, notes)  # the notes name only what the slide lists
    assert partial >= 1


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("workshop_id", SHIPPED)
def test_review_and_code_prompts_are_drawn_from_their_own_slide(built, workshop_id, lang):
    """No stock prompt repeats: every review slide and every code slide asks the room its own question, and
    what the question quotes (“…”) is on that slide; a print of a fixed text is never asked about as if its
    output could be predicted."""
    _, prs, _ = built[(workshop_id, lang)]
    asks: dict[str, str] = {}
    for slide in prs.slides:
        name = slide_name(slide)
        if slide_kind(slide) not in ("review", "code") or ":cont" in name:
            continue
        ask = _ask(slide)
        assert ask not in asks, (name, asks.get(ask), ask)
        asks[ask] = name
        quoted = re.findall(r"“(.+?)”", ask)
        assert quoted, (name, ask)
        shown = as_seen("\n".join(shape.text_frame.text for shape in slide.shapes if shape.has_text_frame))
        for text in quoted:
            assert text in shown, (name, text)
            assert not FIXED_PRINT.fullmatch(text), (name, text)
    assert len(asks) >= 3


PICTURE_WORDS = re.compile(r"\b(?:the|this|a) (?:picture|map|diagram|chart)\b|\bdiagram\b|示意图|总览图|流程图|位图|"
                           r"从图|按图(?!注)|看图|图中|这张图|地图")


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("workshop_id", SHIPPED)
def test_notes_speak_of_a_picture_only_on_a_slide_that_shows_one(built, workshop_id, lang):
    """A slide's notes refer only to what is on it: "start from the picture" on a slide of points (the map comes
    four slides later) sends the presenter looking for what is not there."""
    _, prs, _ = built[(workshop_id, lang)]
    pictures = 0
    for number, slide in enumerate(prs.slides, 1):
        has_picture = any(shape.shape_type == 13 for shape in slide.shapes)  # MSO_SHAPE_TYPE.PICTURE
        said = "\n".join(_notes(slide)[:2] + _notes(slide)[3:])
        if PICTURE_WORDS.search(said):
            assert has_picture, (number, slide_name(slide), PICTURE_WORDS.search(said)[0], said)
        pictures += has_picture
    assert pictures >= 1


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("workshop_id", SHIPPED)
def test_a_diagrams_notes_say_what_it_shows(built, course, workshop_id, lang):
    """Under a diagram the notes walk that diagram (its description, the alt text of its picture), not the
    takeaway of the lesson that first needs it ("Walk the picture box by box: fp32_precision is a tree…")."""
    job, prs, _ = built[(workshop_id, lang)]
    diagrams = 0
    for slide in prs.slides:
        if slide_kind(slide) != "diagram":
            continue
        say = _notes(slide)[0]
        alt = next(s for s in slide.shapes if s.shape_type == 13)._element.find(".//{*}cNvPr").get("descr")
        assert alt and alt in say, (slide_name(slide), say)
        for lesson in course.lessons:
            if lesson.takeaway:
                assert job.t(lesson.takeaway) not in say, (slide_name(slide), lesson.id)
        diagrams += 1
    assert diagrams >= 1


PARTS_OF_DAY = {"morning": (5 * 60, 12 * 60), "afternoon": (12 * 60, 18 * 60), "evening": (18 * 60, 23 * 60),
                "上午": (5 * 60, 12 * 60), "早上": (5 * 60, 10 * 60), "下午": (12 * 60, 18 * 60),
                "晚上": (18 * 60, 23 * 60)}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("workshop_id", SHIPPED)
def test_the_title_slide_names_no_part_of_the_day_its_clock_does_not_keep(built, workshop_id, lang):
    """The tour ran 09:00–12:53 under a title slide that said "in one afternoon" (一个下午): a part of the day
    the title names holds the workshop's whole clock, read back from the slide's own time line."""
    _, prs, _ = built[(workshop_id, lang)]
    title_slide = next(slide for slide in prs.slides if slide_kind(slide) == "title")
    text = _body_text(title_slide, skip=("Footer", "Slide Number"))
    start_h, start_m, end_h, end_m = map(int, re.search(r"(\d\d):(\d\d)–(\d\d):(\d\d)", text).groups())
    start, end = start_h * 60 + start_m, end_h * 60 + end_m
    for part, (first, last) in PARTS_OF_DAY.items():
        if re.search(rf"\b{part}\b" if part.isascii() else part, text, re.I):
            assert first <= start and end <= last, (part, text)


GLUED_TAIL = re.compile(r'"[^"\s]+"|[A-Za-z0-9_.()]{2,}(?=["”’）：，。；、])')  # a literal, or a word a mark follows


@pytest.mark.parametrize("workshop_id", SHIPPED)
def test_a_word_before_a_closing_mark_is_drawn_whole_in_chinese(built, drawn, workshop_id):
    """As LibreOffice draws the Chinese decks: a quoted literal or a word followed by a mark that may not start a
    line ("tf32"）：) is never cut, where LibreOffice's Chinese breaker would have drawn "tf3 / 2"）： had the
    slide not broken the line before the word."""
    _, prs, _ = built[(workshop_id, "zh")]
    pages = _pdf_text(drawn[(workshop_id, "zh")])
    checked = 0
    for number, slide in enumerate(prs.slides):
        lines = [_squeeze(line) for line in pages[number].split("\n")]
        words = [_squeeze(w) for para in _body_paras(slide) for w in GLUED_TAIL.findall(para.replace("`", ""))]
        for word in set(words):  # each time it is written, drawn whole on one line
            assert sum(line.count(word) for line in lines) >= words.count(word), (number + 1, word, lines)
        checked += len(words)
    assert checked >= 10
