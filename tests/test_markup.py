"""One markup, parsed in one place: every output reads the same segments."""
from __future__ import annotations

import pytest

from generator.markup import Segment, cloze_answers, cloze_blanks, segments
from generator.render.html import inline as anki_inline
from generator.render.quiz.moodle import inline_html
from generator.render.slides.text import inline as slide_inline
from generator.render.typesetting import rich


@pytest.mark.parametrize("text, expected", [
    ("plain", [Segment("plain")]),
    ("set `benchmark` first", [Segment("set "), Segment("benchmark", code=True), Segment(" first")]),
    ("an unpaired ` backtick", [Segment("an unpaired ` backtick")]),
    ("`a` and ` b", [Segment("a", code=True), Segment(" and ` b")]),
    ("no `code\nacross` lines", [Segment("no `code\nacross` lines")]),
    ("`False`. ℹ Turn `it` on.", [Segment("False", code=True), Segment(". "),
                                  Segment("ℹ Turn ", explain=True), Segment("it", code=True, explain=True),
                                  Segment(" on.", explain=True)]),
    ("`False`。ℹ 输入固定时打开。", [Segment("False", code=True), Segment("。"), Segment("ℹ 输入固定时打开。", explain=True)]),
])
def test_segments(text, expected):
    assert segments(text) == expected


@pytest.mark.parametrize("text, anki_html, moodle_html", [
    ("an unpaired ` backtick", "an unpaired ` backtick", "an unpaired ` backtick"),  # a lone backtick is text
    ("`a` and ` b", "<code>a</code> and ` b", "<code>a</code> and ` b"),
    ("x ℹ `y`", 'x <span class="explain">ℹ <code>y</code></span>', "x <em>ℹ <code>y</code></em>"),
])
def test_every_output_reads_the_same_segments(text, anki_html, moodle_html):
    parts = segments(text)
    assert [(s["t"], s["c"], s["e"]) for s in rich(text)] == [(p.text, p.code, p.explain) for p in parts]
    assert [(s.text, s.mono, s.italic) for s in slide_inline(text)] == [(p.text, p.code, p.explain) for p in parts]
    assert str(anki_inline(text)) == anki_html
    assert inline_html(text) == moodle_html


def test_cloze_answers_and_blanks():
    text = "{{c1::cuDNN}} picks {{c2::an algorithm::what?}} per shape"
    assert cloze_answers(text) == "cuDNN picks an algorithm per shape"
    assert cloze_blanks(text, "[…]") == "[…] picks […] per shape"
