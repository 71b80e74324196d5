"""Write ``templates/slides.pptx``: the 16:9 master, its named layouts and the theme of the workshop deck.

The renderer (``generator/render/slides/``) picks layouts by the names in ``LAYOUTS``,
reads each layout's title and body placeholders as the boxes to fill, and takes its
fonts from the theme. A presenter restyles the deck by editing the template in
PowerPoint (colours, fonts, backgrounds, placeholder positions); this script only
makes the first version and can make it again byte for byte:

    .venv/bin/python tools/make_slides_template.py
"""
from __future__ import annotations

import io
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pptx
from lxml import etree

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "templates" / "slides.pptx"
BASE = Path(pptx.__file__).parent / "templates" / "default.pptx"  # theme effects come from here

EMU_PER_INCH = 914400
SLIDE_W, SLIDE_H = 12192000, 6858000  # 13.333 x 7.5 in, 16:9
ZIP_TIME = (1980, 1, 1, 0, 0, 0)

NS = {"a": "http://schemas.openxmlformats.org/drawingml/2006/main",
      "p": "http://schemas.openxmlformats.org/presentationml/2006/main",
      "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships"}
XMLNS = " ".join(f'xmlns:{k}="{v}"' for k, v in NS.items())
HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
REL_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
CORE_REL = "http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties"
CT = "application/vnd.openxmlformats-officedocument.presentationml"

COLOURS = {  # theme colour scheme: the renderer refers to these by role (schemeClr), never by value
    "dk1": "1F2328", "lt1": "FFFFFF", "dk2": "12263F", "lt2": "F2F4F7",
    "accent1": "EE4C2C",  # PyTorch orange: accents, table headers
    "accent2": "2F6FB2",  # blue: quotes, links
    "accent3": "2E7D32",  # green: correct answers
    "accent4": "C62828",  # red: wrong answers
    "accent5": "7B4FB0",  # purple: analogies
    "accent6": "B26A00",  # amber: "not verified here" marks
    "hlink": "2F6FB2", "folHlink": "7B4FB0",
}
LATIN_FONT = "DejaVu Sans"
EA_FONT = "Noto Sans CJK SC"


def inches(value: float) -> int:
    return round(value * EMU_PER_INCH)


@dataclass(frozen=True)
class Box:
    x: float
    y: float
    w: float
    h: float

    def xfrm(self) -> str:
        return (f'<a:xfrm><a:off x="{inches(self.x)}" y="{inches(self.y)}"/>'
                f'<a:ext cx="{inches(self.w)}" cy="{inches(self.h)}"/></a:xfrm>')


MARGIN = 0.6
FULL_W = 13.3333 - 2 * MARGIN
TITLE = Box(MARGIN, 0.3, FULL_W, 0.95)
BODY = Box(MARGIN, 1.4, FULL_W, 5.35)
FOOTER = Box(MARGIN, 6.92, 9.8, 0.42)
NUMBER = Box(13.3333 - MARGIN - 1.2, 6.92, 1.2, 0.42)


@dataclass(frozen=True)
class Layout:
    name: str
    kind: str  # the OOXML layout type
    title: Box
    body: Box | None
    body_type: str = "body"
    background: str | None = None  # scheme colour of the background
    text: str | None = None  # scheme colour of title and body text where the background is dark
    title_colour: str = "tx2"
    number: bool = True
    bar: str | None = None  # scheme colour of a thin accent bar left of the title


LAYOUTS = (
    Layout("Title", "title", Box(0.8, 1.7, 11.73, 2.0), Box(0.8, 3.9, 11.73, 2.6), "subTitle",
           background="tx2", text="bg1", title_colour="bg1", number=False),
    Layout("Outline", "obj", TITLE, BODY, bar="accent1"),
    Layout("Section", "secHead", Box(0.8, 0.7, 11.73, 1.6), Box(0.8, 2.45, 11.73, 4.3),
           background="tx2", text="bg1", title_colour="bg1"),
    Layout("Lesson", "obj", TITLE, BODY, bar="accent1"),
    Layout("Diagram", "obj", TITLE, BODY, bar="accent2"),
    Layout("Quiz", "obj", TITLE, BODY, background="bg2", title_colour="accent1", bar="accent1"),
    Layout("Answer", "obj", TITLE, BODY, title_colour="accent3", bar="accent3"),
    Layout("Review", "obj", TITLE, BODY, background="bg2", title_colour="accent5", bar="accent5"),
    Layout("Cheat Sheet", "obj", TITLE, BODY, title_colour="accent1", bar="accent1"),
    Layout("Flashcards", "obj", TITLE, BODY, title_colour="accent5", bar="accent5"),
)


def solid(colour: str) -> str:
    return f'<a:solidFill><a:schemeClr val="{colour}"/></a:solidFill>'


def fonts(major: bool) -> str:
    kind = "mj" if major else "mn"
    return f'<a:latin typeface="+{kind}-lt"/><a:ea typeface="+{kind}-ea"/><a:cs typeface="+{kind}-cs"/>'


def placeholder(shape_id: int, name: str, ph: str, box: Box, text: str, *, anchor: str = "t",
                style: str = "") -> str:
    return (f'<p:sp><p:nvSpPr><p:cNvPr id="{shape_id}" name="{name}"/><p:cNvSpPr><a:spLocks noGrp="1"/>'
            f'</p:cNvSpPr><p:nvPr>{ph}</p:nvPr></p:nvSpPr><p:spPr>{box.xfrm()}'
            f'<a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr>'
            f'<p:txBody><a:bodyPr vert="horz" wrap="square" lIns="91440" tIns="45720" rIns="91440" bIns="45720" '
            f'rtlCol="0" anchor="{anchor}"><a:noAutofit/></a:bodyPr><a:lstStyle>{style}</a:lstStyle>'
            f'<a:p><a:r><a:rPr lang="en-US"/><a:t>{text}</a:t></a:r></a:p></p:txBody></p:sp>')


def footer_shapes(first_id: int, colour: str | None, number: bool) -> str:
    tint = solid(colour) if colour else '<a:solidFill><a:schemeClr val="tx1"><a:lumMod val="65000"/><a:lumOff val="35000"/></a:schemeClr></a:solidFill>'
    left = f'<a:lvl1pPr algn="l"><a:defRPr sz="1400">{tint}</a:defRPr></a:lvl1pPr>'
    right = f'<a:lvl1pPr algn="r"><a:defRPr sz="1400">{tint}</a:defRPr></a:lvl1pPr>'
    shapes = placeholder(first_id, "Footer", '<p:ph type="ftr" sz="quarter" idx="11"/>', FOOTER,
                         "verified against torch", anchor="ctr", style=left)
    if number:
        shapes += (placeholder(first_id + 1, "Slide Number", '<p:ph type="sldNum" sz="quarter" idx="12"/>', NUMBER,
                               "", anchor="ctr", style=right)
                   .replace('<a:r><a:rPr lang="en-US"/><a:t></a:t></a:r>',
                            '<a:fld id="{8B3A1C2E-5D4F-4E6A-9B7C-1D2E3F4A5B6C}" type="slidenum">'
                            '<a:rPr lang="en-US"/><a:t>‹#›</a:t></a:fld>'))
    return shapes


def tree(shapes: str) -> str:
    return ('<p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr>'
            '<p:grpSpPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="0" cy="0"/><a:chOff x="0" y="0"/>'
            f'<a:chExt cx="0" cy="0"/></a:xfrm></p:grpSpPr>{shapes}</p:spTree>')


def layout_xml(layout: Layout) -> str:
    background = (f'<p:bg><p:bgPr>{solid(layout.background)}<a:effectLst/></p:bgPr></p:bg>'
                  if layout.background else "")
    title_ph = '<p:ph type="ctrTitle"/>' if layout.kind == "title" else '<p:ph type="title"/>'
    title_style = f'<a:lvl1pPr><a:defRPr>{solid(layout.title_colour)}</a:defRPr></a:lvl1pPr>'
    shapes = ""
    if layout.bar:
        bar = Box(0.0, layout.title.y + 0.12, 0.22, layout.title.h - 0.24)
        shapes += (f'<p:sp><p:nvSpPr><p:cNvPr id="9" name="Accent Bar"/><p:cNvSpPr/><p:nvPr userDrawn="1"/>'
                   f'</p:nvSpPr><p:spPr>{bar.xfrm()}<a:prstGeom prst="rect"><a:avLst/></a:prstGeom>'
                   f'{solid(layout.bar)}<a:ln><a:noFill/></a:ln></p:spPr></p:sp>')
    shapes += placeholder(2, "Title", title_ph, layout.title, "Slide title",
                          anchor="b" if layout.kind in ("title", "secHead") else "ctr", style=title_style)
    if layout.body:
        body_style = (f'<a:lvl1pPr marL="0" indent="0"><a:buNone/><a:defRPr sz="2400">{solid(layout.text)}'
                      f'</a:defRPr></a:lvl1pPr>' if layout.text else "")
        kind = f'type="{layout.body_type}" ' if layout.body_type != "obj" else ""
        shapes += placeholder(3, "Body", f'<p:ph {kind}idx="1"/>', layout.body, "Content area", style=body_style)
    shapes += footer_shapes(4, layout.text, layout.number)
    show_master = ' showMasterSp="0"' if layout.background else ""
    return (f'{HEAD}<p:sldLayout {XMLNS} type="{layout.kind}" preserve="1"{show_master}>'
            f'<p:cSld name="{layout.name}">{background}{tree(shapes)}</p:cSld>'
            f'<p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sldLayout>')


def level_style(level: int, size: int, bullet: str) -> str:
    margin = 342900 + 400050 * (level - 1)
    return (f'<a:lvl{level}pPr marL="{margin}" indent="-342900" algn="l" defTabSz="914400" rtl="0" eaLnBrk="1" '
            f'latinLnBrk="0" hangingPunct="1"><a:spcBef><a:spcPts val="600"/></a:spcBef>'
            f'<a:buFont typeface="{LATIN_FONT}"/><a:buChar char="{bullet}"/><a:defRPr sz="{size}" kern="1200">'
            f'{solid("tx1")}{fonts(False)}</a:defRPr></a:lvl{level}pPr>')


def master_xml() -> str:
    shapes = (placeholder(2, "Title", '<p:ph type="title"/>', TITLE, "Slide title", anchor="ctr")
              + placeholder(3, "Body", '<p:ph type="body" idx="1"/>', BODY, "Content area")
              + footer_shapes(4, None, True))
    title_style = (f'<p:titleStyle><a:lvl1pPr algn="l" defTabSz="914400" rtl="0" eaLnBrk="1" latinLnBrk="0" '
                   f'hangingPunct="1"><a:spcBef><a:spcPct val="0"/></a:spcBef><a:buNone/>'
                   f'<a:defRPr sz="3200" b="1" kern="1200">{solid("tx2")}{fonts(True)}</a:defRPr></a:lvl1pPr>'
                   f'</p:titleStyle>')
    body_style = "<p:bodyStyle>" + "".join(
        level_style(level, size, bullet) for level, size, bullet in
        ((1, 2000, "•"), (2, 1800, "–"), (3, 1600, "•"), (4, 1600, "–"), (5, 1600, "•"))) + "</p:bodyStyle>"
    other_style = (f'<p:otherStyle><a:defPPr><a:defRPr lang="en-US"/></a:defPPr><a:lvl1pPr marL="0" algn="l" '
                   f'defTabSz="914400" rtl="0" eaLnBrk="1" latinLnBrk="0" hangingPunct="1"><a:defRPr sz="1800" '
                   f'kern="1200">{solid("tx1")}{fonts(False)}</a:defRPr></a:lvl1pPr></p:otherStyle>')
    layout_ids = "".join(f'<p:sldLayoutId id="{2147483649 + n}" r:id="rId{n + 1}"/>' for n in range(len(LAYOUTS)))
    return (f'{HEAD}<p:sldMaster {XMLNS}><p:cSld><p:bg><p:bgRef idx="1001"><a:schemeClr val="bg1"/></p:bgRef>'
            f'</p:bg>{tree(shapes)}</p:cSld><p:clrMap bg1="lt1" tx1="dk1" bg2="lt2" tx2="dk2" accent1="accent1" '
            f'accent2="accent2" accent3="accent3" accent4="accent4" accent5="accent5" accent6="accent6" '
            f'hlink="hlink" folHlink="folHlink"/><p:sldLayoutIdLst>{layout_ids}</p:sldLayoutIdLst>'
            f'<p:hf hdr="0" dt="0"/><p:txStyles>{title_style}{body_style}{other_style}</p:txStyles></p:sldMaster>')


def theme_xml(base: bytes) -> bytes:
    root = etree.fromstring(base)
    root.set("name", "torchdeck")
    scheme = root.find(".//a:clrScheme", NS)
    scheme.set("name", "torchdeck")
    for role, value in COLOURS.items():
        slot = scheme.find(f"a:{role}", NS)
        for child in list(slot):
            slot.remove(child)
        etree.SubElement(slot, f"{{{NS['a']}}}srgbClr", val=value)
    font_scheme = root.find(".//a:fontScheme", NS)
    font_scheme.set("name", "torchdeck")
    for kind in ("majorFont", "minorFont"):
        group = font_scheme.find(f"a:{kind}", NS)
        group.find("a:latin", NS).set("typeface", LATIN_FONT)
        group.find("a:ea", NS).set("typeface", EA_FONT)
        for script in group.findall("a:font", NS):
            if script.get("script") in ("Hans", "Hant", "Jpan", "Hang"):
                script.set("typeface", EA_FONT)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)


def rels(*targets: tuple[str, str]) -> str:
    def uri(kind: str) -> str:
        return kind if ":" in kind else f"{REL_NS}/{kind}"

    items = "".join(f'<Relationship Id="rId{n}" Type="{uri(kind)}" Target="{target}"/>'
                    for n, (kind, target) in enumerate(targets, 1))
    return f'{HEAD}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">{items}</Relationships>'


def presentation_xml() -> str:
    return (f'{HEAD}<p:presentation {XMLNS} saveSubsetFonts="1"><p:sldMasterIdLst>'
            f'<p:sldMasterId id="2147483648" r:id="rId1"/></p:sldMasterIdLst>'
            f'<p:sldSz cx="{SLIDE_W}" cy="{SLIDE_H}"/><p:notesSz cx="6858000" cy="9144000"/>'
            f'<p:defaultTextStyle><a:defPPr><a:defRPr lang="en-US"/></a:defPPr><a:lvl1pPr marL="0" algn="l" '
            f'defTabSz="914400" rtl="0" eaLnBrk="1" latinLnBrk="0" hangingPunct="1"><a:defRPr sz="1800" kern="1200">'
            f'{solid("tx1")}{fonts(False)}</a:defRPr></a:lvl1pPr></p:defaultTextStyle></p:presentation>')


def content_types() -> str:
    overrides = [("/ppt/presentation.xml", f"{CT}.presentation.main+xml"),
                 ("/ppt/slideMasters/slideMaster1.xml", f"{CT}.slideMaster+xml"),
                 ("/ppt/presProps.xml", f"{CT}.presProps+xml"),
                 ("/ppt/viewProps.xml", f"{CT}.viewProps+xml"),
                 ("/ppt/theme/theme1.xml", "application/vnd.openxmlformats-officedocument.theme+xml"),
                 ("/ppt/tableStyles.xml", f"{CT}.tableStyles+xml"),
                 *[(f"/ppt/slideLayouts/slideLayout{n}.xml", f"{CT}.slideLayout+xml")
                   for n in range(1, len(LAYOUTS) + 1)],
                 ("/docProps/core.xml", "application/vnd.openxmlformats-package.core-properties+xml"),
                 ("/docProps/app.xml", "application/vnd.openxmlformats-officedocument.extended-properties+xml")]
    items = "".join(f'<Override PartName="{name}" ContentType="{kind}"/>' for name, kind in overrides)
    return (f'{HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            f'<Default Extension="xml" ContentType="application/xml"/><Default Extension="png" ContentType="image/png"/>'
            f'<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            f'{items}</Types>')


CORE = (f'{HEAD}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><dc:title>torchdeck workshop template</dc:title>'
        '<dc:creator>torchdeck</dc:creator><cp:lastModifiedBy>torchdeck</cp:lastModifiedBy><cp:revision>1</cp:revision>'
        '<dcterms:created xsi:type="dcterms:W3CDTF">2000-01-01T00:00:00Z</dcterms:created>'
        '<dcterms:modified xsi:type="dcterms:W3CDTF">2000-01-01T00:00:00Z</dcterms:modified></cp:coreProperties>')
APP = (f'{HEAD}<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties">'
       '<Application>torchdeck</Application><PresentationFormat>Widescreen</PresentationFormat></Properties>')


def package() -> dict[str, bytes]:
    with zipfile.ZipFile(BASE) as base:
        theme = base.read("ppt/theme/theme1.xml")
        pres_props = base.read("ppt/presProps.xml")
        view_props = base.read("ppt/viewProps.xml")
        table_styles = base.read("ppt/tableStyles.xml")
    parts = {
        "[Content_Types].xml": content_types(),
        "_rels/.rels": rels(("officeDocument", "ppt/presentation.xml"),
                            (CORE_REL, "docProps/core.xml"), ("extended-properties", "docProps/app.xml")),
        "docProps/core.xml": CORE,
        "docProps/app.xml": APP,
        "ppt/presentation.xml": presentation_xml(),
        "ppt/_rels/presentation.xml.rels": rels(("slideMaster", "slideMasters/slideMaster1.xml"),
                                                ("presProps", "presProps.xml"), ("viewProps", "viewProps.xml"),
                                                ("theme", "theme/theme1.xml"), ("tableStyles", "tableStyles.xml")),
        "ppt/presProps.xml": pres_props,
        "ppt/viewProps.xml": view_props,
        "ppt/tableStyles.xml": table_styles,
        "ppt/theme/theme1.xml": theme_xml(theme),
        "ppt/slideMasters/slideMaster1.xml": master_xml(),
        "ppt/slideMasters/_rels/slideMaster1.xml.rels": rels(
            *[("slideLayout", f"../slideLayouts/slideLayout{n}.xml") for n in range(1, len(LAYOUTS) + 1)],
            ("theme", "../theme/theme1.xml")),
    }
    for number, layout in enumerate(LAYOUTS, 1):
        parts[f"ppt/slideLayouts/slideLayout{number}.xml"] = layout_xml(layout)
        parts[f"ppt/slideLayouts/_rels/slideLayout{number}.xml.rels"] = rels(
            ("slideMaster", "../slideMasters/slideMaster1.xml"))
    return {name: data.encode("utf-8") if isinstance(data, str) else data for name, data in parts.items()}


def zipped(parts: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            info = zipfile.ZipInfo(name, ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return buffer.getvalue()


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from generator.atomic import atomic_write_bytes

    atomic_write_bytes(TARGET, zipped(package()))
    print(f"wrote {TARGET.relative_to(ROOT)} ({len(LAYOUTS)} layouts: {', '.join(layout.name for layout in LAYOUTS)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
