"""Which questions a quiz holds, and in which order each version prints them.

Pure functions of the questions and the seed. Every draw comes from a
``random.Random`` seeded with a string (``"7:B"`` for version B of seed 7), never
from the global generator, so a seed gives the same versions on any machine and
in any process.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from string import ascii_uppercase
from typing import Optional, Sequence

from ...errors import BuildError
from ...model import Option, Question
from ..order import option_order as option_order_of


class SelectionError(BuildError):
    """The filters leave no questions, or fewer than asked for."""


def letter(index: int) -> str:
    """A, B, ..., Z for options and versions."""
    return ascii_uppercase[index]


@dataclass(frozen=True)
class Placed:
    """A question as one version prints it: ``order`` lists indices into its options, in print order."""

    question: Question
    order: tuple[int, ...]

    @property
    def options(self) -> list[Option]:
        return [self.question.options[i] for i in self.order]

    def letter_of(self, option_index: int) -> str:
        """The letter the option ``question.options[option_index]`` carries in this version."""
        return letter(self.order.index(option_index))

    @property
    def correct_letters(self) -> str:
        """'B' or, for several correct options, 'A,C'."""
        return ",".join(letter(i) for i, option in enumerate(self.options) if option.correct)


@dataclass(frozen=True)
class Version:
    letter: str
    placed: tuple[Placed, ...]

    def number_of(self, question: Question) -> int:
        """1-based position of ``question`` on this version's sheet."""
        return next(n for n, p in enumerate(self.placed, 1) if p.question.id == question.id)


def select(questions: Sequence[Question], *, tags: Sequence[str] = (), difficulty: Optional[int] = None,
           count: Optional[int] = None, seed: int = 0) -> list[Question]:
    """The questions matching every filter (any of ``tags``), in teaching order.

    With ``count`` below the number that match, a seeded sample of them, still in
    teaching order.
    """
    matching = [q for q in questions if _matches(q, tags, difficulty)]
    wanted = len(matching) if count is None else count
    if not matching or wanted > len(matching):
        raise SelectionError(_shortfall(len(matching), count, tags, difficulty))
    if wanted == len(matching):
        return matching
    picked = random.Random(f"{seed}:select").sample(range(len(matching)), wanted)
    return [matching[i] for i in sorted(picked)]


def make_versions(questions: Sequence[Question], count: int, seed: int) -> list[Version]:
    """Versions A, B, ...: each a shuffle of the question order and of every question's options."""
    return [_shuffled(questions, letter(n), seed) for n in range(count)]


def _shuffled(questions: Sequence[Question], version: str, seed: int) -> Version:
    rng = random.Random(f"{seed}:{version}")
    question_order = list(range(len(questions)))
    rng.shuffle(question_order)
    placed = []
    for index in question_order:
        question = questions[index]
        option_order = list(option_order_of(question.id, question.kind, question.options))
        if question.kind != "truefalse":  # always 'True', then 'False'
            rng.shuffle(option_order)
        placed.append(Placed(question, tuple(option_order)))
    return Version(version, tuple(placed))


def _matches(question: Question, tags: Sequence[str], difficulty: Optional[int]) -> bool:
    if tags and not set(tags) & set(question.tags):
        return False
    return difficulty is None or question.difficulty == difficulty


def _shortfall(matching: int, count: Optional[int], tags: Sequence[str], difficulty: Optional[int]) -> str:
    filters = []
    if tags:
        filters.append(f"tag {' or '.join(tags)}")
    if difficulty is not None:
        filters.append(f"difficulty {difficulty}")
    scope = f" ({', '.join(filters)})" if filters else ""
    if matching == 0:
        return f"0 questions match the filters{scope}" if filters else "the course holds no questions (0 match)"
    return f"asked for {count} questions but only {matching} match the filters{scope}"
