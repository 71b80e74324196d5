"""What the handout adds to the lessons: the cheat table of the flags they teach, their diagrams, and the
one mark and note that say what was not verified here.

A row of the cheat table is a lesson's ``flags`` entry: the flag, the default that the check of its
``default`` fact asserts (``defaults.asserted_default``: never a value typed into the table), and when to
change it. A row is printed only where its default's fact passed in this build and none of the facts
behind its advice failed; one whose advice rests on a fact not verified here carries ``MARK``, as does a
lesson or a question resting on one. The one note under the handout's title says what ``MARK`` means.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ...defaults import asserted_default
from ...diagrams import CARD, Variant, card_diagram_png
from ...diagrams.layouts import MIN_LABEL
from ...model import FlagRow, Lesson
from ...wording import words as all_words
from ..base import RenderJob
from ..typesetting import rich

MARK = "†"
MIN_LABEL_PT = 8.0  # the smallest label of a printed diagram: legible on paper
POINTS_PER_MM = 72 / 25.4
DIAGRAM_MM = math.ceil(CARD.width * MIN_LABEL_PT / MIN_LABEL / POINTS_PER_MM)  # as wide as keeps every label >= MIN_LABEL_PT


@dataclass(frozen=True)
class CheatRow:
    flag: str
    default: str  # as Python prints it: False, 10, 'none'
    change: list  # the row's advice as ``rich`` segments
    facts: tuple[str, ...]  # its default's fact, then those of its advice
    marked: bool

    @property
    def data(self) -> dict:
        return {"flag": self.flag, "default": self.default, "change": self.change, "marked": self.marked}


def cheat_rows(job: RenderJob, lessons: list[Lesson]) -> list[CheatRow]:
    """A row per flag the lessons teach (the first lesson's entry of a flag taught twice), in teaching order."""
    rows: list[CheatRow] = []
    for lesson in lessons:
        for row in lesson.flags:
            if row.flag in {r.flag for r in rows} or not _stands(job, row):
                continue
            default = asserted_default(job.course.fact(row.default).check, row.flag)
            rows.append(CheatRow(row.flag, str(default), rich(job.t(row.change)), (row.default, *row.facts),
                                 bool(job.unverified_note(row.facts))))
    return rows


def _stands(job: RenderJob, row: FlagRow) -> bool:
    """Whether the row may be printed: its default's fact passed here, no fact of its advice failed."""
    results = job.verification.results
    default = results.get(row.default)
    return default is not None and default.status == "pass" and \
        all(results[f].status not in ("fail", "error") for f in row.facts if f in results)


def marked_note(job: RenderJob, items, rows: list[CheatRow]) -> str:
    """The one note on verification: what ``MARK`` stands for, with what the marked parts lacked here; ''
    where nothing is marked."""
    facts = [fact for item in items for fact in item.facts] + [fact for row in rows for fact in row.facts[1:]]
    note = job.unverified_note(dict.fromkeys(facts))
    if not note:
        return ""
    return all_words(job.lang)["workshop"]["handout"]["marked"].format(mark=MARK, note=note,
                                                                       torch=job.verification.torch)


def diagrams_of(job: RenderJob, lessons: list[Lesson]) -> list[list[dict]]:
    """Per lesson, the diagrams it is the first of the lessons to need, drawn in the job's language: ``{png:
    [bytes as numbers] (Typst reads bytes from JSON so), width: millimetres}``."""
    drawn: set[str] = set()
    out = []
    for lesson in lessons:
        new = [name for name in lesson.diagrams if name not in drawn]
        drawn.update(new)
        out.append([{"png": list(card_diagram_png(name, job.course, Variant(job.lang, night=False))),
                     "width": DIAGRAM_MM} for name in new])
    return out
