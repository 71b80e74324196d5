"""Errors that carry where in the content they come from."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input, located as ``file:line:col: field: message``."""

    file: str
    line: int
    col: int
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:{self.col}"
        return f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"


class ContentError(Exception):
    """Bad input: every problem found in one run, reported together (exit code 2); ``where``: the input
    they are in (a folder, "the slide titles"), where the raiser knows it."""

    def __init__(self, problems: list[Problem], where: str | None = None):
        self.problems = sorted(problems, key=lambda p: (p.file, p.line, p.col, p.field))
        self.where = where
        super().__init__(f"{len(self.problems)} problem(s) in {where or 'the content'}")

    def __str__(self) -> str:
        return "\n".join(str(p) for p in self.problems)


class BuildError(Exception):
    """An output could not be made (exit code 1); ``output`` holds what a failed tool printed."""

    def __init__(self, message: str, output: str = ""):
        self.output = output
        super().__init__(message if not output else f"{message}\n{output.rstrip()}")


def printable(text: str) -> str:
    """``text`` as any UTF-8 file can hold it: a lone surrogate (a check's message may carry one, through
    JSON's ``\\ud800``) becomes its escape, ``\\ud800``, instead of failing every write of it."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
