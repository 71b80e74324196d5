"""Text measurement with the real font files of the fonts a slide names.

Widths are sums of glyph advances read with Pillow from the files ``fc-match``
finds (kerning is ignored: it only narrows text, so what we measure as fitting
fits). Each character is measured in the font PowerPoint and LibreOffice would
draw it with: East Asian script in the East Asian font, letters in the Latin (or
mono) font, and digits, spaces and punctuation (script-neutral, drawn in the font
of their neighbours) at the wider of the two. A glyph no named font has (most
emoji) falls back to some other font; it counts as ``MISSING_EM`` wide. Where
East Asian and other text meet, LibreOffice adds space ("autospace"); it is counted.
It falls before full-width punctuation too (``True 。``, ``（ x``: the marks are Asian
script), and nothing in DrawingML turns it off there alone: the paragraph switch
(``ParaIsCharacterDistance``) has no DrawingML attribute, and a negative ``spc`` on the
last letter does not reach past the end of its script run (LibreOffice 7.4). ``slides --pdf`` converts
in a Japanese-locale profile, where Impress starts with that switch off (``pdf.private_profile``): its
PDF has no such space. Impress in any other locale still adds it, so it stays counted here.

Line breaking allows only breaks both applications make, so it never under-counts
lines: after spaces (but not before ``,.;:!?)/``), and between East Asian
characters except where kinsoku forbids (no line starts with ``，。）`` and no line
ends with ``（“``); inside a word gluing Chinese to Latin only where nothing better
exists; after a full-width pause mark that glues two Latin words or code names
(``torch.a、torch.b``), where the slide text puts a zero-width space (``OPTIONAL_BREAK``)
so that both applications may break; a word wider than the line breaks where it
overflows. Checked against LibreOffice's PDF output by ``tests/test_slides.py``.

LibreOffice's Chinese line breaker has one more rule, which cuts words: where the first character past
a line's end may not start a line (a closing quote, ``）``, ``：``), it steps back over such characters
and breaks before the last one it reaches, inside the word they follow (``"tf3`` / ``2"）：``).
``word_cuts`` finds where that would happen; the slide then breaks the line before the word itself.
"""
from __future__ import annotations

import re
import subprocess
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from PIL import ImageFont

from ...errors import BuildError
from ...fonts import bundled_font

MISSING_EM = 1.25
AUTOSPACE_EM = 0.3  # Impress (outside a Japanese or Korean locale) puts 1/5 em between East Asian and other text; PowerPoint does not
_PROBE_SIZE = 1000
_NO_LINE_START = set("，。、；：？！）》」』】〕〉”’…·%,.;:!?)]}/％﹚")  # even after a space (UAX 14, LB13)
_NO_LINE_END = set("（《「『【〔〈“‘([{")
_PAUSE_MARKS = set("、，；：。！？")
# What LibreOffice's Chinese rules keep off a line's start (its zh_CN forbidden characters), straight quotes too
_CJK_NO_LINE_START = _NO_LINE_START | set("\"'”’")
OPTIONAL_BREAK = "\u200b"  # zero-width space: a line may break after it (UAX 14 ZW), and it draws nothing


@dataclass(frozen=True)
class FontSet:
    """The fonts one run names: ``a:latin`` and ``a:ea`` typefaces, and its weight."""

    latin: str
    ea: str
    bold: bool = False


EAST_ASIAN_RANGE = ("\u1100-\u11ff\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f"
                    "\uff00-\uffef\U00020000-\U0003ffff")  # what is drawn with the East Asian font
_EAST_ASIAN = re.compile(f"[{EAST_ASIAN_RANGE}]")


def is_east_asian(char: str) -> bool:
    """Characters PowerPoint and LibreOffice draw with the East Asian (``a:ea``) font."""
    return _EAST_ASIAN.match(char) is not None


def has_east_asian(text: str) -> bool:
    return _EAST_ASIAN.search(text) is not None


def glued_pause(text: str, offset: int) -> bool:
    """Whether ``offset`` follows a full-width pause mark (、，；：。！？) that glues two Latin words or code
    names together (``a()、b()``). LibreOffice reads ``torch.a、torch.b`` as one word and breaks it where it
    overflows (``torch._transformer_encoder_laye`` / ``r_fwd``); an ``OPTIONAL_BREAK`` after the mark lets
    it break there instead, before a name that starts with a dot too (``a.fp32_precision、.rnn.fp32_precision``).
    Where Chinese comes before the mark, a line can already break before it."""
    if not 1 < offset < len(text) or text[offset - 1] not in _PAUSE_MARKS:
        return False
    before, after = text[offset - 2], text[offset]
    return (not before.isspace() and not is_east_asian(before)
            and not after.isspace() and not is_east_asian(after)
            and (after not in _NO_LINE_START or after == "." and text[offset + 1:offset + 2].isalpha()))


@lru_cache(maxsize=None)
def _is_neutral(char: str) -> bool:
    """Script-neutral: takes the font of its neighbours (digits, spaces, punctuation, symbols)."""
    return not char.isalpha() or unicodedata.category(char)[0] in "NPSZ"


@lru_cache(maxsize=None)
def _is_zero_width(char: str) -> bool:
    return unicodedata.category(char) in ("Mn", "Me", "Cf")


@lru_cache(maxsize=None)
def font_file(family: str, bold: bool) -> tuple[str, int]:
    """The file (and face index in a collection) of ``family``: the package's own copy where it ships
    one (DejaVu), so that slides are measured alike on every machine; else what fontconfig gives."""
    shipped = bundled_font(family, bold)
    if shipped is not None:
        return str(shipped), 0
    pattern = f"{family}:bold" if bold else family
    try:
        done = subprocess.run(["fc-match", "-f", "%{file}|%{index}|%{family}", pattern],
                              capture_output=True, text=True, timeout=30, check=True)
    except (OSError, subprocess.SubprocessError) as err:
        raise BuildError(f"cannot find the font file of '{family}' (fc-match: {err})") from None
    path, index, found = (done.stdout.split("|", 2) + ["", ""])[:3]
    if family.lower() not in [name.strip().lower() for name in found.split(",")]:
        hint = " (install fonts-noto-cjk)" if "CJK" in family else ""
        raise BuildError(f"the font '{family}' is not installed{hint}: fontconfig offers '{found or 'nothing'}' "
                         "instead, and text measured with another font would not fit as drawn")
    return path, int(index or 0)


class Face:
    """One font file at one weight: advance widths and line height, in em."""

    def __init__(self, family: str, bold: bool):
        path, index = font_file(family, bold)
        self.font = ImageFont.truetype(path, _PROBE_SIZE, index=index, layout_engine=ImageFont.Layout.BASIC)
        ascent, descent = self.font.getmetrics()
        self.line_em = (ascent + descent) / _PROBE_SIZE
        self._missing = (self.font.getbbox("\U000F0000"), self.font.getlength("\U000F0000"))
        self._widths: dict[str, float] = {}

    def width(self, char: str) -> float:
        width = self._widths.get(char)
        if width is None:
            width = self._widths[char] = self._measure(char)
        return width

    def _measure(self, char: str) -> float:
        if _is_zero_width(char):
            return 0.0
        length = self.font.getlength(char)
        if ord(char) > 0x7E and (self.font.getbbox(char), length) == self._missing:
            return MISSING_EM
        return length / _PROBE_SIZE


@lru_cache(maxsize=None)
def face(family: str, bold: bool = False) -> Face:
    return Face(family, bold)


@lru_cache(maxsize=8192)
def char_widths(text: str, fonts: FontSet) -> tuple[float, ...]:
    """The advance of each character of ``text`` in em."""
    latin = face(fonts.latin, fonts.bold)
    if not has_east_asian(text):
        return tuple(latin.width(c) for c in text)
    east = face(fonts.ea, fonts.bold)
    widths = []
    for char in text:
        if is_east_asian(char):
            widths.append(east.width(char))
        elif _is_neutral(char):
            widths.append(max(latin.width(char), east.width(char)))
        else:
            widths.append(latin.width(char))
    return tuple(widths)


def measure(pieces: Sequence[tuple[str, FontSet]]) -> list[float]:
    """The advance of each character of the joined pieces in em, autospace included."""
    widths = [w for text, fonts in pieces for w in char_widths(text, fonts)]
    text = "".join(t for t, _ in pieces)
    if has_east_asian(text):
        flags = [is_east_asian(c) for c in text]
        for i in range(1, len(text)):
            if flags[i] != flags[i - 1]:
                widths[i] += AUTOSPACE_EM
    return widths


def text_width(text: str, fonts: FontSet, size: float) -> float:
    """Width of ``text`` on one line, in points."""
    return sum(measure([(text, fonts)])) * size


def pieces_width(pieces: Sequence[tuple[str, FontSet]], size: float) -> float:
    return sum(measure(pieces)) * size


def line_em(pieces: Sequence[tuple[str, FontSet]], east_asian: bool = False) -> float:
    """Single line height, in em, of a line mixing these pieces: the tallest font they use
    (always counting the East Asian font with ``east_asian``, so Chinese and Latin lines match)."""
    heights = [0.0]
    for text, fonts in pieces:
        heights.append(face(fonts.latin, fonts.bold).line_em)
        if east_asian or has_east_asian(text):
            heights.append(face(fonts.ea, fonts.bold).line_em)
    return max(heights)


def wrap(pieces: Sequence[tuple[str, FontSet]], size: float, width: float) -> list[int]:
    """Where each line starts (offsets into the joined text) when the pieces wrap at ``width`` points."""
    text = "".join(t for t, _ in pieces)
    widths = [w * size for w in measure(pieces)]
    if sum(widths) <= width:
        return [0]
    strong, weak = _break_opportunities(text)
    starts = [0]
    x = 0.0
    for i, char in enumerate(text):
        if char == " ":  # spaces at a line end hang in the margin
            x += widths[i]
            continue
        if x + widths[i] > width and i > starts[-1]:
            start = _last(strong, starts[-1], i) or _last(weak, starts[-1], i) or i
            starts.append(start)
            x = sum(widths[start:i])
            if x + widths[i] > width and i > start:  # still too wide: break inside the word
                starts.append(i)
                x = 0.0
        x += widths[i]
    return starts


def _last(allowed: list[bool], line_start: int, end: int) -> int:
    """The last place in (line_start, end] a line may begin; 0 where there is none."""
    for i in range(end, line_start, -1):
        if allowed[i]:
            return i
    return 0


def _break_opportunities(text: str) -> tuple[list[bool], list[bool]]:
    """Where a line may begin: ``strong`` where both applications break, ``weak`` where they may.

    Breaks fall after spaces (but never before ``,.;:!?)/``, UAX 14 LB13) and between two
    East Asian characters (kinsoku: no line starts with ``，。）`` or ends with ``（“``). Inside
    a word that glues Chinese to Latin letters (``并行后端、OpenMP``) LibreOffice often keeps
    the whole word together, so breaks there are weak: taken only when the line has no
    strong one. After a pause mark that glues two Latin words (``MKL、OpenMP``) the slide
    text puts an ``OPTIONAL_BREAK``, so a break there is strong. Nothing else breaks (not
    after hyphens or slashes, not where Chinese meets Latin), so a line we measure never
    holds more than LibreOffice's or PowerPoint's.
    """
    flags = [is_east_asian(c) for c in text]
    strong = [False] * (len(text) + 1)
    weak = [False] * (len(text) + 1)
    for word in re.finditer(r"[^ ]+", text):
        first, end = word.span()
        if first > 0 and text[first] not in _NO_LINE_START:
            strong[first] = True
        mixed = any(flags[first:end]) and any(c.isalnum() and not f for c, f in zip(word[0], flags[first:end]))
        inside = weak if mixed else strong
        for i in range(first + 1, end):
            if flags[i] and flags[i - 1] and text[i] not in _NO_LINE_START and text[i - 1] not in _NO_LINE_END:
                inside[i] = True
            if glued_pause(text, i):
                strong[i] = True
    return strong, weak


def word_cuts(pieces: Sequence[tuple[str, FontSet]], size: float, width: float) -> list[int]:
    """Where a paragraph with Chinese needs a line break of its own (``<a:br/>``) so that LibreOffice does not
    cut a Latin word, as it drew ``"tf3`` / ``2"）：``: where the first character past a line's end may not
    start a line (a closing quote, ``）``, ``：``), LibreOffice's Chinese line breaker steps back over such
    characters one at a time and breaks before the last character it reaches, inside the word they follow, rather
    than at the space before the word. Lines are followed as LibreOffice sets them at the full ``width``;
    where one would end so, the break goes before the word instead (offsets into the joined text)."""
    text = "".join(t for t, _ in pieces)
    if not has_east_asian(text):
        return []
    widths = [w * size for w in measure(pieces)]
    if sum(widths) <= width:
        return []
    strong, weak = _break_opportunities(text)
    cuts: list[int] = []
    start, x = 0, 0.0
    for i, char in enumerate(text):
        if char == " ":
            x += widths[i]
            continue
        if x + widths[i] > width and i > start:
            back = i
            while back > start and text[back] in _CJK_NO_LINE_START:
                back -= 1
            if back < i and _inside_latin_word(text, back):
                start = _last(strong, start, back) or _last(weak, start, back) or back
                if start != back:
                    cuts.append(start)
            else:
                start = _last(strong, start, i) or _last(weak, start, i) or i
            x = sum(widths[start:i])
        x += widths[i]
    return cuts


def _inside_latin_word(text: str, offset: int) -> bool:
    """Whether a break before ``offset`` falls between two characters of one Latin word."""
    before, after = text[offset - 1], text[offset]
    return (offset > 0 and not before.isspace() and not is_east_asian(before) and before != OPTIONAL_BREAK
            and not after.isspace() and not is_east_asian(after))
