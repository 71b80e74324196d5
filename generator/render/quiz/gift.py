"""GIFT, Moodle's plain-text import format: the Moodle XML's questions, texts and scoring, for
where a text file is easier to pass around or edit.

Each question is a ``multichoice`` in HTML (``[html]``), its options in the order every output
shows them: ``=`` marks the right option of a single pick; a question that takes several
answers weighs each option as the Moodle XML does (``~%50%``, ``~%-100%``), which GIFT reads
as "several answers allowed". GIFT has no syntax for a question's mark: Moodle imports each
at its default of 1 point; the XML carries the points.
"""
from __future__ import annotations

import re
from typing import Sequence

from ...model import Question
from ..base import RenderJob, takes_many_answers
from ..order import shown
from .moodle import category, facts_html, fractions, inline_html, question_html

_SPECIAL = re.compile(r"([~=#{}:\\])")


def escape(text: str) -> str:
    """``text`` with GIFT's special characters escaped (``\\~ \\= \\# \\{ \\} \\: \\\\``) and line breaks
    as ``\\n``, so every question stays one block of lines."""
    return _SPECIAL.sub(r"\\\1", text).replace("\n", "\\n")


def gift(job: RenderJob, questions: Sequence[Question], title: str) -> bytes:
    """The questions as a GIFT file (UTF-8), in the same category as the Moodle XML."""
    blocks = [f"// {escape(title)}\n$CATEGORY: {category(title)}"]
    blocks += [_question(job, question) for question in questions]
    return ("\n\n".join(blocks) + "\n").encode("utf-8")


def _question(job: RenderJob, question: Question) -> str:
    right, wrong = fractions(question)
    several = takes_many_answers(question)
    lines = [f"::{escape(question.id)}::[html]{escape(question_html(job, question))} {{"]
    for option in shown(question, job.course):
        mark = (f"~%{right if option.correct else wrong}%" if several else "=" if option.correct else "~")
        lines.append(f"\t{mark}{escape(_paragraph(job, option.text))}#{escape(_paragraph(job, option.why))}")
    lines.append(f"\t####{escape(facts_html(job, question))}")
    lines.append("}")
    return "\n".join(lines)


def _paragraph(job: RenderJob, text) -> str:
    return f"<p>{inline_html(job.t(text))}</p>"
