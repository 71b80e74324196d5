"""The order a module is taught in, the same in every output that teaches it lesson by lesson (the slides,
the web course): a question comes after the last lesson of its module that teaches one of its facts (or
at the module's end, where none does), and a review of the takeaways just taught every ``REVIEW_EVERY``
lessons."""
from __future__ import annotations

from typing import Optional

from ..model import Module, Question

REVIEW_EVERY = 3


def questions_by_lesson(module: Module) -> dict[Optional[str], list[Question]]:
    """The module's questions under the id of the lesson they follow (None: the module's end), in order."""
    placed: dict[Optional[str], list[Question]] = {}
    for question in module.questions:
        target = None
        for lesson in module.lessons:
            if set(lesson.facts) & set(question.facts):
                target = lesson.id
        placed.setdefault(target, []).append(question)
    return placed
