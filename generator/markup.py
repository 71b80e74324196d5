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
from dataclasses import dataclass

EXPLAIN = "ℹ"
CODE_SPAN = re.compile(r"`([^`\n]+)`")
CLOZE = re.compile(r"\{\{c(\d+)::(.*?)(?:::(.*?))?\}\}")  # number, answer, hint
CLOZE_OPEN = re.compile(r"\{\{c(\d+)::")


@dataclass(frozen=True)
class Segment:
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


def checked_part(text: str) -> str:
    """What a one-line reason says of a text (an option's why): its fact part, or where the text is all
    explanation, the explanation without its ``ℹ``."""
    fact, explanation = split_explanation(text)
    return fact.strip() or explanation.lstrip(EXPLAIN).strip()


def segments(text: str) -> list[Segment]:
    """``text`` as plain and code segments, those of the explanation marked; nothing is added or lost."""
    fact, explanation = split_explanation(text)
    return _code_segments(fact, False) + _code_segments(explanation, True)


def _code_segments(text: str, explain: bool) -> list[Segment]:
    out, position = [], 0
    for match in CODE_SPAN.finditer(text):
        if match.start() > position:
            out.append(Segment(text[position:match.start()], explain=explain))
        out.append(Segment(match[1], code=True, explain=explain))
        position = match.end()
    if position < len(text):
        out.append(Segment(text[position:], explain=explain))
    return out


def cloze_answers(text: str) -> str:
    """A cloze text with every deletion replaced by its answer."""
    return CLOZE.sub(r"\2", text)


def cloze_blanks(text: str, blank: str) -> str:
    """A cloze text with every deletion replaced by ``blank``."""
    return CLOZE.sub(blank, text)


def has_cloze(text: str) -> bool:
    return bool(CLOZE_OPEN.search(text))
