"""Workshops: the shipped selections, their one timetable, their decks as LibreOffice draws them,
their handouts and scripts.

Each shipped workshop is built once per session in both languages (``built``); only the decks
and handouts a test reads as PDF are converted (``drawn``).
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import main
from generator.workshops import BREAK_FROM, REVIEW_AFTER, schedule, total_minutes

CONTENT = Path(__file__).resolve().parent.parent / "content"

SHIPPED = ("intro", "gpu-tuning", "cpu-performance", "tour")


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


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
    result = run("workshops", "--json")
    assert result.exit_code == 0, result.output
    listed = {item["id"]: item for item in json.loads(result.output)}
    for workshop in course.workshops:
        item = listed[workshop.id]
        assert item["title"] == {"en": workshop.title.en, "zh": workshop.title.zh}
        assert item["minutes"] == total_minutes(workshop, course)
        assert item["lessons"] == workshop.lesson_ids
    plain = run("workshops")
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
        result = run(*args, "--content", folder)
        assert result.exit_code == 2, result.output
        assert f"workshops.yaml:{lesson_line}:" in result.output and "no lesson has the id 'cudnn-tf23'" in result.output
        assert f"workshops.yaml:{question_line}:" in result.output and "cuda-q-sdpa-priorty" in result.output
    assert not out.exists()


def test_a_long_workshop_without_a_break_is_refused(tmp_path):
    folder = _content_copy(tmp_path, lambda text: text.replace("      - break: 15\n", ""))
    result = run("workshops", "--content", folder)
    assert result.exit_code == 2
    assert "workshops.yaml:" in result.output and "needs a 'break: MINUTES' step" in result.output


def test_an_unknown_workshop_or_clock_is_a_usage_error(tmp_path):
    result = run("slides", "--workshop", "nope", "--out", tmp_path / "b")
    assert result.exit_code == 2 and "no workshop named 'nope'" in result.output and "intro" in result.output
    result = run("slides", "--workshop", "intro", "--start", "25:00", "--out", tmp_path / "b")
    assert result.exit_code == 2 and "HH:MM" in result.output
    assert not (tmp_path / "b").exists()
