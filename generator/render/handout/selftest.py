"""The handout's self-test: the questions the workshop's slides ask, in the order and with the option
letters the slides show, and on a later page their answers, each option with a one-line reason (the
checked part of its why, as an answer slide shows it)."""
from __future__ import annotations

from ...markup import checked_part
from ...model import Course, Question, Workshop
from ...wording import words as all_words
from ..base import RenderJob
from ..order import letter, shown
from ..typesetting import code_lines, rich
from .cheat import MARK


def questions_asked(workshop: Workshop, course: Course) -> list[Question]:
    """The workshop's questions the course holds, in the order the agenda asks them."""
    found = {q.id: q for q in course.questions}
    return [found[q] for step in workshop.agenda for q in step.questions if q in found]


def answers(job: RenderJob, asked: list[Question]) -> list[tuple[dict, dict]]:
    """``(question, answer)`` as the template takes them, per question asked."""
    return [(_question(job, number, q), _answer(job, number, q)) for number, q in enumerate(asked, 1)]


def _question(job: RenderJob, number: int, question: Question) -> dict:
    return {"number": number, "mark": MARK if job.unverified_note(question.facts) else "",
            "stem": rich(job.t(question.stem)), "hint": job.multi_hint(question), "scope": job.scope(question.facts),
            "code": code_lines(job.code(question) or None, question.language),
            "options": [{"letter": letter(i), "text": rich(job.t(o.text))}
                        for i, o in enumerate(shown(question, job.course))]}


def _answer(job: RenderJob, number: int, question: Question) -> dict:
    options = shown(question, job.course)
    letters = all_words(job.lang)["separators"][0].join(letter(i) for i, o in enumerate(options) if o.correct)
    return {"number": number, "line": all_words(job.lang)["workshop"]["handout"]["answer_is"].format(letters=letters),
            "options": [{"letter": letter(i), "correct": o.correct, "text": rich(job.t(o.text)),
                         "reason": rich(checked_part(job.t(o.why)))} for i, o in enumerate(options)]}
