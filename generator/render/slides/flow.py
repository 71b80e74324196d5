"""Measure content blocks and pour them onto as many slides as they need.

A slide's body area takes blocks top to bottom. A block that does not fit in
what is left is split where it can be (between lines of a paragraph or a code
listing, between table rows, with the table header repeated) and continues on
the next slide; nothing is shrunk to make it fit. Heights come from ``fit`` with
the real font files, so what is placed here is what LibreOffice and PowerPoint draw.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Optional, Sequence, Union

from ...errors import BuildError
from . import fit
from .text import Para, Span, Typefaces, line_pt, pieces

MIN_PT = 14.0  # no text is set smaller: what does not fit continues on the next slide
MIN_PRESENTED_CODE_PT = 16.0  # code of a deck made to be presented is read from the back of a room
WRAP_SLACK = 0.97  # wrap a little before the edge: renderers differ by a few tenths of a point
GAP = 10.0  # pt between blocks
MIN_SPLIT = 0.25  # split a block onto the rest of a slide only where at least this share of the body is left
SENTENCE_ENDS = set(".!?。！？")
CLAUSE_ENDS = SENTENCE_ENDS | set(",;:，；：、")
OPENERS = set("(（")  # an aside starts: a reason cut short is better cut before it than inside it
ELLIPSIS = "…"
# what a line does not break inside: a word, or one East Asian character (a line may break between two)
UNBREAKABLE = re.compile(f"[^\\s{fit.EAST_ASIAN_RANGE}]+|[{fit.EAST_ASIAN_RANGE}]")


@dataclass(frozen=True)
class BoxStyle:
    """How a text block looks: insets (pt), fill and outline (theme colours), whether lines wrap."""

    insets: tuple[float, float, float, float] = (2.0, 2.0, 2.0, 2.0)  # left, top, right, bottom
    fill: Optional[str] = None
    line: Optional[str] = None
    wrap: bool = True


STYLES = {
    "plain": BoxStyle(),
    "caption": BoxStyle(),
    "code": BoxStyle((10.0, 7.0, 10.0, 7.0), fill="bg2", line="tx2", wrap=False),
    "quote": BoxStyle((14.0, 8.0, 10.0, 8.0), line="accent2"),
    "callout": BoxStyle((12.0, 8.0, 12.0, 8.0), fill="accent5:15", line="accent5"),
    "warn": BoxStyle((10.0, 4.0, 10.0, 4.0), line="accent6"),
}


@dataclass(frozen=True)
class TextBlock:
    """Paragraphs in one box; ``kind`` names its look in ``STYLES``."""

    paras: tuple[Para, ...]
    kind: str = "plain"
    keep_with_next: bool = False  # a caption stays on the slide of what it captions
    keep_with_previous: bool = False  # stays on the slide of the table's last rows (a closing line, an analogy)

    @property
    def style(self) -> BoxStyle:
        return STYLES[self.kind]


@dataclass(frozen=True)
class CodeBlock:
    """A listing, one tuple of coloured spans per line; set as large as ``largest`` pt while no line wraps."""

    lines: tuple[tuple[Span, ...], ...]
    largest: float = 18.0


@dataclass(frozen=True)
class TableBlock:
    """A table: each cell is a tuple of paragraphs; the header row repeats on every slide it spans."""

    header: tuple[tuple[Para, ...], ...]
    rows: tuple[tuple[tuple[Para, ...], ...], ...]


@dataclass(frozen=True)
class PictureBlock:
    png: bytes
    pixels: tuple[int, int]  # width, height
    alt: str = ""  # what it shows, in words: the picture's description for a screen reader


Block = Union[TextBlock, CodeBlock, TableBlock, PictureBlock]
CONTINUED_CODE = "↪"


@dataclass(frozen=True)
class Area:
    x: float
    y: float
    w: float
    h: float

    @property
    def bottom(self) -> float:
        return self.y + self.h


@dataclass(frozen=True)
class Placed:
    """A block at its place on a slide (pt); a table also carries its column widths and row heights."""

    block: Block
    area: Area
    columns: tuple[float, ...] = ()
    rows: tuple[float, ...] = ()


CELL_INSETS = (6.0, 4.0, 6.0, 4.0)


class Flow:
    """Measures blocks in one deck's typefaces and paginates them into a body area.

    ``presenting`` (a workshop deck): code is set at ``MIN_PRESENTED_CODE_PT`` or more, and a listing,
    its caption or a table moves whole to the next slide rather than being split, wherever it fits
    on a slide of its own.
    """

    def __init__(self, faces: Typefaces, presenting: bool = False):
        self.faces = faces
        self.presenting = presenting
        self.min_code = MIN_PRESENTED_CODE_PT if presenting else MIN_PT

    # ----------------------------------------------------------- text
    def lines(self, para: Para, width: float, wrap: bool = True) -> list[int]:
        """Where each line of ``para`` starts, set in a box whose inner width is ``width``."""
        if not wrap:
            return [0]
        return fit.wrap(pieces(para, self.faces), para.size, (width - para.margin) * WRAP_SLACK)

    def word_cuts(self, para: Para, width: float) -> list[int]:
        """Where ``para``, set in a box whose inner width is ``width``, needs a line break of its own so that
        LibreOffice does not cut a Latin word (``fit.word_cuts``: at the full width, as LibreOffice sets it)."""
        return fit.word_cuts(pieces(para, self.faces), para.size, width - para.margin)

    def units(self, paras: Sequence[Para], width: float, wrap: bool = True) -> list[tuple[int, int, float]]:
        """(paragraph, line start, height) for every line: the pieces a text can be split into."""
        units = []
        for index, para in enumerate(paras):
            step = line_pt(para, self.faces)
            for number, start in enumerate(self.lines(para, width, wrap)):
                units.append((index, start, step + (para.before if number == 0 else 0.0)))
        return units

    def text_height(self, paras: Sequence[Para], width: float, style: BoxStyle) -> float:
        left, top, right, bottom = style.insets
        return top + bottom + sum(h for *_, h in self.units(paras, width - left - right, style.wrap))

    def clip(self, para: Para, width: float, lines: int = 1) -> Para:
        """``para`` on at most ``lines`` lines of a box whose inner width is ``width``: whole where it fits,
        else cut after its last sentence that fits, or its last clause or before its last aside in parentheses
        (an ellipsis marks the cut), or where no clause reaches half as far, its last whole word and an ellipsis. Never inside a word."""
        if len(self.lines(para, width)) <= lines:
            return para
        text = para.text
        clauses: list[int] = []
        words_: list[int] = []
        for end in range(1, len(text)):
            before, after = text[end - 1], text[end]
            boundary = after == " " or (fit.is_east_asian(before) and fit.is_east_asian(after)) or after in OPENERS
            if not boundary or before == " ":
                continue
            aside = text[end:].lstrip(" ")[:1] in OPENERS  # a parenthesis goes whole: cut before it
            (clauses if before in CLAUSE_ENDS or aside else words_).append(end)
        best = {}
        for kind, ends in (("clause", clauses), ("word", words_)):
            for end in reversed(ends):
                head = self._clipped(para, end)
                if len(self.lines(head, width)) <= lines:
                    best[kind] = (end, head)
                    break
        if "clause" in best and best["clause"][0] >= 0.5 * best.get("word", (0,))[0]:
            return best["clause"][1]
        if "word" in best:
            return best["word"][1]
        return para  # one word wider than the line: left whole, the renderer wraps it

    @staticmethod
    def _clipped(para: Para, end: int) -> Para:
        """The first ``end`` characters of ``para``; after a sentence as they are, else with an ellipsis."""
        head, _ = para.cut(end)
        spans = list(head.spans)
        last = spans[-1]
        text = last.text.rstrip()
        if text[-1:] not in SENTENCE_ENDS:
            text = text.rstrip("".join(CLAUSE_ENDS)) + ELLIPSIS
        spans[-1] = replace(last, text=text)
        return replace(head, spans=tuple(spans), clip=False)

    def widest_line(self, para: Para) -> float:
        return fit.pieces_width(pieces(para, self.faces), para.size)

    def split_paras(self, paras: Sequence[Para], width: float, style: BoxStyle, room: float, prefer: bool = True):
        """The paragraphs that fit in ``room`` pt and the rest; (None, paras) if not even one line fits.

        ``prefer``: a paragraph goes with the one it ``keep``s to, and one cut across slides is cut at the
        start of a word with two lines or more to go on; (None, paras) where that leaves nothing here."""
        left, top, right, bottom = style.insets
        used = top + bottom
        taken = 0
        units = self.units(paras, width - left - right, style.wrap)
        for index, start, height in units:
            if used + height > room:
                break
            used += height
            taken += 1
        if taken == 0:
            return None, tuple(paras)
        if taken == len(units):
            return tuple(paras), None
        index, start, _ = units[taken]
        if start > 0 and index > 0:  # a paragraph moves on whole; it is cut only when it is the first here
            start = 0
        if prefer and start == 0:
            first = index
            if index > 1 and index == len(paras) - 1:
                index -= 1  # a lone last paragraph (a quiz's last option) never goes on alone: the one before goes too
            while index > 0 and paras[index].keep:  # a paragraph goes with the one it belongs to
                index -= 1
            if index == 0:  # the whole chain is taller than the room: cut it where it had to be
                index = first
        elif prefer:
            start = self._cut_at(paras[index], width - left - right, style.wrap, start)
            if start == 0 and index == 0:
                return None, tuple(paras)
        head = list(paras[:index])
        rest = list(paras[index:])
        if start > 0:
            cut_head, cut_rest = paras[index].cut(start)
            head.append(cut_head)
            rest[0] = cut_rest
        return tuple(head), tuple(rest)

    def _cut_at(self, para: Para, width: float, wrap: bool, start: int) -> int:
        """Where a paragraph cut across slides at line ``start`` is better cut: at a line that starts a
        word (never inside a word or an address broken to fit), leaving at least two lines to go on (a
        lone last line would make a continuation slide of stray words); 0 where no line qualifies."""
        starts = self.lines(para, width, wrap)
        text = para.text
        usable = [s for s in starts[1:] if s <= start and (text[s - 1] == " " or fit.glued_pause(text, s) or
                                                           fit.is_east_asian(text[s - 1]) and fit.is_east_asian(text[s]))]
        if usable and usable[-1] == starts[-1]:  # the last line alone would go on: the one before goes too
            usable.pop()
        return usable[-1] if usable else 0

    # ------------------------------------------------------------ code
    def code_text(self, code: CodeBlock, width: float) -> TextBlock:
        """The listing at the largest size (at least ``MIN_PT``) where no line wraps.

        A line too long even at ``MIN_PT`` is broken by us, not by the renderer: its
        continuation starts with a hanging ``↪``, so a reader sees the break.
        """
        style = STYLES["code"]
        inner = (width - style.insets[0] - style.insets[2]) * WRAP_SLACK
        widest = max(self.widest_line(Para(line, 1.0)) for line in code.lines)
        size = max(self.min_code, min(code.largest, int(inner / max(widest, 1e-6) * 2) / 2))
        paras: list[Para] = []
        for line in code.lines:
            para = Para(line, size)
            if self.widest_line(para) > inner:
                para = _closer_comment(para)  # its comment's alignment gives way before the line wraps
            if self.widest_line(para) <= inner:
                paras.append(para)
                continue
            hang = fit.text_width(CONTINUED_CODE + " ", fit.FontSet(self.faces.mono, self.faces.mono_ea), size)
            starts = self._no_lone_word(para, fit.wrap(pieces(para, self.faces), size, inner - hang), inner - hang)
            chunks: list[Para] = []
            for start in reversed(starts[1:]):
                para, rest = para.cut(start)
                chunks.insert(0, replace(rest, bullet=CONTINUED_CODE, margin=hang))
            paras += [para, *chunks]
        return TextBlock(tuple(paras), "code")

    def _no_lone_word(self, para: Para, starts: list[int], width: float) -> list[int]:
        """Line starts of a code line wrapped at ``width`` where its last line is not one word alone
        (``↪ only``): that line starts a word earlier where it still fits and the line before keeps a word."""
        text = para.text
        if len(starts) < 2 or " " in text[starts[-1]:].strip():
            return starts
        before = text[starts[-2]:starts[-1]].rstrip()
        space = before.rfind(" ")
        if space <= 0 or not before[:space].strip():
            return starts
        start = starts[-2] + space + 1
        if self.widest_line(para.cut(start)[1]) > width:
            return starts
        return [*starts[:-1], start]

    # ---------------------------------------------------------- tables
    def columns(self, table: TableBlock, width: float) -> tuple[float, ...]:
        """Column widths: each column's natural width where all fit, else shares of what is left."""
        count = len(table.header)
        pad = CELL_INSETS[0] + CELL_INSETS[2]
        natural = [pad + 1.0] * count
        least = [pad + 1.0] * count
        for row in (table.header, *table.rows):
            for column, cell in enumerate(row):
                for para in cell:
                    natural[column] = max(natural[column], pad + self.widest_line(para) / WRAP_SLACK + 2)
                    least[column] = max(least[column], pad + self._longest_word(para) / WRAP_SLACK + 2)
        least = _capped(least, width)
        if sum(natural) <= width:
            return tuple(n * width / sum(natural) for n in natural)
        spare = width - sum(least)
        wants = [max(n - m, 0.0) for n, m in zip(natural, least)]
        total = sum(wants) or 1.0
        return tuple(m + spare * w / total for m, w in zip(least, wants))

    def _longest_word(self, para: Para) -> float:
        """The widest run a line cannot break inside: a word, or a single CJK character (a line may break
        between any two)."""
        longest = 0.0
        for text, fonts in pieces(para, self.faces):
            for word in UNBREAKABLE.findall(text):
                longest = max(longest, fit.text_width(word, fonts, para.size))
        return longest

    def cell_height(self, cell: Sequence[Para], width: float) -> float:
        left, top, right, bottom = CELL_INSETS
        return top + bottom + sum(h for *_, h in self.units(cell, width - left - right))

    def row_height(self, row, columns) -> float:
        return max(self.cell_height(cell, width) for cell, width in zip(row, columns))

    def split_row(self, row, columns, room: float):
        """A row too tall for any slide, cut between lines of its cells."""
        heads, rests = [], []
        style = BoxStyle(CELL_INSETS)
        for cell, width in zip(row, columns):
            head, rest = self.split_paras(cell, width, style, room, prefer=False)
            if head is None and cell:
                raise BuildError(f"a table cell line is taller than a slide: {cell[0].text[:60]!r}")
            heads.append(head or ())
            rests.append(rest or ())
        return tuple(heads), tuple(rests)

    # --------------------------------------------------------- paginate
    def paginate(self, blocks: Sequence[Block], body: Area) -> list[list[Placed]]:
        """The blocks placed on one or more slides (the first is this slide, the rest '(cont.)')."""
        pages: list[list[Placed]] = [[]]
        queue = [self.code_text(b, body.w) if isinstance(b, CodeBlock) else b for b in blocks]
        y = body.y
        while queue:
            written = queue.pop(0)
            room = body.bottom - y
            block = self._clip_block(written, body.w, room)  # its reasons as whole as this room allows
            placed, rest = self._place(block, body, y, room, queue[0] if queue else None, bool(pages[-1]))
            if placed:
                pages[-1].append(placed)
                y = placed.area.bottom + GAP
            if rest is not None:
                queue.insert(0, written if rest is block else rest)  # moved on whole: measured afresh there
                pages.append([])
                y = body.y
        return [page for page in pages if page] or [[]]

    def _clip_block(self, block, width: float, room: float):
        """A text block whose ``clip`` paragraphs (an answer's reasons) are whole where the block then fits in
        ``room`` pt; else the longest of them loses a line at a time (cut at a sentence, a clause or a word,
        ``clip``) until it fits or each is down to one line. What fits is never cut."""
        if not isinstance(block, TextBlock) or not any(para.clip for para in block.paras):
            return block
        inner = width - block.style.insets[0] - block.style.insets[2]
        limits = {n: len(self.lines(para, inner)) for n, para in enumerate(block.paras) if para.clip}
        while True:
            paras = tuple(self.clip(para, inner, limits[n]) if n in limits else para
                          for n, para in enumerate(block.paras))
            longest = max(limits, key=lambda n: (limits[n], -n))
            if self.text_height(paras, width, block.style) <= room or limits[longest] == 1:
                return replace(block, paras=tuple(replace(para, clip=False) for para in paras))
            limits[longest] -= 1

    def _place(self, block, body: Area, y: float, room: float, following, page_used: bool):
        """(placed, rest): what goes here, and what continues on the next slide (None when done)."""
        splittable = not page_used or room >= MIN_SPLIT * body.h
        if isinstance(block, PictureBlock):
            return self._place_picture(block, body, y, room, page_used)
        if isinstance(block, TableBlock):
            if page_used and self.presenting and self._kept_whole(block, body, room):
                return None, block
            return self._place_table(block, body, y, room, splittable, following)
        height = self.text_height(block.paras, body.w, block.style)
        extra = self._following(following, body) if block.keep_with_next and following else 0.0
        if height + extra <= room or (height <= room and not page_used):
            return Placed(block, Area(body.x, y, body.w, height)), None
        if page_used and (not splittable or block.keep_with_next or
                          (self.presenting and block.kind != "plain" and height <= body.h)):
            return None, block
        head, rest = self.split_paras(block.paras, body.w, block.style, self._split_room(block, height, room, body, page_used))
        if head is None:
            head, rest = self.split_paras(block.paras, body.w, block.style, room)
        if head is None and not page_used:  # a fresh slide takes what it can, however it is cut
            head, rest = self.split_paras(block.paras, body.w, block.style, room, prefer=False)
        if head is None:
            return self._next_slide(block, page_used)
        top = replace(block, paras=head)
        placed = Placed(top, Area(body.x, y, body.w, self.text_height(head, body.w, block.style)))
        return placed, replace(block, paras=rest)

    def _split_room(self, block, height: float, room: float, body: Area, page_used: bool) -> float:
        """Where a presented text block that needs this slide and one more is cut: about half way, so the
        second slide is not a line or two of leftovers (a take-aways list of nine: five and four, not seven
        and two; an answer's five options under its question: three and two, not four and one). Elsewhere,
        and where three slides are needed, as much as fits."""
        if not self.presenting or height > room + (body.h if page_used else room):
            return room
        _, top, _, bottom = block.style.insets
        return min(room, (height + top + bottom) / 2 + 1)

    def _next_slide(self, block, page_used: bool):
        if not page_used:
            raise BuildError(f"one line is taller than a whole slide: {block!r:.80}")
        return None, block

    def _following(self, block, body: Area) -> float:
        """The room a caption keeps for what follows it: its first line, or when presenting all of it
        (a listing or a table is not split, so its caption goes where it goes), or all of a block that keeps
        to it (a quote's analogy: the two go on together rather than the analogy alone)."""
        if isinstance(block, TextBlock) and (block.keep_with_previous or self.presenting and block.kind != "plain"):
            height = self.text_height(block.paras, body.w, block.style)
            return height + GAP if height <= body.h else self._first_line(block, body.w)
        if self.presenting and isinstance(block, TableBlock) and self._table_height(block, body.w) <= body.h:
            return self._table_height(block, body.w) + GAP
        return self._first_line(block, body.w)

    def _table_height(self, table: TableBlock, width: float) -> float:
        columns = self.columns(table, width)
        return sum(self.row_height(r, columns) for r in (table.header, *table.rows))

    def _kept_whole(self, table: TableBlock, body: Area, room: float) -> bool:
        """Whether a table that does not fit in ``room`` fits a slide of its own (then it goes there whole)."""
        height = self._table_height(table, body.w)
        return room < height <= body.h

    def _first_line(self, block, width: float) -> float:
        if isinstance(block, TextBlock):
            style = block.style
            units = self.units(block.paras[:1], width - style.insets[0] - style.insets[2], style.wrap)
            return style.insets[1] + style.insets[3] + (units[0][2] if units else 0.0) + GAP
        if isinstance(block, TableBlock):
            columns = self.columns(block, width)
            first = block.rows[:1]
            return sum(self.row_height(r, columns) for r in (block.header, *first)) + GAP
        return GAP  # a picture takes whatever room is left

    def _place_table(self, table: TableBlock, body: Area, y: float, room: float, splittable: bool,
                     following=None):
        columns = self.columns(table, body.w)
        header = self.row_height(table.header, columns)
        heights = [self.row_height(r, columns) for r in table.rows]
        used, count = header, 0
        for height in heights:
            if used + height > room:
                break
            used += height
            count += 1
        if (count == len(table.rows) > 1 and isinstance(following, TextBlock) and following.keep_with_previous
                and used + GAP + self.text_height(following.paras, body.w, following.style) > room):
            count -= 1  # the last row goes on with what keeps to it, which would otherwise go on alone
        if count == len(table.rows):
            return self._table(table, body, y, columns, [header, *heights]), None
        if count == 0 or not splittable:
            if y > body.y:
                return None, table
            head_row, rest_row = self.split_row(table.rows[0], columns, room - header)
            first = replace(table, rows=(head_row,))
            rest = replace(table, rows=(rest_row, *table.rows[1:]))
            return self._table(first, body, y, columns, [header, self.row_height(head_row, columns)]), rest
        first = replace(table, rows=table.rows[:count])
        rest = replace(table, rows=table.rows[count:])
        return self._table(first, body, y, columns, [header, *heights[:count]]), rest

    @staticmethod
    def _table(table, body, y, columns, heights) -> Placed:
        return Placed(table, Area(body.x, y, body.w, sum(heights)), tuple(columns), tuple(heights))

    @staticmethod
    def _place_picture(picture: PictureBlock, body: Area, y: float, room: float, page_used: bool):
        """The picture as large as fits, aspect ratio kept, centred across the body."""
        if page_used and room < 0.5 * body.h:
            return None, picture
        pixel_w, pixel_h = picture.pixels
        scale = min(body.w / pixel_w, room / pixel_h)
        w, h = pixel_w * scale, pixel_h * scale
        return Placed(picture, Area(body.x + (body.w - w) / 2, y, w, h)), None


COMMENT_GAP = re.compile(r"(?<=\S)( {3,})(?=# )")  # the spaces that align a line's comment with its neighbours'


def _closer_comment(para: Para) -> Para:
    """A code line with its comment two spaces after the code instead of aligned with its neighbours': a line
    that would wrap keeps it whole where that is enough."""
    found = COMMENT_GAP.search(para.text)
    if found is None:
        return para
    head, _ = para.cut(found.start() + 2)
    _, tail = para.cut(found.end())
    return replace(para, spans=(*head.spans, *tail.spans))


def _capped(least: list[float], width: float) -> list[float]:
    """Each column's least width (its longest word, kept whole) where they all fit in ``width``; else the
    widest ones capped alike, so that they fill it (a column with short words keeps what it needs, and a
    long name in a column beside short ones is not cut to an equal share)."""
    if sum(least) <= width:
        return list(least)
    narrow_first = sorted(least)
    room, left = width, len(least)
    for value in narrow_first:
        if value * left > room:
            break
        room -= value
        left -= 1
    cap = room / left
    return [min(value, cap) for value in least]
