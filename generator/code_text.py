"""A code sample in the deck's languages: one program, its comments in English and in Chinese.

A sample is written as a plain string where its comments hold no words (``# True``, ``# 0.5``:
every deck shows it as it is), or as ``{en: ..., zh: ...}``: the same program twice, each with
its comments in one language. The loader proves the two are the same program (``difference``:
every line with its comments cut off, blank lines aside, byte for byte), so running either runs
both; the outputs show the deck's language (``Code.get``).
"""
from __future__ import annotations

import re
from typing import Annotated, Optional

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from pygments.token import Comment

from .highlight import tokens


class Code(BaseModel):
    """A sample's program with English comments and, where they hold words, with Chinese ones."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    en: str = Field(min_length=1)
    zh: Optional[str] = Field(default=None, min_length=1)

    def get(self, lang: str) -> str:
        """The sample as the ``lang`` deck shows it: the Chinese version where there is one."""
        return self.zh if lang == "zh" and self.zh else self.en

    def __str__(self) -> str:  # English is the canonical form, as for texts
        return self.en


def _from_plain_string(value):
    return {"en": value} if isinstance(value, str) else value


LocalCode = Annotated[Code, BeforeValidator(_from_plain_string)]


def _is_comment(kind) -> bool:
    return kind in Comment and kind not in Comment.Preproc  # C's #include is code


def comments(code: str, language: str) -> list[tuple[int, str]]:
    """``(0-based line, comment text)`` of each comment of ``code``, as Pygments' lexer for ``language``
    finds them (a ``#`` inside a string is no comment)."""
    found, line = [], 0
    for kind, text in tokens(code, language):
        if _is_comment(kind):
            found += [(line + number, part) for number, part in enumerate(text.split("\n")) if part.strip()]
        line += text.count("\n")
    return found


def program_lines(code: str, language: str) -> list[tuple[int, str]]:
    """``(0-based line, text)`` of each line of ``code`` that holds code, its comment cut off and its
    trailing blanks dropped: what must read the same in every language's version."""
    kept = "".join("\n" * text.count("\n") if _is_comment(kind) else text for kind, text in tokens(code, language))
    return [(number, line.rstrip()) for number, line in enumerate(kept.split("\n")) if line.strip()]


def difference(code: Code, language: str) -> Optional[tuple[int, str]]:
    """Where the Chinese version is another program than the English one: ``(0-based line of the zh
    text, what differs)``; None where they differ in comments only (or there is no Chinese version)."""
    if code.zh is None:
        return None
    english, chinese = program_lines(code.en, language), program_lines(code.zh, language)
    for (_, en_line), (zh_number, zh_line) in zip(english, chinese):
        if en_line != zh_line:
            return zh_number, f"the zh version reads {zh_line.strip()!r} where the en version reads " \
                              f"{en_line.strip()!r}: only comments may differ"
    if len(chinese) > len(english):
        number, line = chinese[len(english)]
        return number, f"only the zh version has the line {line.strip()!r}: only comments may differ"
    if len(english) > len(chinese):
        line = english[len(chinese)][1]
        return (chinese[-1][0] + 1 if chinese else 0), \
            f"the zh version lacks the line {line.strip()!r}: only comments may differ"
    return None


# A word of prose: letters only, lower case after the first (not CamelCase, not CONSTANT), standing
# alone: not part of a name (cudnn.enabled, max_threads, flags()) or a quoted value ('high').
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`")
_WORD = re.compile(r"(?<![\w.:/@$=-])(?:[A-Za-z][a-z]+(?![\w.(/@=-]|::)|e\.g\.)")
NEUTRAL_WORDS = frozenset({"True", "False", "None"})  # Python's constants read the same in every deck


# A comment quoting what the program prints reads the same in every deck: a C++ name (aten::, at::), a
# "key : value" row, a log line's comma-joined fields, an elided path (.../torch/...), an object's repr
# (DSLController(...)), or a line indented under its command (#   numactl ...).
_OUTPUT = re.compile(r"::|\S\s+:\s|\w,\w|\.\.\./|^#\s*[A-Z]\w*\(|^#\s{3,}\S")


def prose_words(comment: str) -> list[str]:
    """The words of prose in a comment (``# on a CPU build`` -> on, build: words of two letters or more, in
    lower case or capitalised);
    ``# True``, ``# 'tf32'``, ``# cudnn.enabled``, ``# 0.5`` and printed output (``_OUTPUT``) hold none."""
    if _OUTPUT.search(comment.strip()):
        return []
    return [word for word in _WORD.findall(_QUOTED.sub(" ", comment)) if word not in NEUTRAL_WORDS]
