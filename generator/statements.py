"""The statements learners read, split into what the cited facts prove and what is explanation.

A statement is a sentence of a text that answers or teaches: a card's answer, an option's
why, a lesson's point, table row or takeaway. The part of a text before ``ℹ`` states fact
(its item's cited facts must entail it); from ``ℹ`` on it explains or advises (``markup``).
An analogy, and a game's row (what to pick where), is explanation by its nature. ``lint`` checks the fact part mechanically
(numbers, GPU behaviour); ``counts`` gives the totals the README states per output.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterator

from .markup import cloze_answers, split_explanation

OUTPUTS = ("anki", "slides", "quiz")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(\"'0-9])|(?<=[。！？])")


@dataclass(frozen=True)
class LearnerText:
    """One text of an item that states or explains, and the outputs that show it."""

    section: str  # cards, questions, lessons
    item: Any  # a card, a question or a lesson
    field: str  # e.g. "options[2].why", "points[0]"
    en: str
    outputs: tuple[str, ...]
    explanation_only: bool = False  # an analogy or a game's row: explanation whatever it says

    @property
    def parts(self) -> tuple[str, str]:
        if self.explanation_only:
            return "", self.en
        return split_explanation(self.en)


def texts(course) -> Iterator[LearnerText]:
    """Every stating text of the course's cards, questions and lessons (English)."""
    for module in course.modules:
        for card in module.cards:
            yield from _card_texts(card)
        for question in module.questions:
            for index, option in enumerate(question.options):
                yield LearnerText("questions", question, f"options[{index}].why", option.why.en, ("slides", "quiz"))
        for lesson in module.lessons:
            for index, point in enumerate(lesson.points):
                yield LearnerText("lessons", lesson, f"points[{index}]", point.en, ("slides",))
            if lesson.table:
                for row_index, row in enumerate(lesson.table.rows):
                    line = "; ".join(cell.en for cell in row)
                    yield LearnerText("lessons", lesson, f"table.rows[{row_index}]", line, ("slides",),
                                      explanation_only=lesson.game)
            if lesson.takeaway:
                yield LearnerText("lessons", lesson, "takeaway", lesson.takeaway.en, ("slides",))
            if lesson.analogy:
                yield LearnerText("lessons", lesson, "analogy", lesson.analogy.en, ("slides",), explanation_only=True)
            for index, row in enumerate(lesson.flags):  # a handout's cheat table, which counts no statements
                yield LearnerText("lessons", FlagCited(lesson.id, (row.default, *row.facts)), f"flags[{index}].change",
                                  row.change.en, ())


@dataclass(frozen=True)
class FlagCited:
    """A cheat-table row as the statement checks read an item: its lesson's id and the facts the row cites."""

    id: str
    facts: tuple[str, ...]


def _card_texts(card) -> Iterator[LearnerText]:
    anki = ("anki",)
    if card.kind in ("basic", "reverse", "code"):
        yield LearnerText("cards", card, "back", card.back.en, anki)
    elif card.kind == "cloze":
        yield LearnerText("cards", card, "text", cloze_answers(card.text.en), anki)
        if card.back_extra:
            yield LearnerText("cards", card, "back_extra", card.back_extra.en, anki)
    elif card.kind == "mcq":
        for index, option in enumerate(card.options):
            yield LearnerText("cards", card, f"options[{index}].why", option.why.en, anki)
    if card.extra:
        yield LearnerText("cards", card, "extra", card.extra.en, anki)


def sentences(text: str) -> list[str]:
    return [s for s in (part.strip() for part in _SENTENCE_END.split(text)) if s]


def counts(course) -> dict[str, tuple[int, int]]:
    """``{output: (proven statements, explanation statements)}``."""
    totals = {output: [0, 0] for output in OUTPUTS}
    for text in texts(course):
        fact, explanation = text.parts
        for output in text.outputs:
            totals[output][0] += len(sentences(fact))
            totals[output][1] += len(sentences(explanation))
    return {output: (proven, explained) for output, (proven, explained) in totals.items()}


# ------------------------------------------------------------------ lint
# A number as a reader sees one (not the 16 of float16); in fact texts, any run of digits counts.
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)*(?![\w])")
_DIGITS = re.compile(r"\d+(?:\.\d+)*")
_TRIVIAL = {"0", "1", "2"}
# Words that describe how GPU hardware behaves (speed, architectures, tensor cores).
_GPU_BEHAVIOUR = re.compile(r"\b(Ampere|Hopper|Volta|Turing|Blackwell|Tensor Cores?|A100|H100|V100|speed-?ups?|"
                            r"faster|slower|throughput)\b", re.I)
GPU_CAPABILITIES = ("cuda", "cudnn", "mps")


def number_findings(course, text: LearnerText) -> list[str]:
    """Numbers the fact part states that none of the item's cited facts (nor its own prompt) mentions."""
    fact, _ = text.parts
    stated = {n for n in _NUMBER.findall(fact) if n not in _TRIVIAL}
    if not stated:
        return []
    known = set(_DIGITS.findall(_evidence(course, text.item)))
    return sorted(stated - known, key=lambda n: fact.find(n))


def gpu_finding(course, text: LearnerText) -> str:
    """The GPU-behaviour word the fact part uses where no cited fact needs a GPU; '' otherwise."""
    fact, _ = text.parts
    found = _GPU_BEHAVIOUR.search(fact)
    if not found:
        return ""
    cited = [course.fact(f) for f in text.item.facts if f in course.defined_ids("facts")]
    if any(set(f.requires) & set(GPU_CAPABILITIES) for f in cited):
        return ""
    return found.group(0)


def _evidence(course, item) -> str:
    """What an item's numbers may come from: its cited facts (claim, check, release range)
    and its own prompt (front, question, stem, code, title)."""
    import json

    parts = []
    for fact_id in item.facts:
        if fact_id not in course.defined_ids("facts"):
            continue
        fact = course.fact(fact_id)
        # not the control: it states what would be seen were the claim false
        parts += [fact.claim.en, fact.claim.zh or "", json.dumps(fact.check.as_dict()), fact.torch or ""]
    for name in ("front", "question", "stem", "title", "text"):
        value = getattr(item, name, None)
        if value is not None and hasattr(value, "en"):
            parts.append(value.en)
    value = getattr(item, "code", None)
    if isinstance(value, list):
        parts += [example.code_in("en") for example in value]
    elif value is not None:
        parts.append(item.code_in("en"))
    return "\n".join(parts)
