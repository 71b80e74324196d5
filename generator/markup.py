"""The prose markup every output reads, parsed here and nowhere else.

- ```code``` : a pair of backticks on one line encloses inline code; a backtick without a partner
  on its line is just a backtick.
- ``{{c1::answer}}`` / ``{{c1::answer::hint}}`` : a cloze deletion (Anki's own syntax).
- ``ℹ`` : everything from the first ``ℹ`` to the end of a text explains or advises; it is not
  entailed by the facts its item cites. Every output sets it apart (italic, muted) and keeps
  the ``ℹ``, so a learner can tell proven from advice; lint and the statement counts read the
  same split.

``segments(text)`` gives ``Segment``s that each output turns into its own format (HTML, DrawingML
runs, Typst content), so an odd input renders the same everywhere.
"""
from __future__ import annotations

import re
from typing import NamedTuple

EXPLAIN = "ℹ"
CODE_SPAN = re.compile(r"`([^`\n]+)`")
CLOZE = re.compile(r"\{\{c(\d+)::(.*?)(?:::(.*?))?\}\}")  # number, answer, hint
CLOZE_OPEN = re.compile(r"\{\{c(\d+)::")


class Segment(NamedTuple):
    """A run of a text: inline code or prose, in the explanation or not (a tuple: a deck makes tens of thousands)."""

    text: str
    code: bool = False
    explain: bool = False


def split_explanation(text: str) -> tuple[str, str]:
    """``(fact part, explanation)``; the explanation starts with ``ℹ`` and is '' where there is none.
    The fact part keeps what separates it from the ``ℹ`` (a space in English, nothing after 。)."""
    at = text.find(EXPLAIN)
    if at < 0:
        return text, ""
    return text[:at], text[at:]


def is_plain(text: str) -> bool:
    """Whether ``text`` is all prose: no code, no explanation (``segments`` gives it whole, if it is not empty)."""
    return "`" not in text and EXPLAIN not in text


def checked_part(text: str) -> str:
    """What a one-line reason says of a text (an option's why): its fact part, or where the text is all
    explanation, the explanation without its ``ℹ``."""
    fact, explanation = split_explanation(text)
    return fact.strip() or explanation.lstrip(EXPLAIN).strip()


def segments(text: str) -> list[Segment]:
    """``text`` as plain and code segments, those of the explanation marked; nothing is added or lost."""
    if is_plain(text):  # most texts
        return [Segment(text)] if text else []
    fact, explanation = split_explanation(text)
    return _code_segments(fact, False) + _code_segments(explanation, True) if explanation else _code_segments(fact, False)


def _code_segments(text: str, explain: bool) -> list[Segment]:
    """The prose and code runs of ``text``: ``CODE_SPAN.split`` gives them in turn, prose first (an empty
    prose run, between two spans or at an end, is no segment)."""
    return [Segment(part, index % 2 == 1, explain) for index, part in enumerate(CODE_SPAN.split(text)) if part]


def cloze_answers(text: str) -> str:
    """A cloze text with every deletion replaced by its answer."""
    return CLOZE.sub(r"\2", text)


def cloze_blanks(text: str, blank: str) -> str:
    """A cloze text with every deletion replaced by ``blank``."""
    return CLOZE.sub(blank, text)


def has_cloze(text: str) -> bool:
    return bool(CLOZE_OPEN.search(text))
