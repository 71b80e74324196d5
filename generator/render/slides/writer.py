"""Draw planned slides into the template and save a reproducible .pptx.

Slides use the template's layouts by name and take their boxes from the layout's
placeholders (title ``idx 0``, body ``idx 1``, footer ``idx 11``, slide number
``idx 12``), so moving a placeholder in the template moves it on every slide. Shapes
are written as DrawingML directly: python-pptx has no API for ``a:ea`` fonts or exact
line spacing, and building a slide from one XML string is much faster than shape by
shape. The file is byte-identical for the same content: zip entries carry a fixed
time and the document dates are the verification date.
"""
from __future__ import annotations

import datetime
import io
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Sequence

from lxml import etree
from pptx import Presentation
from pptx.opc.constants import CONTENT_TYPE as CT
from pptx.opc.constants import RELATIONSHIP_TYPE as RT
from pptx.opc.packuri import PackURI
from pptx.oxml import parse_xml
from pptx.parts.slide import NotesMasterPart, NotesSlidePart, SlidePart

from ...errors import BuildError
from .drawingml import EMU_PER_PT, clean, fill, notes_xml, paras_xml
from .flow import CELL_INSETS, MIN_PT, Area, Flow, PictureBlock, Placed, TableBlock, TextBlock
from .plan import SlideSpec
from .text import Para, Span, Typefaces, inline

NS = {"a": "http://schemas.openxmlformats.org/drawingml/2006/main",
      "p": "http://schemas.openxmlformats.org/presentationml/2006/main",
      "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships"}
XMLNS = " ".join(f'xmlns:{k}="{v}"' for k, v in NS.items())
DOS_TIME, DOS_DATE = 0, (0 << 9) | (1 << 5) | 1  # 1980-01-01 00:00, the zip epoch
SLIDE_NUMBER_FIELD = "{8B3A1C2E-5D4F-4E6A-9B7C-1D2E3F4A5B6C}"
TITLE_SIZES = {"Title": 40.0, "Section": 36.0}
TITLE_INSETS = (7.2, 3.6, 7.2, 3.6)  # the layouts' placeholder insets (0.1 in / 0.05 in)
FOOTER_PT = 14.0
PRESENTED_PT = 20.0  # the least text size of a deck made to be presented (titles, body, tables)
DEFAULT_EA = "Noto Sans CJK SC"
LANG_TAGS = {"en": "en-US", "zh": "zh-CN"}


@dataclass(frozen=True)
class PartWords:
    """How a deck's language heads the slides of what goes on over several: ``part`` (`` ({k}/{n})``), the
    ``label`` between a title and the topics a slide holds, the ``sep`` between two topics."""

    part: str
    label: str
    sep: str


@dataclass(frozen=True)
class LayoutBoxes:
    """Where a layout puts things, in points."""

    title: Area
    title_type: str
    body: Area
    body_type: str
    footer: Optional[Area]
    number: Optional[Area]


def emu(points: float) -> int:
    return round(points * EMU_PER_PT)


def xfrm(area: Area, tag: str = "a:xfrm") -> str:
    return (f'<{tag}><a:off x="{emu(area.x)}" y="{emu(area.y)}"/>'
            f'<a:ext cx="{emu(area.w)}" cy="{emu(area.h)}"/></{tag}>')


class PresentationWriter:
    """A presentation opened from the template; ``add`` draws one planned slide (and its continuations)."""

    def __init__(self, template: Path, lang: str, footer: str, parts: "PartWords",
                 notes_for: Callable[[SlideSpec, int, int], list[str]], presenting: bool = False):
        """``presenting``: a deck made to be shown to a room (a workshop's): no text under
        ``PRESENTED_PT`` but code (``Flow``'s own floor) and the footer line, listings and tables kept whole.
        ``parts``: how the slides of what goes on over several are told apart (``page_title``)."""
        try:
            self.prs = Presentation(str(template))
        except Exception as err:  # a missing or broken template is a build failure, not a crash
            raise BuildError(f"cannot open the slide template {template}: {err}") from None
        self.lang = LANG_TAGS.get(lang, "en-US")
        self.footer = footer
        self.parts = parts
        self.notes_for = notes_for
        self.text_faces, self.title_faces = theme_typefaces(self.prs, east_asian=lang == "zh")
        self.presenting = presenting
        self.smallest = PRESENTED_PT if presenting else MIN_PT
        self.flow = Flow(self.text_faces, presenting)
        self.title_flow = Flow(self.title_faces)
        self.layouts = {layout.name: layout for layout in self.prs.slide_layouts}
        self._boxes: dict[str, LayoutBoxes] = {}
        self._slide_ids = self.prs.part._element.get_or_add_sldIdLst()
        self._notes_master: Optional[NotesMasterPart] = None
        self.count = 0

    # ----------------------------------------------------------- layouts
    def layout(self, name: str):
        if name not in self.layouts:
            raise BuildError(f"the slide template has no layout named '{name}' "
                             f"(it has: {', '.join(self.layouts)})")
        return self.layouts[name]

    def boxes(self, name: str) -> LayoutBoxes:
        if name not in self._boxes:
            self._boxes[name] = self._read_boxes(self.layout(name))
        return self._boxes[name]

    def _read_boxes(self, layout) -> LayoutBoxes:
        found = {**_placeholders(self.prs.slide_master._element), **_placeholders(layout._element)}
        own = _placeholders(layout._element)
        if 0 not in found or 1 not in found:
            raise BuildError(f"layout '{layout.name}' needs a title and a body placeholder")
        return LayoutBoxes(found[0][0], found[0][1], found[1][0], found[1][1],
                           found[11][0] if 11 in own else None, found[12][0] if 12 in own else None)

    # ------------------------------------------------------------- slides
    def add(self, spec: SlideSpec) -> int:
        """Draw ``spec`` on as many slides as its blocks need; returns how many."""
        boxes = self.boxes(spec.layout)
        pages = self.flow.paginate(spec.blocks, boxes.body)  # no banner: where facts were verified is in the notes
        for number, page in enumerate(pages):
            title = self.page_title(spec, page, number, len(pages))
            name = spec.name if number == 0 else f"{spec.name}:cont{number}"
            notes = self.notes_for(spec, number, len(pages)) if spec.notes else None
            self._slide(spec.layout, boxes, name, title, page, notes)
        return len(pages)

    def page_title(self, spec: SlideSpec, page: list[Placed], number: int, pages: int) -> str:
        """The headline of slide ``number`` of the ``pages`` that ``spec`` goes on over: its title alone where it
        needs one slide; else its title and the topics of the paragraphs on this slide (the take-aways of
        cudnn and cuda) where they are named, listed or as a range, else its part (2/3): never one headline
        twice in a row. The first that fits the title box is taken."""
        if pages == 1:
            return spec.title
        topics = list(dict.fromkeys(para.topic for placed in page if isinstance(placed.block, TextBlock)
                                    for para in placed.block.paras if para.topic))
        named = [self.parts.sep.join(topics), f"{topics[0]} – {topics[-1]}"] if topics else []
        tried = [f"{spec.title}{self.parts.label}{what}" for what in named]
        tried.append(spec.title + self.parts.part.format(k=number + 1, n=pages))
        return next((title for title in tried if self.title_fits(title, spec.layout)), spec.title)

    def _slide(self, layout_name: str, boxes: LayoutBoxes, name: str, title: str, page: list[Placed],
               notes: Optional[Sequence[str]]) -> None:
        layout = self.layout(layout_name)
        self.count += 1
        part = SlidePart.new(PackURI(f"/ppt/slides/slide{self.count}.xml"), self.prs.part.package, layout.part)
        self._slide_ids.add_sldId(self.prs.part.relate_to(part, RT.SLIDE))
        part._element.cSld.set("name", name)
        shapes = _Shapes()
        shapes.add(self._title_xml(shapes.next_id(), boxes, title, layout_name))
        body_used = False
        links: dict[str, str] = {}

        def link(address: str) -> str:
            if address not in links:
                links[address] = part.relate_to(address, RT.HYPERLINK, is_external=True)
            return links[address]

        for placed in page:
            block = placed.block
            if isinstance(block, TextBlock):
                as_body = block.kind == "plain" and not body_used
                body_used = body_used or as_body
                shapes.add(self._text_xml(shapes.next_id(), placed, block, boxes.body_type if as_body else None,
                                          link))
            elif isinstance(block, TableBlock):
                shapes.add(self._table_xml(shapes.next_id(), placed, block, link))
            elif isinstance(block, PictureBlock):
                _, rid = part.get_or_add_image_part(io.BytesIO(block.png))
                shapes.add(_picture_xml(shapes.next_id(), placed, rid, block.alt))
        if boxes.footer:
            shapes.add(self._footer_xml(shapes.next_id(), boxes.footer))
        if boxes.number and layout_name != "Title":
            shapes.add(self._number_xml(shapes.next_id(), boxes.number))
        old = part._element.cSld.spTree
        old.getparent().replace(old, parse_xml(shapes.tree()))
        if notes:
            self._notes(part, notes)

    # ------------------------------------------------------------ shapes
    def _title_xml(self, shape_id: int, boxes: LayoutBoxes, title: str, layout_name: str) -> str:
        para = self._fit_title(title, boxes.title, TITLE_SIZES.get(layout_name, 32.0))
        return _sp(shape_id, "Title", boxes.title, paras_xml([para], self.title_faces, self.lang),
                   ph=f'<p:ph type="{boxes.title_type}"/>', insets=TITLE_INSETS,
                   anchor="b" if layout_name in TITLE_SIZES else "ctr")

    def _fit_title(self, title: str, box: Area, largest: float) -> Para:
        """The title at the largest size (down to ``MIN_PT``) whose lines fit the title box."""
        para = self._try_title(title, box, largest)
        if para is None:
            raise BuildError(f"the title {title!r} does not fit its box even at {self.smallest:g} pt; shorten it")
        return para

    def _try_title(self, title: str, box: Area, largest: float) -> Optional[Para]:
        size = largest
        inner = box.w - TITLE_INSETS[0] - TITLE_INSETS[2]
        while size >= self.smallest:
            para = Para(inline(title, bold=True), size)
            height = sum(h for *_, h in self.title_flow.units([para], inner))
            if height <= box.h - TITLE_INSETS[1] - TITLE_INSETS[3]:
                return para
            size -= 2
        return None

    def title_fits(self, title: str, layout_name: str) -> bool:
        """Whether ``title`` fits the title box of ``layout_name`` at ``smallest`` pt or more."""
        return self._try_title(title, self.boxes(layout_name).title, TITLE_SIZES.get(layout_name, 32.0)) is not None

    def _text_xml(self, shape_id: int, placed: Placed, block: TextBlock, body_type: Optional[str], link) -> str:
        style = block.style
        ph = None
        if body_type:
            ph = '<p:ph idx="1"/>' if body_type == "obj" else f'<p:ph type="{body_type}" idx="1"/>'
        left, _, right, _ = style.insets
        cuts = [self.flow.word_cuts(para, placed.area.w - left - right) for para in block.paras] if style.wrap else []
        return _sp(shape_id, "Body" if ph else block.kind.title(), placed.area,
                   paras_xml(block.paras, self.text_faces, self.lang, link, cuts), ph=ph, insets=style.insets,
                   fill_colour=style.fill, line=style.line, wrap=style.wrap)

    def _table_xml(self, shape_id: int, placed: Placed, table: TableBlock, link) -> str:
        columns = [emu(w) for w in placed.columns]
        columns[-1] = emu(placed.area.w) - sum(columns[:-1])
        heights = [emu(h) for h in placed.rows]
        grid = "".join(f'<a:gridCol w="{w}"/>' for w in columns)
        rows = []
        for number, (row, height) in enumerate(zip((table.header, *table.rows), heights)):
            shade = "accent1" if number == 0 else ("bg1" if number % 2 else "bg2")
            cells = "".join(self._cell_xml(cell, shade, link) for cell in row)
            rows.append(f'<a:tr h="{height}">{cells}</a:tr>')
        area = Area(placed.area.x, placed.area.y, placed.area.w, sum(heights) / EMU_PER_PT)
        return (f'<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="{shape_id}" name="Table {shape_id}"/>'
                f'<p:cNvGraphicFramePr><a:graphicFrameLocks noGrp="1"/></p:cNvGraphicFramePr><p:nvPr/>'
                f'</p:nvGraphicFramePr>{xfrm(area, "p:xfrm")}<a:graphic>'
                f'<a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table"><a:tbl>'
                f'<a:tblPr firstRow="1" bandRow="1"/><a:tblGrid>{grid}</a:tblGrid>{"".join(rows)}</a:tbl>'
                f'</a:graphicData></a:graphic></p:graphicFrame>')

    def _cell_xml(self, cell: Sequence[Para], shade: str, link) -> str:
        left, top, right, bottom = (emu(v) for v in CELL_INSETS)
        paras = paras_xml(cell, self.text_faces, self.lang, link) if cell else f'<a:p><a:endParaRPr lang="{self.lang}"/></a:p>'
        return (f'<a:tc><a:txBody><a:bodyPr/><a:lstStyle/>{paras}</a:txBody>'
                f'<a:tcPr marL="{left}" marR="{right}" marT="{top}" marB="{bottom}" anchor="t">'
                f'{fill(shade)}</a:tcPr></a:tc>')

    def _footer_xml(self, shape_id: int, box: Area) -> str:
        para = Para((Span(self.footer),), FOOTER_PT)
        inner = box.w - TITLE_INSETS[0] - TITLE_INSETS[2]
        height = sum(h for *_, h in self.flow.units([para], inner)) + TITLE_INSETS[1] + TITLE_INSETS[3]
        area = box if height <= box.h else Area(box.x, box.y + box.h - height, box.w, height)
        return _sp(shape_id, "Footer", area, paras_xml([para], self.text_faces, self.lang),
                   ph='<p:ph type="ftr" sz="quarter" idx="11"/>', insets=TITLE_INSETS, anchor="ctr")

    def _number_xml(self, shape_id: int, box: Area) -> str:
        run_props = (f'<a:rPr lang="{self.lang}" sz="{round(FOOTER_PT * 100)}" dirty="0">'
                     f'<a:latin typeface="{self.text_faces.latin}"/><a:ea typeface="{self.text_faces.ea}"/>'
                     f'<a:cs typeface="{self.text_faces.latin}"/></a:rPr>')
        para = (f'<a:p><a:pPr algn="r"/><a:fld id="{SLIDE_NUMBER_FIELD}" type="slidenum">{run_props}'
                f'<a:t>{self.count}</a:t></a:fld></a:p>')
        return _sp(shape_id, "Slide Number", box, para, ph='<p:ph type="sldNum" sz="quarter" idx="12"/>',
                   insets=TITLE_INSETS, anchor="ctr")

    def _notes(self, slide_part, lines: Sequence[str]) -> None:
        """A notes page built in one piece (python-pptx clones the notes master shape by shape)."""
        if self._notes_master is None:
            self._notes_master = self.prs.part.notes_master_part
        master = self._notes_master
        xml = NOTES_XML.format(xmlns=XMLNS, paras=notes_xml(lines, self.text_faces, self.lang))
        notes = NotesSlidePart(PackURI(f"/ppt/notesSlides/notesSlide{self.count}.xml"), CT.PML_NOTES_SLIDE,
                               self.prs.part.package, parse_xml(xml))
        notes.relate_to(master, RT.NOTES_MASTER)
        notes.relate_to(slide_part, RT.SLIDE)
        slide_part.relate_to(notes, RT.NOTES_SLIDE)

    # -------------------------------------------------------------- save
    def finish(self, title: str, date: datetime.datetime) -> bytes:
        """The presentation as reproducible bytes: fixed zip times, document dates = ``date``."""
        props = self.prs.core_properties
        props.title = title
        props.author = props.last_modified_by = "torchdeck"
        props.revision = 1
        props.created = props.modified = date
        raw = io.BytesIO()
        self.prs.save(raw)
        return restamp(raw.getvalue())


class _Shapes:
    def __init__(self):
        self.items: list[str] = []
        self._id = 1

    def next_id(self) -> int:
        self._id += 1
        return self._id

    def add(self, xml: str) -> None:
        self.items.append(xml)

    def tree(self) -> str:
        return (f'<p:spTree {XMLNS}><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr>'
                f'<p:grpSpPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="0" cy="0"/><a:chOff x="0" y="0"/>'
                f'<a:chExt cx="0" cy="0"/></a:xfrm></p:grpSpPr>{"".join(self.items)}</p:spTree>')


def _sp(shape_id: int, name: str, area: Area, paras: str, *, ph: Optional[str] = None, insets=(0, 0, 0, 0),
        fill_colour: Optional[str] = None, line: Optional[str] = None, wrap: bool = True, anchor: str = "t") -> str:
    left, top, right, bottom = (emu(v) for v in insets)
    kind = '<p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr>' if ph else '<p:cNvSpPr txBox="1"/>'
    outline = f'<a:ln w="19050">{fill(line)}</a:ln>' if line else '<a:ln><a:noFill/></a:ln>'
    return (f'<p:sp><p:nvSpPr><p:cNvPr id="{shape_id}" name="{clean(name)} {shape_id}"/>{kind}'
            f'<p:nvPr>{ph or ""}</p:nvPr></p:nvSpPr><p:spPr>{xfrm(area)}<a:prstGeom prst="rect"><a:avLst/>'
            f'</a:prstGeom>{fill(fill_colour) or "<a:noFill/>"}{outline}</p:spPr><p:txBody>'
            f'<a:bodyPr vert="horz" wrap="{"square" if wrap else "none"}" lIns="{left}" tIns="{top}" '
            f'rIns="{right}" bIns="{bottom}" rtlCol="0" anchor="{anchor}"><a:noAutofit/></a:bodyPr>'
            f'<a:lstStyle/>{paras}</p:txBody></p:sp>')


def _picture_xml(shape_id: int, placed: Placed, rid: str, alt: str) -> str:
    """A picture shape; ``alt``: its description (``descr``), what a screen reader says of it."""
    descr = clean(alt).replace('"', "&quot;")
    return (f'<p:pic><p:nvPicPr><p:cNvPr id="{shape_id}" name="Diagram {shape_id}" descr="{descr}"/>'
            f'<p:cNvPicPr>'
            f'<a:picLocks noChangeAspect="1"/></p:cNvPicPr><p:nvPr/></p:nvPicPr><p:blipFill>'
            f'<a:blip r:embed="{rid}"/><a:stretch><a:fillRect/></a:stretch></p:blipFill><p:spPr>'
            f'{xfrm(placed.area)}<a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr></p:pic>')


def theme_typefaces(prs, east_asian: bool = False) -> tuple[Typefaces, Typefaces]:
    """(body, title) typefaces: the theme's minor and major fonts, Latin and East Asian."""
    theme = etree.fromstring(prs.slide_master.part.part_related_by(RT.THEME).blob)
    faces = []
    for kind in ("minorFont", "majorFont"):
        group = theme.find(f".//a:fontScheme/a:{kind}", NS)
        latin = group.find("a:latin", NS).get("typeface") or "DejaVu Sans"
        ea = group.find("a:ea", NS).get("typeface") or DEFAULT_EA
        faces.append(Typefaces(latin, ea, east_asian=east_asian))
    return faces[0], faces[1]


def restamp(data: bytes) -> bytes:
    """The same zip with every entry dated 1980-01-01 (python-pptx stamps the current time).

    The dates sit at fixed offsets of each local header and central directory entry;
    patching them there keeps the compressed data as it is.
    """
    out = bytearray(data)
    end = out.rfind(b"PK\x05\x06")
    count, _, start = struct.unpack_from("<HII", out, end + 10)
    at = start
    for _ in range(count):
        if out[at:at + 4] != b"PK\x01\x02":
            raise BuildError("the saved deck is not a plain zip file")
        struct.pack_into("<HH", out, at + 12, DOS_TIME, DOS_DATE)
        local = struct.unpack_from("<I", out, at + 42)[0]
        struct.pack_into("<HH", out, local + 10, DOS_TIME, DOS_DATE)
        names, extra, comment = struct.unpack_from("<HHH", out, at + 28)
        at += 46 + names + extra + comment
    return bytes(out)


def _placeholders(element) -> dict[int, tuple[Area, str]]:
    """{idx: (box in pt, OOXML type)} of the placeholders of a layout or master that place themselves."""
    found = {}
    for shape in element.iter(f"{{{NS['p']}}}sp"):
        ph = shape.find("p:nvSpPr/p:nvPr/p:ph", NS)
        off = shape.find("p:spPr/a:xfrm/a:off", NS)
        ext = shape.find("p:spPr/a:xfrm/a:ext", NS)
        if ph is None or off is None or ext is None:
            continue
        kind = ph.get("type", "obj")
        idx = int(ph.get("idx", 0))
        if kind in ("title", "ctrTitle"):
            idx = 0
        found[idx] = (Area(int(off.get("x")) / EMU_PER_PT, int(off.get("y")) / EMU_PER_PT,
                           int(ext.get("cx")) / EMU_PER_PT, int(ext.get("cy")) / EMU_PER_PT), kind)
    return found


NOTES_XML = (
    '<p:notes {xmlns}><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/>'
    '</p:nvGrpSpPr><p:grpSpPr/><p:sp><p:nvSpPr><p:cNvPr id="2" name="Slide Image Placeholder 1"/><p:cNvSpPr>'
    '<a:spLocks noGrp="1" noRot="1" noChangeAspect="1"/></p:cNvSpPr><p:nvPr><p:ph type="sldImg"/></p:nvPr>'
    '</p:nvSpPr><p:spPr/></p:sp><p:sp><p:nvSpPr><p:cNvPr id="3" name="Notes Placeholder 2"/><p:cNvSpPr>'
    '<a:spLocks noGrp="1"/></p:cNvSpPr><p:nvPr><p:ph type="body" idx="1"/></p:nvPr></p:nvSpPr><p:spPr/>'
    '<p:txBody><a:bodyPr/><a:lstStyle/>{paras}</p:txBody></p:sp></p:spTree></p:cSld>'
    '<p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:notes>')
