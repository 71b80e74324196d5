"""Options never give the answer away: read back from the built outputs of the shipped course.

Anki's own library imports the deck, python-pptx reads the slides, the Moodle XML is parsed:
in each, the correct option of a single-answer item is first in at most 40% of items, and a
true/false item always reads "True" then "False".
"""
from __future__ import annotations

import io
import re
import shutil
import xml.etree.ElementTree as ET

from pptx import Presentation

from generator.render import anki
from generator.render.order import option_order, shown
from generator.render.quiz.moodle import moodle_xml
from generator.render.slides import build_presentation
from helpers import CONTENT, import_package, new_collection


def at_most_40_percent_first(firsts: list[bool]) -> None:
    assert len(firsts) >= 20
    assert sum(firsts) / len(firsts) <= 0.40, f"{sum(firsts)} of {len(firsts)} first"


def test_the_order_is_stable_and_a_permutation(course):
    for question in course.questions:
        order = option_order(question.id, question.kind, question.options)
        assert sorted(order) == list(range(len(question.options)))
        assert order == option_order(question.id, question.kind, question.options)


def test_anki_mcq_cards_put_the_answer_anywhere(job_for, course, tmp_path):
    job = job_for("en", tmp_path)
    lock = tmp_path / "deck.lock"
    shutil.copy(CONTENT / "deck.lock", lock)
    (path,) = anki.render(job, anki.AnkiOptions(lock))
    col = new_collection(tmp_path / "col")
    try:
        import_package(col, path)
        firsts = []
        for note_id in col.find_notes("tag:kind::mcq"):
            answers = col.get_note(note_id)["Answers"]
            classes = re.findall(r'<li class="(correct|wrong)"', answers)
            if classes.count("correct") == 1:
                firsts.append(classes[0] == "correct")
    finally:
        col.close()
    at_most_40_percent_first(firsts)


def test_slides_put_the_answer_anywhere_and_true_first(job_for, course, tmp_path):
    deck = Presentation(io.BytesIO(build_presentation(job_for("en", tmp_path))))
    kinds = {q.id: q.kind for q in course.questions}
    firsts, true_first = [], []
    for slide in deck.slides:
        kind, _, question_id = slide.name.partition(":")
        if kind == "answer" and kinds.get(question_id) == "single":
            firsts.append(slide.shapes.title.text.endswith(": A"))
        if kind == "quiz" and kinds.get(question_id) == "truefalse":
            text = " ".join(shape.text_frame.text for shape in slide.shapes if shape.has_text_frame)
            true_first.append(text.index("A.  True") < text.index("B.  False"))
    at_most_40_percent_first(firsts)
    assert true_first and all(true_first)


def test_moodle_puts_the_answer_anywhere_and_true_first(job_for, course, tmp_path):
    root = ET.fromstring(moodle_xml(job_for("en", tmp_path), course.questions, "t"))
    kinds = {q.id: q.kind for q in course.questions}
    firsts = []
    for element in root.findall("question[@type='multichoice']"):
        answers = element.findall("answer")
        kind = kinds[element.findtext("idnumber")]
        if kind == "single":
            firsts.append(float(answers[0].get("fraction")) > 0)
        if kind == "truefalse":
            assert "True" in answers[0].findtext("text") and element.findtext("shuffleanswers") == "false"
    at_most_40_percent_first(firsts)


def test_a_module_selection_shows_the_whole_decks_order(course):
    """A module's deck shares its notes with the whole deck: the same options in the same order."""
    for module in course.modules:
        selected = course.select([module.name])
        for item in [*module.questions, *(c for c in module.cards if c.kind == "mcq")]:
            assert [id(o) for o in shown(item, selected)] == [id(o) for o in shown(item, course)], item.id
