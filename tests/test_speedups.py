"""The shortcuts big builds take give exactly what the plain way gives.

``highlight.tokens`` must equal Pygments' ``get_tokens`` token for token; a deck
whose code is coloured in the background must equal one coloured in turn;
``parallel.in_background`` must return or raise what the direct call would; and
the Anki HTML's regular expressions, written to be fast, must find what their rules,
followed character by character, find.
"""
from __future__ import annotations

import os
import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pygments.lexers import get_lexer_by_name

from generator import highlight, parallel
from generator.errors import BuildError
from generator.model import Course, Module
from generator.render import html as html_output
from generator.render.anki import notes as anki_notes
from generator.render.base import RenderJob
from generator.verify import FactResult, Verification

PYTHON_PIECES = ["def ", "class ", "import ", "from ", " as ", "lambda", "async ", "await ", "return ", "f'", 'f"',
                 "rb'", "'''", '"""', "'", '"', "{", "}", "(", ")", "[", "]", ":", ",", ".", "@", "#", "\\", "\n",
                 "    ", " ", "\t", "x", "torch", "self", "True", "None", "print", "0x1f", "1.5e-3", "_", "é", "中",
                 "match ", "case ", "\\n", "{{", "!r", "=", "+", "*", "\r\n"]
BASH_PIECES = ["echo ", "$", "${", "}", "$(", ")", "'", '"', "<<", "EOF", "\n", "if ", "then", "fi", "#", " ", "x",
               "=", "|", "&&", "\\", "export ", "python -c", "`"]


def pygments_tokens(code: str, language: str):
    lexer = get_lexer_by_name(language, stripnl=False, stripall=False, ensurenl=False)
    return list(lexer.get_tokens(code))


def all_code(course):
    for card in course.cards:
        if card.kind == "code":
            yield from ((card.code_in(lang), card.language) for lang in ("en", "zh"))
    for fact in course.facts:
        check = fact.check.as_dict()
        for kind in ("snippet", "raises", "expr"):
            if kind in check:
                yield check[kind], "python"


@pytest.fixture(params=["joined", "rule by rule"])
def way(request, monkeypatch):
    """Both ways a state can match: joined at once, or rule by rule (never joined)."""
    monkeypatch.setattr(highlight, "JOIN_AFTER", 1 if request.param == "joined" else 10**9)
    highlight._lexer.cache_clear()
    yield request.param
    highlight._lexer.cache_clear()


def test_same_tokens_as_pygments_for_all_content(course, way):
    pieces = list(all_code(course))
    assert len(pieces) > 400
    for code, language in pieces:
        assert highlight.tokens(code, language) == pygments_tokens(code, language), code


def test_python_states_are_joined_once_used_enough():
    """The speed-up applies to Python, where the content's code is (not silently falling back)."""
    highlight._lexer.cache_clear()
    _, states = highlight._lexer("python")
    highlight.tokens("x = 1\n", "python")
    assert states["root"].joined is None
    for _ in range(highlight.JOIN_AFTER):
        highlight.tokens("x = 1\n", "python")
    assert states["root"].joined


def test_states_with_backreferences_go_rule_by_rule(way):
    """Bash's heredoc rule refers to a group by number: that state must not be joined."""
    lexer, states = highlight._lexer("bash")
    code = "cat <<EOF\nhello $USER\nEOF\necho done\n"
    assert highlight.tokens(code, "bash") == pygments_tokens(code, "bash")
    backreferencing = [name for name, rules in lexer._tokens.items()
                       if any(highlight._GROUP_REFERENCE.search(rule[0].__self__.pattern) for rule in rules)]
    assert "root" in backreferencing  # bash's root holds the heredoc rule
    assert all(not states[name].joined for name in backreferencing)
    if way == "joined":
        assert states["root"].joined is False  # tried, and refused


def test_unknown_language_is_plain_text():
    assert highlight.tokens("x = 1", "no-such-language") == pygments_tokens("x = 1", "text")


def assert_same_tokens_both_ways(code: str, language: str) -> None:
    joined_at = highlight.JOIN_AFTER
    try:
        for highlight.JOIN_AFTER in (1, 10**9):
            highlight._lexer.cache_clear()
            assert highlight.tokens(code, language) == pygments_tokens(code, language)
    finally:
        highlight.JOIN_AFTER = joined_at
        highlight._lexer.cache_clear()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PYTHON_PIECES), max_size=40))
def test_same_tokens_as_pygments_for_any_python(pieces):
    assert_same_tokens_both_ways("".join(pieces), "python")


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(BASH_PIECES), max_size=40))
def test_same_tokens_as_pygments_for_any_bash(pieces):
    assert_same_tokens_both_ways("".join(pieces), "bash")


# ------------------------------------------------------------------ the Anki HTML's fast regular expressions
BREAK_TEXT = st.text(alphabet="ab_Z09.,/()=  \t\n-:&;#{}`中", max_size=30)
ENTITY_OF = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "{": "&#123;", "}": "&#125;"}


def break_places_by_rule(code: str) -> list[int]:
    """Offsets just after each character code may wrap after, by the rules as ``html.py`` states them."""
    places = []
    for at, char in enumerate(code):
        before, after = code[at - 1] if at else "", code[at + 1] if at + 1 < len(code) else ""
        if not after or after.isspace():
            continue
        if char == ".":
            ok = (after != "." and not (before.isspace() or before.isdigit())) or (
                before.isdigit() and after != "." and not after.isdigit())
        elif char == "_":
            ok = before.isascii() and before.isalnum() and after.isascii() and after.isalnum()
        else:
            ok = (char == "/" and after != "/") or char == "," or (char == "(" and after not in "()") or (
                char == "=" and before != "=" and after != "=")
        if ok:
            places.append(at + 1)
    return places


@settings(max_examples=500, deadline=None)
@given(BREAK_TEXT)
def test_break_places_follow_the_rules(code):
    assert html_output.break_offsets(code) == break_places_by_rule(code)


@settings(max_examples=500, deadline=None)
@given(BREAK_TEXT)
def test_names_in_prose_are_whole_runs_that_hold_a_name(text):
    """A match is a whole run of printable ASCII holding a dotted or snake_case name, wherever it starts."""
    runs = [run.span() for run in re.finditer(r"[!-~]+", text)
            if any(a.isascii() and a.isalnum() and mark in "._" and (b.isascii() and (b.isalnum() or b == "_"))
                   for a, mark, b in zip(run[0], run[0][1:], run[0][2:]))]
    assert [name.span() for name in html_output._PROSE_NAME.finditer(text)] == runs


def cloze_by_rule(text: str) -> str:
    """Cloze text escaped character by character: an opening ``{{cN::`` kept and counted; inside a deletion a
    run of closing braces closes as many as are open with its last braces; every other character escaped."""
    out, depth, at = [], 0, 0
    while at < len(text):
        opening = re.match(r"\{\{c\d+::", text[at:])
        if opening:
            out.append(opening[0])
            depth, at = depth + 1, at + opening.end()
        elif depth and text.startswith("}}", at):
            run = len(text[at:]) - len(text[at:].lstrip("}"))
            closes = min(depth, run // 2)
            out.append("&#125;" * (run - 2 * closes) + "}}" * closes)
            depth, at = depth - closes, at + run
        else:
            out.append(ENTITY_OF.get(text[at], text[at]))
            at += 1
    if depth:
        raise ValueError("not closed")
    return "".join(out)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["{{c1::", "{{c12::", "{{c", "{", "}", "}}", "}}}", "a", " ", "::", "<", "&", "c"]),
                max_size=14))
def test_cloze_markers_follow_the_rules(pieces):
    text = "".join(pieces)
    try:
        expected = cloze_by_rule(text)
    except ValueError:
        with pytest.raises(ValueError):
            "".join(html_output._cloze_pieces(text))
        return
    assert "".join(html_output._cloze_pieces(text)) == expected


# ------------------------------------------------------------------ background colouring
def code_heavy_course(cards: int) -> Course:
    facts = [{"id": "f-exists", "claim": "torch.backends exists", "check": {"exists": "torch.backends"}}]
    items = []
    for i in range(cards):
        if i % 3:
            code = f"import torch\n\ndef set_{i}():\n    torch.backends.cudnn.benchmark = {i % 2 == 0}  # card {i}\n"
            items.append({"id": f"c-{i}", "kind": "code", "front": f"What does set_{i} do?", "code": code,
                          "back": "It sets a flag.", "facts": ["f-exists"]})
        else:
            items.append({"id": f"c-{i}", "kind": "basic", "front": f"Question {i}", "back": f"Answer {i}",
                          "facts": ["f-exists"]})
    module = Module.model_validate({"module": "torch.backends.cudnn", "facts": facts, "cards": items})
    return Course((module,))


def test_colouring_ahead_gives_the_same_notes(monkeypatch, tmp_path, two_cores):
    course = code_heavy_course(450)  # 300 pieces of code: enough to colour in the background
    verification = Verification("2.13.0+cpu", "3.11", {}, "2026-01-01",
                                {"f-exists": FactResult("f-exists", "pass", "", "x.yaml", 1)})
    job = RenderJob(course, verification, "en", tmp_path)
    started = []
    real_ahead = anki_notes.highlight_ahead

    def counting_ahead(pieces):
        ahead = real_ahead(pieces)
        started.append((ahead, ahead.pending.pid if ahead else None))  # the child's pid as it started
        return ahead

    html_output._CODE_BLOCKS.clear()
    monkeypatch.setattr(anki_notes, "highlight_ahead", counting_ahead)
    ahead_notes = anki_notes.build_notes(job)
    (ahead, forked), = started
    assert ahead is not None and forked is not None  # it forked a child (two cores, 300 pieces of code) ...
    assert ahead.pending.pid is None  # ... whose result was read and which was collected
    with pytest.raises(ChildProcessError):
        os.waitpid(forked, os.WNOHANG)
    html_output._CODE_BLOCKS.clear()
    monkeypatch.setattr(anki_notes, "highlight_ahead", lambda pieces: None)
    assert anki_notes.build_notes(job) == ahead_notes
    assert [note.due for note in ahead_notes] == list(range(1, 451))


# ------------------------------------------------------------------ parallel
def pid_and_square(number):
    return os.getpid(), number * number


@pytest.fixture
def two_cores(monkeypatch):
    """The forking path, whatever this machine has (on one core ``in_background`` calls inline)."""
    monkeypatch.setattr(parallel, "_cores", lambda: 2)


def test_in_background_runs_in_another_process(two_cores):
    pending = parallel.in_background(pid_and_square, 12)
    assert pending.pid is not None
    pid, square = pending.result()
    assert square == 144 and pid != os.getpid()


def raise_build_error(message):
    raise BuildError(message)


def test_in_background_raises_what_the_call_raised(two_cores):
    with pytest.raises(BuildError, match="content.yaml:3: card 7 is broken"):
        parallel.in_background(raise_build_error, "content.yaml:3: card 7 is broken").result()


def exit_three(_):
    os._exit(3)


def test_a_dying_background_process_is_an_error_not_a_hang(two_cores):
    with pytest.raises(RuntimeError, match="exit code 3"):
        parallel.in_background(exit_three, None).result()


def test_cancel_stops_and_collects_the_process(two_cores):
    pending = parallel.in_background(time.sleep, 30)
    pid = pending.pid
    assert pid is not None
    pending.cancel()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # already collected: no such child any more


def test_on_one_core_the_call_is_made_on_result(monkeypatch):
    monkeypatch.setattr(parallel, "_cores", lambda: 1)
    pending = parallel.in_background(pid_and_square, 4)
    assert pending.pid is None
    assert pending.result() == (os.getpid(), 16)


def test_without_fork_the_call_is_made_on_result(monkeypatch):
    monkeypatch.setattr(parallel, "_can_fork", lambda: False)
    pending = parallel.in_background(pid_and_square, 3)
    assert pending.result() == (os.getpid(), 9)
