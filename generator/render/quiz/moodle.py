"""Moodle XML: the quiz's questions for import into a Moodle question bank.

Every question becomes a ``multichoice`` question (Moodle shuffles the options
itself, except for true/false ones), every option carries its ``why`` as
feedback, and the general feedback names the facts the question rests on.
"""
from __future__ import annotations

import html
import xml.etree.ElementTree as ET
from typing import Sequence

from ...markup import segments
from ...model import Question
from ..base import RenderJob, takes_many_answers
from ..order import shown

CATEGORY = "$course$/top/torchdeck"


def moodle_xml(job: RenderJob, questions: Sequence[Question], title: str) -> bytes:
    """The questions as a Moodle XML document (UTF-8 bytes), in a category named after ``title``."""
    quiz = ET.Element("quiz")
    quiz.append(_category(category(title)))
    for question in questions:
        quiz.append(_question(job, question))
    ET.indent(quiz)
    return ET.tostring(quiz, encoding="utf-8", xml_declaration=True) + b"\n"


def inline_html(text: str) -> str:
    """Escaped HTML; spans between backticks become ``<code>``, an explanation (from ``ℹ`` on) ``<em>``."""
    out = []
    for segment in segments(text):
        body = html.escape(segment.text)
        body = f"<code>{body}</code>" if segment.code else body
        out.append(f"<em>{body}</em>" if segment.explain else body)
    return "".join(out).replace("</em><em>", "")


def _category(path: str) -> ET.Element:
    element = ET.Element("question", type="category")
    _text(ET.SubElement(element, "category"), path)
    return element


def _question(job: RenderJob, question: Question) -> ET.Element:
    element = ET.Element("question", type="multichoice")
    _text(ET.SubElement(element, "name"), question.id)
    _html_text(element, "questiontext", question_html(job, question))
    _html_text(element, "generalfeedback", facts_html(job, question))
    ET.SubElement(element, "defaultgrade").text = str(question.points)
    ET.SubElement(element, "penalty").text = "0.3333333"
    ET.SubElement(element, "hidden").text = "0"
    ET.SubElement(element, "idnumber").text = question.id
    single = not takes_many_answers(question)
    ET.SubElement(element, "single").text = "true" if single else "false"
    ET.SubElement(element, "shuffleanswers").text = "false" if question.kind == "truefalse" else "true"
    ET.SubElement(element, "answernumbering").text = "ABCD"
    right, wrong = fractions(question)
    for option in shown(question, job.course):
        answer = ET.SubElement(element, "answer", fraction=right if option.correct else wrong, format="html")
        _text(answer, f"<p>{inline_html(job.t(option.text))}</p>")
        _html_text(answer, "feedback", f"<p>{inline_html(job.t(option.why))}</p>")
    tags = ET.SubElement(element, "tags")
    for tag in [*question.tags, f"difficulty::{question.difficulty}", *job.unverified_tags(question.facts)]:
        _text(ET.SubElement(tags, "tag"), tag)
    return element


def question_html(job: RenderJob, question: Question) -> str:
    scope = job.scope(question.facts)
    body = f"<p>{inline_html(job.t(question.stem))}</p>"
    if scope:
        body += f"<p><small>({html.escape(scope)})</small></p>"
    if question.code:
        body += f'<pre><code class="language-{html.escape(question.language)}">{html.escape(job.code(question))}</code></pre>'
    return body


def facts_html(job: RenderJob, question: Question) -> str:
    claims = "".join(f"<li>{inline_html(job.t(job.course.fact(f).claim))}</li>" for f in question.facts)
    notes = [job.unverified_note(question.facts), job.verified_where(question.facts)]
    return f"<ul>{claims}</ul>" + "".join(f"<p><em>{html.escape(note)}</em></p>" for note in notes if note)


def category(title: str) -> str:
    """The question-bank category the quiz's questions go to: one per title."""
    return f"{CATEGORY}/{title.replace('/', '-')}"


def fractions(question: Question) -> tuple[str, str]:
    """Grade percentages of a correct and a wrong option: 100/0 for a single pick; for several answers the
    key's rule: each right option +100/right %, each wrong one -100/wrong % (Moodle keeps a question >= 0)."""
    if not takes_many_answers(question):
        return "100", "0"
    correct = sum(o.correct for o in question.options)
    wrong = len(question.options) - correct
    return _percent(100 / correct), (_percent(-100 / wrong) if wrong else "0")


def _percent(value: float) -> str:
    """Moodle's spelling of a grade: 33.33333, 50, -25."""
    return f"{value:.5f}".rstrip("0").rstrip(".")


def _text(parent: ET.Element, value: str) -> None:
    ET.SubElement(parent, "text").text = value


def _html_text(parent: ET.Element, tag: str, value: str) -> None:
    _text(ET.SubElement(parent, tag, format="html"), value)
