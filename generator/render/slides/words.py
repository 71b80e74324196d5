"""The slides' phrases (from the one wording table) and the minutes their fixed slides take."""
from __future__ import annotations

from ...wording import lessons_and_minutes
from ...wording import words as _words

__all__ = ["MINUTES", "lessons_and_minutes", "words"]


MINUTES = {"outline": 3, "map": 2, "section": 1, "diagram": 2, "quiz": 1, "answer": 2, "review": 2,
           "cheat": 3, "flash": 5}


def words(lang: str) -> dict:
    return _words(lang)["slides"]
