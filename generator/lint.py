"""Content quality beyond the schema: translations, teaching completeness, and items that give
nothing away (no hand-written 'select all' hint, true/false keys balanced, the correct option not
the longest by habit)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator

from pydantic import BaseModel

from .model import Course
from .text import Text


@dataclass(frozen=True)
class Finding:
    where: str
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.field}: {self.message}"


def missing_translations(item: BaseModel) -> list[str]:
    """Field paths inside ``item`` whose text has no Chinese translation."""
    return [path for path, text in texts_of(item) if text.missing()]


def texts_of(item: BaseModel, prefix: str = "") -> Iterator[tuple[str, Text]]:
    """Every text inside ``item`` with its field path (``options[2].why``)."""
    for name in type(item).model_fields:
        yield from _walk(getattr(item, name), f"{prefix}{name}")


def _walk(value, path: str) -> Iterator[tuple[str, Text]]:
    if isinstance(value, Text):
        yield path, value
    elif isinstance(value, BaseModel):
        yield from texts_of(value, path + ".")
    elif isinstance(value, (list, tuple)):
        for index, entry in enumerate(value):
            yield from _walk(entry, f"{path}[{index}]")


# Words that belong to the authors' side: where a claim was first read, how a check is written. A learner,
# a student or a room never sees them (torch's own "seed" and the chatbot of a scenario are fine).
_AUTHORING = re.compile(r"\bseed (?:chat|conversation|notes?|documents?|notebook|article)s?\b|\bsource notes?\b"
                        r"|\ban? (?:absent|missing|weak) check\b|\bchecked with\b|\bthe fact's check\b"
                        r"|种子(?:对话|文档|笔记|文章)|原始对话|聊天记录|教程对话", re.IGNORECASE)


def authoring_findings(course: Course) -> list[Finding]:
    """Authoring notes in any text of a card, question or lesson, in either language."""
    findings: list[Finding] = []
    for module in course.modules:
        for section in ("cards", "questions", "lessons"):
            for item in getattr(module, section):
                for path, text in texts_of(item):
                    match = next(filter(None, (_AUTHORING.search(t or "") for t in (text.en, text.zh))), None)
                    if match:
                        findings.append(Finding(str(course.where(item.id, section)), f"{item.id}.{path}",
                                                f"'{match.group(0)}' is an authoring note: learners, students "
                                                "and rooms never see where a claim was read or how it is checked"))
    return findings


def lint(course: Course) -> list[Finding]:
    findings: list[Finding] = []
    for module in course.modules:
        for field in ("title", "summary"):
            value = getattr(module, field)
            if value is None or value.missing():
                findings.append(Finding(module.module, field, "missing" if value is None else "no zh translation"))
        for section in ("facts", "cards", "questions", "lessons"):
            for item in getattr(module, section):
                where = str(course.where(item.id, section))
                for path in missing_translations(item):
                    findings.append(Finding(where, f"{item.id}.{path}", "no zh translation"))
        for lesson in module.lessons:
            where = str(course.where(lesson.id, "lessons"))
            for field in ("notes", "ask"):
                if getattr(lesson, field) is None:
                    findings.append(Finding(where, f"{lesson.id}.{field}", "a lesson needs speaker notes and a question for the room"))
    return findings + item_findings(course) + statement_findings(course) + authoring_findings(course)


def statement_findings(course: Course) -> list[Finding]:
    """Fact parts of learner texts (before ``ℹ``) that state what no cited fact supports: a number none
    of them mentions, or GPU behaviour where none of them needs a GPU."""
    from . import statements

    findings: list[Finding] = []
    for text in statements.texts(course):
        where, field = str(course.where(text.item.id, text.section)), f"{text.item.id}.{text.field}"
        numbers = statements.number_findings(course, text)
        if numbers:
            findings.append(Finding(where, field, f"states {', '.join(numbers)}, which no fact it cites mentions: "
                                    "cite the fact that checks it, or move the sentence after ℹ (explanation)"))
        word = statements.gpu_finding(course, text)
        if word:
            findings.append(Finding(where, field, f"describes GPU behaviour ('{word}') but cites no fact that needs "
                                    "a GPU: cite the GPU fact, or move the sentence after ℹ (explanation)"))
    return findings


# A hand-written "select all" hint: the outputs add their own, in one phrasing, where it applies.
_HINT = re.compile(r"\b(select|choose|pick|mark|tick)\s+(all|every)\b|all that apply|多选|选出所有", re.I)
TRUE_SHARE = (0.40, 0.60)  # of true/false questions keyed True
LONGEST_SHARE = 0.35  # of single-answer items whose correct option is strictly the longest
_MIN_ITEMS = 10  # below this many items a share says nothing


def item_findings(course: Course) -> list[Finding]:
    """Items that give their answer away: one finding per item, or per course-wide share out of bounds."""
    findings: list[Finding] = []
    for module in course.modules:
        asked = [("questions", q, q.stem) for q in module.questions]
        asked += [("cards", c, c.question) for c in module.cards if c.kind == "mcq"]
        for section, item, text in asked:
            if any(_HINT.search(t) for t in (text.en, text.zh or "")):
                findings.append(Finding(str(course.where(item.id, section)), f"{item.id}", "a hand-written 'select "
                                        "all that apply' hint: the outputs add one themselves, remove it"))
    questions = [q for m in course.modules for q in m.questions]
    true_false = [q for q in questions if q.kind == "truefalse"]
    if len(true_false) >= _MIN_ITEMS:
        keyed_true = [q for q in true_false if _correct(q)[0].text.en.strip().lower() == "true"]
        share = len(keyed_true) / len(true_false)
        if not TRUE_SHARE[0] <= share <= TRUE_SHARE[1]:
            findings.append(Finding("content", "true/false questions", f"{len(keyed_true)} of {len(true_false)} are "
                                    f"keyed True ({share:.0%}); keep it between {TRUE_SHARE[0]:.0%} and "
                                    f"{TRUE_SHARE[1]:.0%}"))
    singles = {"questions": [q for q in questions if q.kind == "single"],
               "MCQ cards": [c for m in course.modules for c in m.cards
                             if c.kind == "mcq" and len(_correct(c)) == 1]}
    for what, items in singles.items():
        longest = [item.id for item in items if _correct_is_longest(item)]
        if len(items) >= _MIN_ITEMS and len(longest) / len(items) > LONGEST_SHARE:
            findings.append(Finding("content", f"single-answer {what}", f"the correct option is strictly the "
                                    f"longest in {len(longest)} of {len(items)} ({len(longest) / len(items):.0%}; at "
                                    f"most {LONGEST_SHARE:.0%}): {', '.join(longest[:12])}"
                                    + (" ..." if len(longest) > 12 else "")))
    return findings


def _correct(item) -> list:
    return [o for o in item.options if o.correct]


def _correct_is_longest(item) -> bool:
    (right,) = _correct(item)
    return all(len(right.text.en) > len(o.text.en) for o in item.options if o is not right)
