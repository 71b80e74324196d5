"""Styled text for slides: spans and paragraphs, and the DrawingML XML they become.

Every run names both its Latin font (``a:latin``) and its East Asian font
(``a:ea``), which python-pptx has no API for: without ``a:ea`` PowerPoint draws
Chinese in whatever font the system picks, and lines measured in Noto Sans CJK
would no longer fit. Line spacing is written as exact points (the height the
fit module measured), so every application stacks lines the same way.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Optional, Sequence
from xml.sax.saxutils import escape

from pygments.styles import get_style_by_name

from .. import highlight
from . import fit
from ..markup import split_explanation

EMU_PER_PT = 12700
BULLET_HANG = 18.0  # pt a bullet hangs left of its paragraph's margin
CODE_STYLE = "default"  # Pygments style: colours meant for a light grey box
_XML_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_INLINE_CODE = re.compile(r"`([^`]+)`")


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


@dataclass(frozen=True)
class Para:
    """A paragraph: spans at one size. ``margin`` (pt) is the left indent; a bullet hangs left of it."""

    spans: tuple[Span, ...]
    size: float
    bullet: Optional[str] = None
    margin: float = 0.0
    before: float = 0.0
    align: str = "l"

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
        return replace(self, spans=tuple(head)), replace(self, spans=tuple(tail), bullet=None, before=0.0)


def inline(text: str, **style) -> tuple[Span, ...]:
    """Spans of ``text`` where `backticked` parts are set in the mono font and an explanation
    (from ``ℹ`` on) in italics, muted."""
    fact, explanation = split_explanation(text)
    spans = []
    for part_text, part_style in ((fact, style), (explanation, {**style, "italic": True, "colour": style.get("colour") or "tx2"})):
        if spans and part_text:
            part_text = " " + part_text
        for index, part in enumerate(_INLINE_CODE.split(part_text)):
            if part:
                spans.append(Span(part, mono=index % 2 == 1, **part_style))
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
    """Source code as one tuple of coloured mono spans per line (Pygments tokens, same styles merged)."""
    style = get_style_by_name(CODE_STYLE)
    lines: list[list[Span]] = [[]]
    for token, value in highlight.tokens(code.expandtabs(4).rstrip("\n"), language):
        look = style.style_for_token(token)
        for number, part in enumerate(value.split("\n")):
            if number:
                lines.append([])
            if part:
                _append(lines[-1], Span(part, mono=True, bold=look["bold"], italic=look["italic"],
                                        colour=look["color"]))
    return [tuple(line) or (Span(" ", mono=True),) for line in lines]


def _append(line: list[Span], span: Span) -> None:
    last = line[-1] if line else None
    if last and (last.bold, last.italic, last.colour) == (span.bold, span.italic, span.colour):
        line[-1] = replace(last, text=last.text + span.text)
    else:
        line.append(span)


# ------------------------------------------------------------------- XML
def clean(text: str) -> str:
    return escape(_XML_UNSAFE.sub("", text))


def fill(colour: Optional[str]) -> str:
    """A solid fill: ``RRGGBB``, a theme colour (``accent3``) or a tint of one (``accent5:15``, 15 %)."""
    if not colour:
        return ""
    if re.fullmatch(r"[0-9A-Fa-f]{6}", colour):
        return f'<a:solidFill><a:srgbClr val="{colour.upper()}"/></a:solidFill>'
    name, _, percent = colour.partition(":")
    if percent:
        shade = int(percent) * 1000
        return (f'<a:solidFill><a:schemeClr val="{name}"><a:lumMod val="{shade}"/>'
                f'<a:lumOff val="{100000 - shade}"/></a:schemeClr></a:solidFill>')
    return f'<a:solidFill><a:schemeClr val="{name}"/></a:solidFill>'


def run_xml(span: Span, size: float, faces: Typefaces, lang: str) -> str:
    latin, ea = (faces.mono, faces.mono_ea) if span.mono else (faces.latin, faces.ea)
    flags = (' b="1"' if span.bold else ' b="0"') + (' i="1"' if span.italic else "")
    return (f'<a:r><a:rPr lang="{lang}" altLang="en-US" sz="{round(size * 100)}"{flags} dirty="0">'
            f'{fill(span.colour)}<a:latin typeface="{latin}"/><a:ea typeface="{ea}"/>'
            f'<a:cs typeface="{latin}"/></a:rPr><a:t>{clean(span.text)}</a:t></a:r>')


def para_xml(para: Para, faces: Typefaces, lang: str) -> str:
    margin = round(para.margin * EMU_PER_PT)
    indent = -round(min(para.margin, BULLET_HANG) * EMU_PER_PT) if para.bullet else 0
    bullet = (f'<a:buFont typeface="{faces.latin}"/><a:buChar char="{clean(para.bullet)}"/>'
              if para.bullet else "<a:buNone/>")
    runs = "".join(run_xml(s, para.size, faces, lang) for s in para.spans)
    return (f'<a:p><a:pPr marL="{margin}" indent="{indent}" algn="{para.align}" eaLnBrk="1" latinLnBrk="0" '
            f'hangingPunct="0">'
            f'<a:lnSpc><a:spcPts val="{round(line_pt(para, faces) * 100)}"/></a:lnSpc>'
            f'<a:spcBef><a:spcPts val="{round(para.before * 100)}"/></a:spcBef>{bullet}</a:pPr>{runs}'
            f'<a:endParaRPr lang="{lang}" sz="{round(para.size * 100)}" dirty="0"/></a:p>')


def paras_xml(paras: Sequence[Para], faces: Typefaces, lang: str) -> str:
    return "".join(para_xml(p, faces, lang) for p in paras)


def notes_xml(lines: Sequence[str], faces: Typefaces, lang: str, size: float = 12.0) -> str:
    """Speaker-notes paragraphs (plain text, fonts named like every other run)."""
    return "".join(
        f'<a:p>{run_xml(Span(line or " "), size, faces, lang)}</a:p>' for line in lines)
