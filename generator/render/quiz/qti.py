"""IMS QTI packages of the quiz: QTI 1.2 (Canvas classic quizzes, Blackboard, D2L) and QTI 2.1
(OpenOLAT, TAO, Inspera and others), each a zipped IMS content package.

Both hold the Moodle XML's questions: the same order, the options in the order every output
shows them (shuffled by the LMS except true/false, as in Moodle), the same HTML texts, each
option's ``why`` as its feedback, the facts as general feedback, the question's points, and
the scoring of ``moodle.fractions`` (the key's rule, not restated here): a single pick scores
all or nothing; where several answers count, each option adds its percentage of the points
(right options ``+100/right``, wrong ones ``-100/wrong``) and the total never goes below 0.

* ``.qti12.zip``: ``imsmanifest.xml`` (IMS CP 1.1, one ``imsqti_xmlv1p2`` resource) and one
  ``questestinterop`` document. Each item's ``SCORE`` is a percentage (0..100) of its points,
  which ``qmd_weighting`` and Canvas's ``points_possible`` carry; each option's
  ``respcondition`` adds its percentage and shows its feedback.
* ``.qti21.zip``: ``imsmanifest.xml``, ``items/<id>.xml`` (one ``assessmentItem`` each, scored
  in points by a ``mapping`` bounded below by 0 and above by the points) and ``test.xml``
  (an ``assessmentTest`` that takes them in order and sums their ``SCORE``).

The bytes depend on the questions alone: fixed zip timestamps and attributes, sorted entries.
"""
from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
import zipfile
from typing import Iterable, Sequence

from ...model import Option, Question
from ...text import Text
from ..base import RenderJob, takes_many_answers
from ..order import shown
from .moodle import facts_html, fractions, inline_html, question_html

QTI12 = "http://www.imsglobal.org/xsd/ims_qtiasiv1p2"
QTI21 = "http://www.imsglobal.org/xsd/imsqti_v2p1"
CP = "http://www.imsglobal.org/xsd/imscp_v1p1"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
LOCATIONS = {
    QTI12: "http://www.imsglobal.org/xsd/ims_qtiasiv1p2p1.xsd",
    QTI21: "http://www.imsglobal.org/xsd/qti/qtiv2p1/imsqti_v2p1.xsd",
    CP: "http://www.imsglobal.org/xsd/imscp_v1p1.xsd",
}
RESPONSE = "RESPONSE"
GENERAL = "GENERAL"  # the identifier of the general feedback (the facts), shown whatever was ticked
ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # the earliest time a zip entry can carry: no clock in the bytes
_NOT_ID = re.compile(r"[^A-Za-z0-9_.-]")


# ------------------------------------------------------------ shared
def option_letters(question: Question, job: RenderJob) -> list[tuple[str, Option]]:
    """``[("A", option), ...]``: the options in the order every output shows them, lettered."""
    return [(chr(ord("A") + index), option) for index, option in enumerate(shown(question, job.course))]


def identifier(text: str) -> str:
    """``text`` as an XML identifier (NCName): a leading letter, nothing but letters, digits, ``_.-``."""
    text = _NOT_ID.sub("_", text)
    return text if text[:1].isalpha() else f"Q{text}"


def shuffles(question: Question) -> bool:
    """Whether the LMS may shuffle the options: as in the Moodle XML, all but true/false."""
    return question.kind != "truefalse"


def _number(value: float) -> str:
    """1, 0.5, 0.66667, -2: a score as QTI reads it."""
    return f"{value:.5f}".rstrip("0").rstrip(".")


def _paragraph(job: RenderJob, text: Text) -> str:
    return f"<p>{inline_html(job.t(text))}</p>"


def _document(root: ET.Element) -> bytes:
    _indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"


_HTML = {f"{{{QTI21}}}{tag}" for tag in ("div", "p", "ul", "pre")}  # mixed content: indenting would add text


def _indent(element: ET.Element, level: int = 0) -> None:
    """``ET.indent``, but leaving the HTML (QTI 2.1's ``div``, ``p``, ``ul``, ``pre``) exactly as written."""
    if element.tag in _HTML or not len(element):
        return
    inner = "\n" + "  " * (level + 1)
    if not (element.text or "").strip():
        element.text = inner
    for child in element:
        _indent(child, level + 1)
        if not (child.tail or "").strip():
            child.tail = inner
    child.tail = "\n" + "  " * level


def _located(namespace: str) -> dict[str, str]:
    return {f"{{{XSI}}}schemaLocation": f"{namespace} {LOCATIONS[namespace]}"}


def zipped(files: dict[str, bytes]) -> bytes:
    """A zip of ``files``: entries sorted, each dated ZIP_TIME with the same attributes, deflated."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            info.external_attr = 0o644 << 16
            archive.writestr(info, files[name])
    return buffer.getvalue()


def manifest(identifier_: str, schema: str, version: str, resources: Iterable[ET.Element]) -> bytes:
    """An IMS CP 1.1 ``imsmanifest.xml`` listing ``resources``."""
    ET.register_namespace("", CP)
    ET.register_namespace("xsi", XSI)
    root = ET.Element(f"{{{CP}}}manifest", {"identifier": identifier_, **_located(CP)})
    metadata = ET.SubElement(root, f"{{{CP}}}metadata")
    ET.SubElement(metadata, f"{{{CP}}}schema").text = schema
    ET.SubElement(metadata, f"{{{CP}}}schemaversion").text = version
    ET.SubElement(root, f"{{{CP}}}organizations")
    holder = ET.SubElement(root, f"{{{CP}}}resources")
    holder.extend(resources)
    return _document(root)


def resource(ident: str, kind: str, href: str, depends: Sequence[str] = ()) -> ET.Element:
    element = ET.Element(f"{{{CP}}}resource", identifier=ident, type=kind, href=href)
    ET.SubElement(element, f"{{{CP}}}file", href=href)
    for other in depends:
        ET.SubElement(element, f"{{{CP}}}dependency", identifierref=other)
    return element


# ------------------------------------------------------------ QTI 1.2
def qti12_package(job: RenderJob, questions: Sequence[Question], title: str, stem: str) -> bytes:
    """The QTI 1.2 content package (zip bytes) Canvas, Blackboard and D2L import."""
    name = identifier(f"{stem}.{job.lang}")
    href = f"{name}.xml"
    files = {href: qti12_assessment(job, questions, title, name),
             "imsmanifest.xml": manifest(f"MANIFEST-{name}", "IMS Content", "1.1.4",
                                         [resource(f"RES-{name}", "imsqti_xmlv1p2", href)])}
    return zipped(files)


def qti12_assessment(job: RenderJob, questions: Sequence[Question], title: str, name: str) -> bytes:
    ET.register_namespace("", QTI12)
    ET.register_namespace("xsi", XSI)
    q = lambda tag: f"{{{QTI12}}}{tag}"  # noqa: E731
    root = ET.Element(q("questestinterop"), _located(QTI12))
    assessment = ET.SubElement(root, q("assessment"), {"ident": name, "title": title, XML_LANG: job.lang})
    section = ET.SubElement(assessment, q("section"), ident="root_section")
    for question in questions:
        section.append(_qti12_item(job, question))
    return _document(root)


def _qti12_item(job: RenderJob, question: Question) -> ET.Element:
    q = lambda tag: f"{{{QTI12}}}{tag}"  # noqa: E731
    several = takes_many_answers(question)
    right, wrong = fractions(question)
    letters = option_letters(question, job)
    item = ET.Element(q("item"), ident=identifier(question.id), title=question.id)
    fields = ET.SubElement(ET.SubElement(item, q("itemmetadata")), q("qtimetadata"))
    canvas_type = ("multiple_answers_question" if several else
                   "true_false_question" if question.kind == "truefalse" else "multiple_choice_question")
    for label, entry in [("question_type", canvas_type), ("points_possible", str(question.points)),
                         ("qmd_weighting", str(question.points)),
                         ("qmd_itemtype", "Multiple Response" if several else "Multiple Choice"),
                         ("qmd_levelofdifficulty", str(question.difficulty))]:
        field = ET.SubElement(fields, q("qtimetadatafield"))
        ET.SubElement(field, q("fieldlabel")).text = label
        ET.SubElement(field, q("fieldentry")).text = entry

    presentation = ET.SubElement(item, q("presentation"))
    _qti12_text(presentation, question_html(job, question))
    lid = ET.SubElement(presentation, q("response_lid"), ident=RESPONSE,
                        rcardinality="Multiple" if several else "Single")
    choices = ET.SubElement(lid, q("render_choice"), shuffle="Yes" if shuffles(question) else "No")
    for letter, option in letters:
        _qti12_text(ET.SubElement(choices, q("response_label"), ident=letter), _paragraph(job, option.text))

    processing = ET.SubElement(item, q("resprocessing"))
    outcomes = ET.SubElement(processing, q("outcomes"))
    ET.SubElement(outcomes, q("decvar"), varname="SCORE", vartype="Decimal", defaultval="0",
                  minvalue="0", maxvalue="100")
    general = ET.SubElement(processing, q("respcondition"), {"continue": "Yes"})
    ET.SubElement(ET.SubElement(general, q("conditionvar")), q("other"))
    ET.SubElement(general, q("displayfeedback"), feedbacktype="Response", linkrefid=GENERAL)
    for letter, option in letters:
        condition = ET.SubElement(processing, q("respcondition"), {"continue": "Yes"})
        ET.SubElement(ET.SubElement(condition, q("conditionvar")), q("varequal"), respident=RESPONSE).text = letter
        weight = right if option.correct else wrong
        if several and weight != "0":
            ET.SubElement(condition, q("setvar"), varname="SCORE", action="Add").text = weight
        elif not several and option.correct:
            ET.SubElement(condition, q("setvar"), varname="SCORE", action="Set").text = right
        ET.SubElement(condition, q("displayfeedback"), feedbacktype="Response", linkrefid=f"{letter}_fb")

    _qti12_feedback(item, GENERAL, facts_html(job, question))
    for letter, option in letters:
        _qti12_feedback(item, f"{letter}_fb", _paragraph(job, option.why))
    return item


def _qti12_text(parent: ET.Element, html_text: str) -> None:
    material = ET.SubElement(parent, f"{{{QTI12}}}material")
    ET.SubElement(material, f"{{{QTI12}}}mattext", texttype="text/html").text = html_text


def _qti12_feedback(item: ET.Element, ident: str, html_text: str) -> None:
    feedback = ET.SubElement(item, f"{{{QTI12}}}itemfeedback", ident=ident)
    _qti12_text(ET.SubElement(feedback, f"{{{QTI12}}}flow_mat"), html_text)


# ------------------------------------------------------------ QTI 2.1
def qti21_package(job: RenderJob, questions: Sequence[Question], title: str, stem: str) -> bytes:
    """The QTI 2.1 content package (zip bytes): an item per question and a test taking them in order."""
    name = identifier(f"{stem}.{job.lang}")
    files: dict[str, bytes] = {}
    resources: list[ET.Element] = []
    for question in questions:
        ident = identifier(question.id)
        href = f"items/{ident}.xml"
        files[href] = qti21_item(job, question)
        resources.append(resource(f"RES-{ident}", "imsqti_item_xmlv2p1", href))
    files["test.xml"] = qti21_test(job, questions, title, name)
    resources.insert(0, resource(f"RES-{name}", "imsqti_test_xmlv2p1", "test.xml",
                                 [f"RES-{identifier(q.id)}" for q in questions]))
    files["imsmanifest.xml"] = manifest(f"MANIFEST-{name}", "QTIv2.1 Package", "1.0.0", resources)
    return zipped(files)


def _q21(tag: str) -> str:
    return f"{{{QTI21}}}{tag}"


def _declare(parent: ET.Element, ident: str, cardinality: str, base: str, default: str | None = None) -> ET.Element:
    element = ET.SubElement(parent, _q21("outcomeDeclaration"), identifier=ident, cardinality=cardinality,
                            baseType=base)
    if default is not None:
        ET.SubElement(ET.SubElement(element, _q21("defaultValue")), _q21("value")).text = default
    return element


def qti21_item(job: RenderJob, question: Question) -> bytes:
    """One ``assessmentItem``: a ``choiceInteraction`` scored by a bounded ``mapping``."""
    ET.register_namespace("", QTI21)
    ET.register_namespace("xsi", XSI)
    several = takes_many_answers(question)
    right, wrong = fractions(question)
    letters = option_letters(question, job)
    root = ET.Element(_q21("assessmentItem"), {
        **_located(QTI21), "identifier": identifier(question.id), "title": question.id,
        "adaptive": "false", "timeDependent": "false", XML_LANG: job.lang})
    declaration = ET.SubElement(root, _q21("responseDeclaration"), identifier=RESPONSE,
                                cardinality="multiple" if several else "single", baseType="identifier")
    correct = ET.SubElement(declaration, _q21("correctResponse"))
    for letter, option in letters:
        if option.correct:
            ET.SubElement(correct, _q21("value")).text = letter
    mapping = ET.SubElement(declaration, _q21("mapping"), lowerBound="0", upperBound=str(question.points),
                            defaultValue="0")
    for letter, option in letters:
        percent = float(right if option.correct else wrong)
        ET.SubElement(mapping, _q21("mapEntry"), mapKey=letter, mappedValue=_number(question.points * percent / 100))
    _declare(root, "SCORE", "single", "float", "0")
    _declare(root, "MAXSCORE", "single", "float", str(question.points))
    _declare(root, "FEEDBACK", "multiple", "identifier")

    body = ET.SubElement(root, _q21("itemBody"))
    body.append(_html(question_html(job, question)))
    interaction = ET.SubElement(body, _q21("choiceInteraction"), responseIdentifier=RESPONSE,
                                shuffle="true" if shuffles(question) else "false",
                                maxChoices="0" if several else "1")
    for letter, option in letters:
        choice = ET.SubElement(interaction, _q21("simpleChoice"), identifier=letter)
        choice.extend(_html(_paragraph(job, option.text)))

    processing = ET.SubElement(root, _q21("responseProcessing"))
    score = ET.SubElement(processing, _q21("setOutcomeValue"), identifier="SCORE")
    ET.SubElement(score, _q21("mapResponse"), identifier=RESPONSE)
    feedback = ET.SubElement(ET.SubElement(processing, _q21("setOutcomeValue"), identifier="FEEDBACK"),
                             _q21("multiple"))
    ET.SubElement(feedback, _q21("variable"), identifier=RESPONSE)
    ET.SubElement(feedback, _q21("baseValue"), baseType="identifier").text = GENERAL

    for ident, html_text in [*((letter, _paragraph(job, option.why)) for letter, option in letters),
                             (GENERAL, facts_html(job, question))]:
        modal = ET.SubElement(root, _q21("modalFeedback"), outcomeIdentifier="FEEDBACK", identifier=ident,
                              showHide="show")
        modal.extend(_html(html_text))
    return _document(root)


def qti21_test(job: RenderJob, questions: Sequence[Question], title: str, name: str) -> bytes:
    """The ``assessmentTest``: one part, one section, the items in the quiz's order; SCORE sums theirs."""
    ET.register_namespace("", QTI21)
    ET.register_namespace("xsi", XSI)
    root = ET.Element(_q21("assessmentTest"), {**_located(QTI21), "identifier": name, "title": title})
    _declare(root, "SCORE", "single", "float", "0")
    _declare(root, "MAXSCORE", "single", "float", str(sum(q.points for q in questions)))
    part = ET.SubElement(root, _q21("testPart"), identifier="part", navigationMode="nonlinear",
                         submissionMode="simultaneous")
    section = ET.SubElement(part, _q21("assessmentSection"), identifier="section", title=title, visible="true")
    for question in questions:
        ident = identifier(question.id)
        ET.SubElement(section, _q21("assessmentItemRef"), identifier=ident, href=f"items/{ident}.xml")
    processing = ET.SubElement(root, _q21("outcomeProcessing"))
    total = ET.SubElement(processing, _q21("setOutcomeValue"), identifier="SCORE")
    ET.SubElement(total, _q21("sum")).append(ET.Element(_q21("testVariables"), variableIdentifier="SCORE"))
    return _document(root)


def _html(fragment: str) -> ET.Element:
    """The XHTML of ``fragment`` (what moodle.py writes as escaped HTML) as QTI 2.1 elements in a ``div``."""
    return ET.fromstring(f'<div xmlns="{QTI21}">{fragment}</div>')
