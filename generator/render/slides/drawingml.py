"""The DrawingML XML that slide text becomes.

Every run names both its Latin font (``a:latin``) and its East Asian font
(``a:ea``), which python-pptx has no API for: without ``a:ea`` PowerPoint draws
Chinese in whatever font the system picks, and lines measured in Noto Sans CJK
would no longer fit. Line spacing is written as exact points (the height the
fit module measured), so every application stacks lines the same way. A
full-width pause mark that glues two Latin words or code names gets a zero-width
space after it: the line break ``fit`` counts there.
"""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Callable, Iterator, Optional, Sequence
from xml.sax.saxutils import escape

from ...markup import EXPLAIN
from . import fit
from .text import Para, Span, Typefaces, line_pt

EMU_PER_PT = 12700
BULLET_HANG = 18.0  # pt a bullet hangs left of its paragraph's margin
_EXPLAIN_MARK = re.compile(f"({EXPLAIN})")
_XML_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


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


Linker = Callable[[str], str]  # an address -> the slide's relationship id for it


def run_xml(span: Span, size: float, faces: Typefaces, lang: str, link: Optional[Linker] = None) -> str:
    if EXPLAIN in span.text and span.text != EXPLAIN:
        return "".join(run_xml(replace(span, text=part), size, faces, lang, link)
                       for part in _EXPLAIN_MARK.split(span.text) if part)
    latin, ea = (faces.mono, faces.mono_ea) if span.mono else (faces.latin, faces.ea)
    if span.text == EXPLAIN:  # its own run, drawn from the Latin font: LibreOffice takes ℹ before Chinese as
        ea = latin            # East Asian, finds no ℹ in the CJK font and falls back to an emoji it draws blank
    flags = (' b="1"' if span.bold else ' b="0"') + (' i="1"' if span.italic else "")
    flags += ' u="sng"' if span.link and link else ""
    click = f'<a:hlinkClick r:id="{link(span.link)}"/>' if span.link and link else ""
    return (f'<a:r><a:rPr lang="{lang}" altLang="en-US" sz="{round(size * 100)}"{flags} dirty="0">'
            f'{fill(span.colour)}<a:latin typeface="{latin}"/><a:ea typeface="{ea}"/>'
            f'<a:cs typeface="{latin}"/>{click}</a:rPr><a:t>{clean(span.text)}</a:t></a:r>')


def _pieces(spans: Sequence[Span], offsets: Sequence[int]) -> Iterator[tuple[Span, list[str]]]:
    """Each span with its text in pieces, cut at each of ``offsets`` (into the spans' joined text) that falls
    inside it or at its end (a cut at its end leaves an empty last piece)."""
    seen = 0
    for span in spans:
        end = seen + len(span.text)
        cuts = [offset - seen for offset in offsets if seen < offset <= end]
        yield span, [span.text[a:b] for a, b in zip([0, *cuts], [*cuts, len(span.text)])]
        seen = end


def with_optional_breaks(spans: Sequence[Span]) -> tuple[Span, ...]:
    """``spans`` with a ``fit.OPTIONAL_BREAK`` after each full-width pause mark that glues two Latin words or
    code names (``（`a`、`b`）``, ``fit.glued_pause``); the zero-width space goes into the mark's run."""
    text = "".join(s.text for s in spans)
    marks = [i for i in range(1, len(text)) if fit.glued_pause(text, i)]
    if not marks:
        return tuple(spans)
    return tuple(replace(span, text=fit.OPTIONAL_BREAK.join(pieces)) for span, pieces in _pieces(spans, marks))


def _cut(spans: Sequence[Span], cuts: Sequence[int]) -> list[tuple[Span, ...]]:
    """The spans in parts, a new part at each offset in ``cuts`` (into their joined text)."""
    parts: list[list[Span]] = [[]]
    for span, pieces in _pieces(spans, cuts):
        for number, piece in enumerate(pieces):
            if number:
                parts.append([])
            if piece:
                parts[-1].append(replace(span, text=piece))
    return [tuple(part) for part in parts if part]


def para_xml(para: Para, faces: Typefaces, lang: str, link: Optional[Linker] = None,
             cuts: Sequence[int] = ()) -> str:
    """A paragraph's XML; ``cuts``: offsets where a line break of its own goes (``fit.word_cuts``)."""
    margin = round(para.margin * EMU_PER_PT)
    indent = -round(min(para.margin, BULLET_HANG) * EMU_PER_PT) if para.bullet else 0
    bullet = (f'<a:buFont typeface="{faces.latin}"/><a:buChar char="{clean(para.bullet)}"/>'
              if para.bullet else "<a:buNone/>")
    line_break = f'<a:br><a:rPr lang="{lang}" sz="{round(para.size * 100)}" dirty="0"/></a:br>'
    runs = line_break.join("".join(run_xml(s, para.size, faces, lang, link) for s in with_optional_breaks(part))
                           for part in _cut(para.spans, cuts))
    return (f'<a:p><a:pPr marL="{margin}" indent="{indent}" algn="{para.align}" eaLnBrk="1" latinLnBrk="0" '
            f'hangingPunct="0">'
            f'<a:lnSpc><a:spcPts val="{round(line_pt(para, faces) * 100)}"/></a:lnSpc>'
            f'<a:spcBef><a:spcPts val="{round(para.before * 100)}"/></a:spcBef>{bullet}</a:pPr>{runs}'
            f'<a:endParaRPr lang="{lang}" sz="{round(para.size * 100)}" dirty="0"/></a:p>')


def paras_xml(paras: Sequence[Para], faces: Typefaces, lang: str, link: Optional[Linker] = None,
              cuts: Sequence[Sequence[int]] = ()) -> str:
    """The paragraphs' XML; ``link`` relates each run's address to the slide (without it, no run links);
    ``cuts``: each paragraph's own line breaks, where it has any."""
    return "".join(para_xml(p, faces, lang, link, cuts[n] if n < len(cuts) else ()) for n, p in enumerate(paras))


def notes_xml(lines: Sequence[str], faces: Typefaces, lang: str, size: float = 12.0) -> str:
    """Speaker-notes paragraphs (plain text, fonts named like every other run)."""
    return "".join(
        f'<a:p>{run_xml(Span(line or " "), size, faces, lang)}</a:p>' for line in lines)
