"""Printable quiz handouts: a student sheet per version, an answer key, and Moodle XML, GIFT and QTI.

The questions reach ``templates/quiz.typ`` as JSON data (``sys.inputs.data``), so
nothing in the content is ever read as Typst markup. Typst typesets the PDFs
in-process; the document date comes from ``dates.edition_date``, never the clock, so
the same seed and content give byte-identical files on any day. Files are named
``quiz-<name>`` or ``quiz-s<seed>``, so a second quiz does not overwrite the first.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from ... import resources
from ...atomic import atomic_write_bytes
from ...fonts import EMOJI
from ...model import Question
from ...wording import words as all_words
from ..base import RenderJob, takes_many_answers
from ..dates import EpochError, edition_date, source_date
from ..typesetting import (
    CJK_FONT,
    EMOJI_FONT,
    FONT_FOLDERS,
    LATIN_FONT,
    MONO_FONT,
    code_lines,
    emoji_folders,
    legend,
    rich,
    typeset,
)
from .gift import gift
from .moodle import moodle_xml
from .qti import qti12_package, qti21_package
from .select import PrintedQuestion, SelectionError, Version, letter, make_versions, select

__all__ = ["EpochError", "QuizOptions", "SelectionError", "check_name", "render", "source_date"]

TEMPLATE = resources.templates() / "quiz.typ"
PAPERS = {"a4": "a4", "letter": "us-letter"}
MAX_VERSIONS = 26  # A to Z
ROWS_PER_COLUMN = 25  # of the answer sheet's bubble grid at full size; more rows shrink to stay on one page
WRITING_LINES = 4  # ruled lines in a scenario's box on the answer sheet
DEFAULT_COUNT = 20  # questions in a quiz that asks for no number: a class's quiz (--all: every one that can share it)
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")  # a quiz's --name: safe in a file name, no dots



@dataclass(frozen=True)
class QuizOptions:
    """What ``torchdeck quiz`` asks for; the defaults are what ``torchdeck build`` prints."""

    tags: tuple[str, ...] = ()
    difficulty: Optional[int] = None
    count: Optional[int] = None
    per_module: Optional[int] = None
    versions: int = 3
    seed: int = 0
    paper: str = "a4"
    title: Optional[str] = None
    name: Optional[str] = None  # the files' name: quiz-<name>; without it quiz-s<seed>
    everything: bool = False  # without count or per_module: every question that can share the quiz, not DEFAULT_COUNT

    @property
    def stem(self) -> str:
        return f"quiz-{check_name(self.name)}" if self.name else f"quiz-s{self.seed}"


def check_name(name: str) -> str:
    """``name`` where it can name the quiz's files; a SelectionError saying what it may hold otherwise."""
    if not NAME.fullmatch(name):
        raise SelectionError(f"the quiz name {name!r} may hold only letters, digits, '-' and '_' "
                             "(it names the files)")
    return name


def render(job: RenderJob, options: QuizOptions = QuizOptions()) -> list[Path]:
    """Write per version ``<stem>.<lang>.A.pdf`` (questions) and ``.A.answers.pdf`` (the answer sheet: every
    bubble on its first page, then a box per scenario for its explanation: the one document a student hands
    in), then ``<stem>.<lang>.key.pdf`` (no internal ids but in its appendix), ``.marking.pdf`` (a page per
    version), ``.moodle.xml`` and ``.gift.txt`` (the same questions for Moodle's GIFT import), ``.qti12.zip``
    and ``.qti21.zip`` (the same questions as IMS QTI 1.2 and 2.1 packages, for Canvas, Blackboard, D2L, OpenOLAT)."""
    stem = options.stem
    questions = select(job.course.modules, tags=options.tags, difficulty=options.difficulty,
                       count=options.count, per_module=options.per_module,
                       limit=None if options.everything else DEFAULT_COUNT, seed=options.seed)
    versions = make_versions(questions, options.versions, options.seed)
    title = options.title or all_words(job.lang)["quiz"]["title"]
    page = _page(job, options, title, questions)
    files = {}
    for version in versions:
        files[job.output(stem, f".{version.letter}.pdf")] = typeset(sheet_data(job, version, page), TEMPLATE)
        answers = answers_data(job, version, page)
        files[job.output(stem, f".{version.letter}.answers.pdf")] = typeset(answers, TEMPLATE)
    files[job.output(stem, ".key.pdf")] = typeset(key_data(job, questions, versions, page), TEMPLATE)
    files[job.output(stem, ".marking.pdf")] = typeset(marking_data(job, versions, page), TEMPLATE)
    files[job.output(stem, ".moodle.xml")] = moodle_xml(job, questions, title)
    files[job.output(stem, ".gift.txt")] = gift(job, questions, title)
    files[job.output(stem, ".qti12.zip")] = qti12_package(job, questions, title, stem)
    files[job.output(stem, ".qti21.zip")] = qti21_package(job, questions, title, stem)
    for path, data in files.items():
        atomic_write_bytes(path, data)
    _remove_stale_sheets(job, stem, len(versions))
    return list(files)


def _remove_stale_sheets(job: RenderJob, stem: str, built: int) -> None:
    """Sheets of versions an earlier run of this quiz built beyond this run's last: no key matches them any more."""
    for index in range(built, MAX_VERSIONS):
        job.output(stem, f".{letter(index)}.pdf").unlink(missing_ok=True)
        job.output(stem, f".{letter(index)}.answers.pdf").unlink(missing_ok=True)


# ------------------------------------------------------------ template data
def _page(job: RenderJob, options: QuizOptions, title: str, questions: Sequence[Question]) -> dict:
    """What every document of the quiz shares: language, fonts, paper, date, words."""
    date = edition_date(job.verification)
    fonts = [LATIN_FONT, CJK_FONT] if job.lang == "zh" else [LATIN_FONT]
    texts = list(_printed_texts(job, title, questions))
    folders = emoji_folders(texts)
    if any(EMOJI.search(text) for text in texts):
        fonts.append(EMOJI_FONT)
    return {"lang": job.lang, "fonts": fonts, "mono_fonts": [MONO_FONT, *fonts[1:]],
            "paper": PAPERS[options.paper], "date": [date.year, date.month, date.day] if date else None,
            "title": title, "words": all_words(job.lang)["quiz"], "footer": footer(job, date),
            **({FONT_FOLDERS: list(folders)} if folders else {})}


def footer(job: RenderJob, date) -> str:
    """'verified against torch 2.13.0+cpu (608 pass, 82 skip) · 2026-11-25': the verification without
    the day it ran (the clock's), and the quiz's own date where it has one."""
    counts = job.verification.counts()
    line = all_words(job.lang)["quiz"]["verified"].format(torch=job.verification.torch, passed=counts["pass"],
                                                          skipped=counts["skip"])
    return f"{line} · {date.isoformat()}" if date else line




def _printed_texts(job: RenderJob, title: str, questions: Sequence[Question]):
    yield title
    for question in questions:
        yield job.t(question.stem)
        yield job.code(question)
        for option in question.options:
            yield job.t(option.text)
            yield job.t(option.why)
        for fact_id in question.facts:
            yield job.t(job.course.fact(fact_id).claim)


def sheet_data(job: RenderJob, version: Version, page: dict) -> dict:
    """The student sheet of one version."""
    words = all_words(job.lang)["quiz"]
    points = sum(p.question.points for p in version.placed)
    return _explained(job, {**page, "kind": "sheet", "label": words["version"].format(version.letter),
                            "total": _total(job, len(version.placed), points),
                            "total_points": points,
                            "questions": [_sheet_question(job, number, placed)
                                          for number, placed in enumerate(version.placed, 1)]})


def _explained(job: RenderJob, data: dict) -> dict:
    """A question paper's or the key's ``data`` with what ℹ means, to say under its title where it shows one."""
    return {**data, "explained": legend(job.lang, data)}


def answers_data(job: RenderJob, version: Version, page: dict) -> dict:
    """The one-page answer sheet of one version: a bubble per option of every question."""
    return {**page, "kind": "answers", **_bubble_sheet(job, version, marking=False)}


def marking_data(job: RenderJob, versions: Sequence[Version], page: dict) -> dict:
    """The marking grid: each version's answer sheet with the right bubbles filled, a page per version."""
    return {**page, "kind": "marking", "label": all_words(job.lang)["quiz"]["marking"],
            "sheets": [_bubble_sheet(job, v, marking=True) for v in versions]}


def _bubble_sheet(job: RenderJob, version: Version, marking: bool) -> dict:
    points = sum(p.question.points for p in version.placed)
    return {"label": all_words(job.lang)["quiz"]["version"].format(version.letter),
            "total": _total(job, len(version.placed), points), "total_points": points,
            "columns": min(3, max(2, -(-len(version.placed) // ROWS_PER_COLUMN))),
            "rows": [{"number": number, "letters": [letter(i) for i in range(len(placed.order))],
                      "correct": placed.correct_letters.split(",") if marking else [],
                      "points": _points(job, placed.question), "explain": placed.question.kind == "scenario"}
                     for number, placed in enumerate(version.placed, 1)],
            # the answer sheet's box per scenario, where its choice is explained: one document per student
            "boxes": [] if marking else [number for number, placed in enumerate(version.placed, 1)
                                         if placed.question.kind == "scenario"],
            "lines": WRITING_LINES}


def _sheet_question(job: RenderJob, number: int, placed: PrintedQuestion) -> dict:
    question = placed.question
    return {"number": number, "points": _points(job, question), "stem": rich(job.t(question.stem)),
            "hint": _hint(job, question), "scope": job.scope(question.facts),
            "code": code_lines(job.code(question) or None, question.language),
            "options": [{"letter": letter(index), "text": rich(job.t(option.text))}
                        for index, option in enumerate(placed.options)],
            "explain": (all_words(job.lang)["quiz"]["explain_on_sheet"].format(number)
                        if question.kind == "scenario" else "")}


def _hint(job: RenderJob, question: Question) -> str:
    """'(select all that apply)' after the stem of a question that takes several answers."""
    return job.multi_hint(question)


def key_data(job: RenderJob, questions: Sequence[Question], versions: Sequence[Version], page: dict) -> dict:
    """The answer key: the letter grid of every version, then every question explained."""
    words = all_words(job.lang)["quiz"]
    letters = [v.letter for v in versions]
    grid = [[str(number), *(v.placed[number - 1].correct_letters for v in versions)]
            for number in range(1, len(questions) + 1)]
    return _explained(job, {**page, "kind": "key", "label": words["key"],
                            "heading": words["key_heading"].format(page["title"]), "versions": letters,
                            "total": _total(job, len(questions), sum(q.points for q in questions)),
                            "grid": grid, "questions": [_key_question(job, q, versions) for q in questions],
                            "provenance": _provenance(job, questions, versions)})


def _provenance(job: RenderJob, questions: Sequence[Question], versions: Sequence[Version]) -> list[dict]:
    """The key's appendix, for the course's authors rather than for marking: per question (in version A's
    order) its numbers on the sheets, its id, the ids of the facts behind it with their result here, and
    where those facts were verified. The body of the key names none of these ids."""
    first = versions[0]
    rows = []
    for question in sorted(questions, key=first.number_of):
        facts = [f"{fact_id} ({_status(job, fact_id)})" for fact_id in question.facts]
        rows.append({"where": _numbers(question, versions), "id": question.id, "facts": ", ".join(facts),
                     "verified": job.verified_where(question.facts)})
    return rows


def _numbers(question: Question, versions: Sequence[Version]) -> str:
    """'A 3 · B 7 · C 12': the question's number on each version's sheet."""
    return " · ".join(f"{v.letter} {v.number_of(question)}" for v in versions)


def _status(job: RenderJob, fact_id: str) -> str:
    result = job.verification.results.get(fact_id)
    return result.status if result else "unchecked"


def _key_question(job: RenderJob, question: Question, versions: Sequence[Version]) -> dict:
    placements = [next(p for p in v.placed if p.question.id == question.id) for v in versions]
    where = all_words(job.lang)["quiz"]["where"].format(_numbers(question, versions))
    return {"points": _points(job, question), "where": where,
            "stem": rich(job.t(question.stem)), "code": code_lines(job.code(question) or None, question.language),
            "options": [{"letters": [p.letter_of(index) for p in placements], "correct": option.correct,
                         "text": rich(job.t(option.text)), "why": rich(job.t(option.why))}
                        for index, option in enumerate(question.options)],
            "facts": [rich(_without_full_stop(job.t(job.course.fact(fact_id).claim))) for fact_id in question.facts],
            "marking": _marking(job, question), "unverified": job.item_mark(question.facts)}


def _without_full_stop(claim: str) -> str:
    """A claim as one of a list joined with "; " (or "；"): its closing full stop would read ".;"."""
    return claim.rstrip().removesuffix(".").removesuffix("。")


def _marking(job: RenderJob, question: Question) -> str:
    """How the key marks a question beyond one right box: the rubric of a scenario, the scoring rule of a
    question that takes several answers ('' for a plain single pick)."""
    quiz_words = all_words(job.lang)["quiz"]
    parts = [quiz_words["scoring"]] if takes_many_answers(question) else []
    if question.kind == "scenario":
        parts.append(quiz_words["rubric"])
    return " ".join(parts)


def _points(job: RenderJob, question: Question) -> str:
    return _counted(job, "points", question.points)


def _total(job: RenderJob, questions: int, points: int) -> str:
    """'12 questions · 20 points in total'."""
    return all_words(job.lang)["quiz"]["total"].format(questions=_counted(job, "questions", questions),
                                           points=_counted(job, "total_points", points))


def _counted(job: RenderJob, word: str, count: int) -> str:
    one, many = all_words(job.lang)["quiz"][word]
    return (one if count == 1 else many).format(count)












