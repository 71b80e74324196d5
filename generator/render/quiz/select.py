"""Which questions a quiz holds, and in which order each version prints them.

Pure functions of the modules' questions and the seed. Every draw comes from a
``random.Random`` seeded with a string (``"7:B"`` for version B of seed 7), never
from the global generator, so a seed gives the same versions on any machine and
in any process.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Optional, Sequence

from ...errors import BuildError
from ...model import Module, Option, Question
from ..order import letter
from ..order import option_order as option_order_of


class SelectionError(BuildError):
    """The quiz cannot be made as asked: the filters leave no questions, fewer than asked for, or fewer
    that can share a sheet; or its name cannot name files. The command line exits 2 with it."""



@dataclass(frozen=True)
class PrintedQuestion:
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
    placed: tuple[PrintedQuestion, ...]

    def number_of(self, question: Question) -> int:
        """1-based position of ``question`` on this version's sheet."""
        return next(n for n, p in enumerate(self.placed, 1) if p.question.id == question.id)


def select(modules: Sequence[Module], *, tags: Sequence[str] = (), difficulty: Optional[int] = None,
           count: Optional[int] = None, per_module: Optional[int] = None, limit: Optional[int] = None,
           seed: int = 0) -> list[Question]:
    """The questions of ``modules`` matching every filter (any of ``tags``), in teaching order.

    Never two questions that test one fact: a question citing a fact an earlier pick cites is
    passed over. The picks take turns across the modules (in a seeded order), and each module
    offers the difficulty drawn least so far, so ``count`` spreads over modules and levels;
    ``per_module`` asks for that many from every module with matching questions. Without
    either, every question that can share the sheet, or at most ``limit`` of them, picked as
    ``count`` picks (fewer where fewer can share the sheet: no error, unlike ``count``).
    """
    pools = [(m.name, [q for q in m.questions if _matches(q, tags, difficulty)]) for m in modules]
    pools = [(name, found) for name, found in pools if found]
    matching = sum(len(found) for _, found in pools)
    if not matching or (count or 0) > matching:
        raise SelectionError(_shortfall(matching, count, tags, difficulty))
    wanted = count or (per_module * len(pools) if per_module else min(limit or matching, matching))
    by_module = _take_turns(pools, wanted, per_module, random.Random(f"{seed}:select"))
    _check_met(by_module, count, per_module, matching)
    chosen = {q.id for picks in by_module.values() for q in picks}
    return [q for _, found in pools for q in found if q.id in chosen]


def _take_turns(pools, wanted: int, per_module: Optional[int], rng: random.Random) -> dict[str, list[Question]]:
    """Round after round, each module (seeded order) adds one question, until ``wanted`` or none can:
    ``{module: its picks}``."""
    queues = {name: rng.sample(found, len(found)) for name, found in pools}
    turns = [name for name, _ in pools]
    rng.shuffle(turns)
    picked: dict[str, list[Question]] = {name: [] for name in turns}
    levels: dict[int, int] = {}
    facts: set[str] = set()
    total = 0
    while total < wanted:
        before = total
        for name in turns:
            if total == wanted or len(picked[name]) == (per_module or wanted):
                continue
            question = _least_drawn_level(queues[name], facts, levels)
            if question is None:
                continue
            queues[name].remove(question)
            picked[name].append(question)
            total += 1
            levels[question.difficulty] = levels.get(question.difficulty, 0) + 1
            facts.update(question.facts)
        if total == before:
            break
    return picked


def _least_drawn_level(queue: list[Question], facts: set[str], levels: dict[int, int]) -> Optional[Question]:
    """The first question in ``queue`` that tests no fact already on the sheet, of the difficulty drawn least;
    among those, one citing fewest facts (it blocks fewest others)."""
    free = [q for q in queue if not facts.intersection(q.facts)]
    return min(free, key=lambda q: (levels.get(q.difficulty, 0), len(q.facts)), default=None)


def _check_met(by_module: dict[str, list[Question]], count: Optional[int], per_module: Optional[int],
               matching: int) -> None:
    """A SelectionError saying how many can be had where the picks fall short of the request."""
    rule = "at most one question per fact"
    picked = sum(len(picks) for picks in by_module.values())
    if per_module:
        short = [f"{name} {len(picks)}" for name, picks in by_module.items() if len(picks) < per_module]
        if short:
            raise SelectionError(f"asked for {per_module} questions per module but only these can be picked "
                                 f"({rule}): {', '.join(short)}")
    if count and picked < count:
        raise SelectionError(f"asked for {count} questions but only {picked} of the {matching} that match "
                             f"can share a sheet ({rule})")


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
        placed.append(PrintedQuestion(question, tuple(option_order)))
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
