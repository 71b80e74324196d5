"""Pygments' tokens for a piece of code, found about twice as fast.

Pygments' ``RegexLexer`` finds each token by trying the rules of the current
state one by one, in Python, until one matches: dozens of failed matches per
token in the Python lexer. Here each state's rules are joined into one regular
expression, ``(?:rule0)(?P<r0>)|(?:rule1)(?P<r1>)|...``, so that the regex engine
tries them, in the same order, and the empty group that closes last names the
rule that matched. What happens next (the token type or callback, the state
change, the error and end-of-line fallbacks) is Pygments' own loop, step for
step, so the tokens are Pygments' tokens; the tests compare the two on every
piece of code in the content and on generated text.

A state is joined only where that is exact: every rule compiled with the lexer's
flags (a leading ``(?i)`` becomes a scoped ``(?i:...)``), and no rule refers to
a group by number or name, which joining would renumber. Other states, and
lexers that are not plain ``RegexLexer``s or that have filters, run through
Pygments unchanged. Compiling a joined expression costs as much as lexing a few
hundred tokens, so a state is joined only once it has been used often
(``JOIN_AFTER`` tokens): a small deck pays nothing for a speed-up it cannot use.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from pygments.lexer import RegexLexer
from pygments.lexers import get_lexer_by_name
from pygments.token import Error, Whitespace, _TokenType
from pygments.util import ClassNotFound

_LEADING_FLAGS = re.compile(r"\(\?([aiLmsux]+)\)")
_GROUP_REFERENCE = re.compile(r"\\[1-9]|\(\?P=|\(\?\(")
JOIN_AFTER = 500
_INLINE_FLAG_BITS = {"a": re.ASCII, "i": re.IGNORECASE, "L": re.LOCALE, "m": re.MULTILINE,
                     "s": re.DOTALL, "u": re.UNICODE, "x": re.VERBOSE}


def tokens(code: str, language: str) -> list[tuple[_TokenType, str]]:
    """``(token type, text)`` pairs, as Pygments' ``get_tokens`` gives them; unknown languages are plain text."""
    lexer, states = _lexer(language)
    if states is None:
        return list(lexer.get_tokens(code))
    text = lexer._preprocess_lexer_input(code)  # newlines, BOM, tabs: as get_tokens does
    return [(token, value) for _, token, value in _tokens_unprocessed(lexer, states, text)]


@lru_cache(maxsize=None)
def _lexer(language: str):
    """The Pygments lexer, and its states to match (None where Pygments must run as is)."""
    options = {"stripnl": False, "stripall": False, "ensurenl": False}
    try:
        lexer = get_lexer_by_name(language, **options)
    except ClassNotFound:
        lexer = get_lexer_by_name("text", **options)
    plain_regex_lexer = (type(lexer).get_tokens_unprocessed is RegexLexer.get_tokens_unprocessed
                         and not lexer.filters and hasattr(lexer, "_preprocess_lexer_input"))
    if not plain_regex_lexer:  # another kind of lexer, or a Pygments whose internals are not the ones known here
        return lexer, None
    return lexer, {name: _State(rules, lexer.flags) for name, rules in lexer._tokens.items()}


class _State:
    """One lexer state: its rules, tried one by one until the state has been used enough to join them."""

    __slots__ = ("rules", "flags", "uses", "joined")

    def __init__(self, rules, flags: int):
        self.rules = rules
        self.flags = flags
        self.uses = 0
        self.joined: Any = None  # (match, rule by group number) once joined; False where joining is not exact

    def next_match(self, text: str, pos: int):
        """(match object, action, new state) of the first rule that matches at ``pos``; (None, None, None) if none does."""
        if self.joined is None:
            self.uses += 1
            if self.uses >= JOIN_AFTER:
                self.joined = _join(self.rules, self.flags) or False
        if self.joined:
            found = self.joined[0](text, pos)
            if found is None:
                return None, None, None
            rexmatch, action, new_state = self.joined[1][found.lastindex]
            # a callback reads the rule's own groups, which joining renumbered
            return (found if action is None or type(action) is _TokenType else rexmatch(text, pos)), action, new_state
        for rexmatch, action, new_state in self.rules:
            found = rexmatch(text, pos)
            if found:
                return found, action, new_state
        return None, None, None


def _join(rules, flags: int):
    """(match of the rules joined in order, rule by the number of its closing group); None where that is not exact."""
    base = re.compile("", flags).flags
    parts = []
    for rexmatch, _, _ in rules:
        compiled = getattr(rexmatch, "__self__", None)
        if not isinstance(compiled, re.Pattern) or not isinstance(compiled.pattern, str):
            return None
        pattern, expected = compiled.pattern, base
        leading = _LEADING_FLAGS.match(pattern)
        if leading:
            pattern = f"(?{leading.group(1)}:{pattern[leading.end():]})"
            for letter in leading.group(1):
                expected |= _INLINE_FLAG_BITS[letter]
        if compiled.flags != expected or _GROUP_REFERENCE.search(pattern):
            return None
        parts.append(pattern)
    try:
        joined = re.compile("|".join(f"(?:{part})(?P<r{i}>)" for i, part in enumerate(parts)), flags)
    except (re.error, OverflowError, RecursionError):
        return None
    return joined.match, {joined.groupindex[f"r{i}"]: rule for i, rule in enumerate(rules)}


def _tokens_unprocessed(lexer, states: dict, text: str):
    """``RegexLexer.get_tokens_unprocessed``, step for step, each state matching through ``_State``."""
    pos = 0
    statestack = ["root"]
    state = states["root"]
    while True:
        match, action, new_state = state.next_match(text, pos)
        if match is not None:
            if action is not None:
                if type(action) is _TokenType:
                    yield pos, action, match.group()
                else:
                    yield from action(lexer, match)
            pos = match.end()
            if new_state is not None:
                _change_state(statestack, new_state)
                state = states[statestack[-1]]
            continue
        if pos >= len(text):
            break
        if text[pos] == "\n":  # at the end of a line, back to "root"
            statestack = ["root"]
            state = states["root"]
            yield pos, Whitespace, "\n"
        else:
            yield pos, Error, text[pos]
        pos += 1


def _change_state(statestack: list, new_state) -> None:
    """Pygments' state transitions: a tuple of pushes and pops, a negative count to pop, or '#push'."""
    if isinstance(new_state, tuple):
        for state in new_state:
            if state == "#pop":
                if len(statestack) > 1:
                    statestack.pop()
            elif state == "#push":
                statestack.append(statestack[-1])
            else:
                statestack.append(state)
    elif isinstance(new_state, int):
        if abs(new_state) >= len(statestack):
            del statestack[1:]
        else:
            del statestack[new_state:]
    elif new_state == "#push":
        statestack.append(statestack[-1])
    else:
        raise AssertionError(f"wrong state def: {new_state!r}")
