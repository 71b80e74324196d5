"""The slides' phrases (from the one wording table) and the minutes their fixed slides take."""
from __future__ import annotations

from ...wording import words as _words


MINUTES = {"outline": 3, "map": 2, "section": 1, "diagram": 2, "quiz": 1, "answer": 2, "review": 2,
           "cheat": 3, "flash": 5}


def words(lang: str) -> dict:
    return _words(lang)["slides"]


def lessons_and_minutes(lang: str, lessons: int, minutes: int) -> str:
    """'3 lessons · 24 min' (one line of the outline)."""
    one, many = _words(lang)["lessons_minutes"]
    return (one if lessons == 1 else many).format(lessons=lessons, minutes=minutes)
