"""A workshop's timetable, the one source of its timing.

The minutes of a workshop are the sum of its parts: the opening (title and agenda), a section
slide where the module changes, each lesson's own ``minutes``, each question's (asked, then
answered), a review of the takeaways just taught before ``REVIEW_AFTER`` teaching minutes pass,
the breaks the agenda names, and the closing. ``torchdeck workshops`` lists these minutes; the
slides' title, agenda and every slide's notes print the same segments' clock times.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Optional

from .model import Course, Lesson, Module, Question, Workshop
from .wording import lessons_and_minutes, words

OPENING_MINUTES = 3  # title and agenda
SECTION_MINUTES = 1  # the module a stretch of lessons comes from
REVIEW_MINUTES = 2
CLOSING_MINUTES = 3  # take-aways: the handout, the script, questions from the room
QUESTION_MINUTES = {"truefalse": 1, "single": 2, "multi": 2, "scenario": 4}  # asked and answered
REVIEW_AFTER = 30  # teaching minutes at most between two reviews (or the start, or a break, and a review)
BREAK_FROM = 120  # a workshop this long or longer has a break
REFERENCE = "https://docs.pytorch.org/docs/stable/backends.html"  # where every workshop sends the room next


@dataclass(frozen=True)
class Slot:
    """One timed part: ``kind`` is opening, section, lesson, question, review, break or closing.

    ``ref`` is the lesson or question id, the module's short name, or '' ; ``lessons`` are the ids a
    review recaps. ``start`` counts minutes from the workshop's start.
    """

    kind: str
    ref: str
    start: int
    minutes: int
    lessons: tuple[str, ...] = ()

    @property
    def end(self) -> int:
        return self.start + self.minutes


def schedule(workshop: Workshop, course: Course) -> tuple[Slot, ...]:
    """The workshop's segments in order. A lesson or question the course does not hold (left out because
    a fact it rests on failed) is skipped: the timetable is that of what is shown."""
    lessons = {lesson.id: (module.name, lesson) for module in course.modules for lesson in module.lessons}
    questions = {q.id: q for module in course.modules for q in module.questions}
    out: list[Slot] = []
    clock = 0

    def add(kind: str, ref: str, minutes: int, recap: tuple[str, ...] = ()) -> None:
        nonlocal clock
        out.append(Slot(kind, ref, clock, minutes, recap))
        clock += minutes

    add("opening", "", OPENING_MINUTES)
    pending: list[str] = []  # lessons taught since the last review
    taught = 0  # teaching minutes since the last review or break
    module = None
    for step in workshop.agenda:
        if step.break_:
            if pending:
                add("review", "", REVIEW_MINUTES, tuple(pending))
                pending = []
            add("break", "", step.break_)
            taught = 0
            module = None
            continue
        if step.lesson not in lessons:
            continue
        name, lesson = lessons[step.lesson]
        asked = [questions[q] for q in step.questions if q in questions]
        block = lesson.minutes + sum(question_minutes(q) for q in asked) + (SECTION_MINUTES if name != module else 0)
        if pending and taught + block > REVIEW_AFTER:
            add("review", "", REVIEW_MINUTES, tuple(pending))
            pending, taught = [], 0
        if name != module:
            add("section", name, SECTION_MINUTES)
            module = name
        add("lesson", lesson.id, lesson.minutes)
        for question in asked:
            add("question", question.id, question_minutes(question))
        pending.append(lesson.id)
        taught += block
    if pending:
        add("review", "", REVIEW_MINUTES, tuple(pending))
    add("closing", "", CLOSING_MINUTES)
    return tuple(out)


@dataclass(frozen=True)
class Stretch:
    """A row of the agenda: a module's run of lessons (with their questions and reviews), a break, the
    close, or the end (``kind``), from ``start`` for ``minutes``."""

    kind: str
    ref: str  # the module's short name for a 'section' row
    start: int
    minutes: int
    lessons: int = 0


def agenda(segments: tuple[Slot, ...]) -> list[Stretch]:
    """The day in stretches, as the agenda slide and the handout list it; the opening is left out (it is
    the agenda itself) and an 'end' row closes it."""
    rows: list[Stretch] = []
    for index, segment in enumerate(segments):
        if segment.kind == "section":
            run = stretch_of(segments, index)
            rows.append(Stretch("section", segment.ref, segment.start, segment.minutes + sum(s.minutes for s in run),
                                sum(s.kind == "lesson" for s in run)))
        elif segment.kind in ("break", "closing"):
            rows.append(Stretch(segment.kind, segment.ref, segment.start, segment.minutes))
    return rows + [Stretch("end", "", segments[-1].end, 0)]


def stretch_of(segments: tuple[Slot, ...], index: int) -> tuple[Slot, ...]:
    """The segments the section at ``index`` heads: its lessons, questions and reviews, up to the next
    section, break or the close."""
    run = []
    for later in segments[index + 1:]:
        if later.kind in ("section", "break", "closing"):
            break
        run.append(later)
    return tuple(run)


def agenda_lines(segments: tuple[Slot, ...], workshop: Workshop, course: Course, lang: str,
                 start: int) -> list[tuple[str, str]]:
    """``(clock, what)`` per row of the agenda, in ``lang``: what the agenda slide and the handout print."""
    phrases = words(lang)["workshop"]
    titles = {m.name: section_title(workshop, m, lang) for m in course.all_modules}
    what = {"break": lambda row: phrases["row_break"].format(n=row.minutes),
            "closing": lambda row: phrases["row_closing"], "end": lambda row: phrases["row_end"],
            "section": lambda row: f"{titles[row.ref]} · {lessons_and_minutes(lang, row.lessons, row.minutes)}"}
    return [(clock(start, row.start), what[row.kind](row)) for row in agenda(segments)]


def teaches_whole(workshop: Workshop, module: Module) -> bool:
    """Whether the workshop teaches every lesson of ``module``: only then may its section name what the
    module's title and summary promise (a summary of the whole names what a part leaves out)."""
    return set(workshop.lesson_ids) >= {lesson.id for lesson in module.lessons}


def section_title(workshop: Workshop, module: Module, lang: str) -> str:
    """The heading of the module's section (its slide, its agenda row): the module's title where the workshop
    teaches all of it, else its bare path (``torch.backends.cuda``), which promises nothing it does not teach."""
    return module.display_title(lang) if teaches_whole(workshop, module) else module.module


def question_minutes(question: Question) -> int:
    return QUESTION_MINUTES[question.kind]


def total_minutes(workshop: Workshop, course: Course) -> int:
    return schedule(workshop, course)[-1].end


def lessons_of(workshop: Workshop, course: Course) -> list[Lesson]:
    """The workshop's lessons the course holds, in agenda order."""
    found = {lesson.id: lesson for lesson in course.lessons}
    return [found[lesson_id] for lesson_id in workshop.lesson_ids if lesson_id in found]


def module_names(workshop: Workshop, course: Course) -> tuple[str, ...]:
    """The short names of the modules the workshop's lessons come from, in course order."""
    wanted = set(workshop.lesson_ids)
    return tuple(m.name for m in course.all_modules if any(lesson.id in wanted for lesson in m.lessons))


def file_stem(workshop: Workshop) -> str:
    """``workshop-<id>``: the name every file of a workshop starts with (deck, handout, script)."""
    return f"workshop-{workshop.id}"


def course_for(workshop: Workshop, course: Course) -> Course:
    """The course a workshop's outputs are made from: its modules (each option keeps the order every other
    output shows), and a map of torch.backends that shows the whole course with them highlighted."""
    names = module_names(workshop, course)
    return dataclasses.replace(course.select(names), highlighted=names)


_CLOCK = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")


def parse_clock(text: str) -> Optional[int]:
    """Minutes after midnight of ``HH:MM``; None where it is no time of day."""
    match = _CLOCK.match(text.strip())
    return int(match[1]) * 60 + int(match[2]) if match else None


def clock(start: int, offset: int) -> str:
    """``HH:MM`` of ``offset`` minutes after ``start`` (minutes after midnight), past midnight wrapping."""
    minutes = (start + offset) % (24 * 60)
    return f"{minutes // 60:02d}:{minutes % 60:02d}"
