"""Styled text for slides, before any format: spans and paragraphs, and the typefaces they are
measured in (``drawingml`` writes them as PowerPoint XML)."""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Optional, cast

from ... import colour
from ...markup import segments
from . import fit


@dataclass(frozen=True)
class Typefaces:
    """The font families of a deck: text (from the template's theme) and code."""

    latin: str
    ea: str
    mono: str = "DejaVu Sans Mono"
    mono_ea: str = "Noto Sans Mono CJK SC"
    east_asian: bool = False  # a Chinese deck: every line is as tall as the East Asian font needs


@dataclass(frozen=True)
class Span:
    """A run of text in one style; ``colour`` is a theme colour name (``accent3``) or ``RRGGBB``."""

    text: str
    mono: bool = False
    bold: bool = False
    italic: bool = False
    colour: Optional[str] = None
    link: Optional[str] = None  # an http(s) address the run opens when clicked


@dataclass(frozen=True)
class Para:
    """A paragraph: spans at one size. ``margin`` (pt) is the left indent; a bullet hangs left of it."""

    spans: tuple[Span, ...]
    size: float
    bullet: Optional[str] = None
    margin: float = 0.0
    before: float = 0.0
    align: str = "l"
    keep: bool = False  # stays on the slide of the paragraph before it (a reason with its option, a source line)
    clip: bool = False  # whole where its slide has room, else shortened a line at a time (``Flow._clip_block``)
    topic: str = ""  # what it is about, in a word or two (a take-away's module): names the slide it falls on

    @property
    def text(self) -> str:
        return "".join(s.text for s in self.spans)

    def cut(self, offset: int) -> tuple["Para", "Para"]:
        """The paragraph split at a character offset; the second half continues without a bullet."""
        head, tail, seen = [], [], 0
        for span in self.spans:
            end = seen + len(span.text)
            if end <= offset:
                head.append(span)
            elif seen >= offset:
                tail.append(span)
            else:
                head.append(replace(span, text=span.text[:offset - seen]))
                tail.append(replace(span, text=span.text[offset - seen:]))
            seen = end
        return replace(self, spans=tuple(head)), replace(self, spans=tuple(tail), bullet=None, before=0.0, keep=False)


def inline(text: str, **style) -> tuple[Span, ...]:
    """Spans of ``text`` where `backticked` parts are set in the mono font and an explanation
    (from ``ℹ`` on) in italics, muted."""
    explained = {**style, "italic": True, "colour": style.get("colour") or "tx2"}
    spans = [Span(s.text, mono=s.code, **(explained if s.explain else style)) for s in segments(text)]
    return tuple(spans) or (Span(" ", **style),)


def fontset(span: Span, faces: Typefaces) -> fit.FontSet:
    if span.mono:
        return fit.FontSet(faces.mono, faces.mono_ea, span.bold)
    return fit.FontSet(faces.latin, faces.ea, span.bold)


def pieces(para: Para, faces: Typefaces) -> list[tuple[str, fit.FontSet]]:
    return [(s.text, fontset(s, faces)) for s in para.spans]


def line_pt(para: Para, faces: Typefaces) -> float:
    """The exact line spacing of ``para`` in points (to the 1/100 pt DrawingML stores)."""
    return math.ceil(para.size * fit.line_em(pieces(para, faces), faces.east_asian) * 100) / 100


# ------------------------------------------------------------------ code
def code_lines(code: str, language: str) -> list[tuple[Span, ...]]:
    """Source code as one tuple of coloured mono spans per line (``colour.slide`` palette)."""
    return [tuple(Span(text, mono=True, bold=look.bold, italic=look.italic, colour=look.colour or None)
                  for text, look in cast(list[tuple[str, colour.Look]], line)) or (Span(" ", mono=True),)
            for line in colour.lines(code, language, colour.slide)]
