"""A workshop slide's own headline: what a table or a code sample says, never its lesson's title again.

A lesson's points slide carries the lesson's title; its table slide and code slides each say their own
point. A table is headed by its ``headline``, or by the takeaway's checked part where that is short enough
for a title; a code sample by its ``caption``. ``headline_findings`` names every slide of a workshop that
would otherwise repeat its lesson's title, for the author to write it one.
"""
from __future__ import annotations

import unicodedata
from typing import Optional

from .markup import split_explanation
from .model import Course, Lesson

HEADLINE_COLUMNS = 90  # a takeaway longer than this (CJK characters count twice) is no headline


def display_width(text: str) -> int:
    """Columns ``text`` takes: a CJK or full-width character counts as two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def table_headline(lesson: Lesson, lang: str) -> Optional[str]:
    """The headline of the lesson's table slide in ``lang``: its own, else the takeaway's checked part where
    it fits a title; None where it has neither (a game's tables are headed by the game's title)."""
    table = lesson.table
    if table is not None and table.headline is not None:
        return table.headline.get(lang)
    fact = split_explanation(lesson.takeaway.get(lang))[0].strip() if lesson.takeaway else ""
    return fact if fact and display_width(fact) <= HEADLINE_COLUMNS else None


def headline_findings(course: Course) -> list[tuple[str, str, str]]:
    """(where, field, message) for each table or code sample a workshop shows under no headline of its own."""
    taught = {lesson_id for workshop in course.workshops for lesson_id in workshop.lesson_ids}
    found = []
    for lesson in course.lessons:
        if lesson.id not in taught:
            continue
        where = str(course.where(lesson.id, "lessons"))
        if lesson.table is not None and not lesson.game:
            for lang in ("en", "zh"):
                if table_headline(lesson, lang) is None:
                    found.append((where, f"{lesson.id}.table.headline",
                                  f"its slide in a workshop would repeat the lesson's title ({lang}: the takeaway is "
                                  f"too long for a title); give the table a headline of its own"))
                    break
        for number, example in enumerate(lesson.code):
            if example.caption is None:
                found.append((where, f"{lesson.id}.code[{number}].caption",
                              "its slide in a workshop would repeat the lesson's title; give the sample a caption "
                              "that says what it shows"))
    return found
