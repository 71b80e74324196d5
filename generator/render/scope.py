"""Which torch releases a fact is about, in words a learner reads: 'since torch 2.15', 'until torch 2.14'."""
from __future__ import annotations

from functools import lru_cache

from packaging.specifiers import SpecifierSet
from packaging.version import Version

_WORDS = {
    "en": {"since": "since torch {}", "until": "until torch {}", "between": "torch {} to {}", "only": "torch {} only",
           "after": "after torch {}", "except": "not torch {}"},
    "zh": {"since": "torch {} 起", "until": "torch {} 及更早", "between": "torch {} 至 {}", "only": "仅 torch {}",
           "after": "torch {} 之后", "except": "torch {} 除外"},
}


@lru_cache(maxsize=None)
def release_words(spec: str, lang: str) -> str:
    """``>=2.15`` -> 'since torch 2.15'; ``<2.15`` -> 'until torch 2.14'; ``>=2.14,<2.15`` -> 'torch 2.14 only'."""
    words = _WORDS[lang]
    lower = upper = None
    rest = []
    for item in sorted(SpecifierSet(spec), key=str):
        version = item.version
        if item.operator == ">=":
            lower = version
        elif item.operator == "<=":
            upper = version
        elif item.operator == "<":
            upper = _previous_minor(version)
        elif item.operator == "==":
            rest.append(words["only"].format(version.removesuffix(".*")))
        elif item.operator == ">":
            rest.append(words["after"].format(version))
        elif item.operator == "!=":
            rest.append(words["except"].format(version))
        else:  # ~= and === are not worth words of their own
            rest.append(f"torch {item}")
    if lower and upper:
        head = [words["only"].format(lower) if _same_minor(lower, upper) else words["between"].format(lower, upper)]
    else:
        head = [words["since"].format(lower)] if lower else [words["until"].format(upper)] if upper else []
    return ", ".join(head + rest)


def _previous_minor(version: str) -> str:
    """The last release line before ``version``: 2.14 before 2.15; '<2.15.1' stays 'before 2.15.1'."""
    parsed = Version(version)
    major, minor, micro = (parsed.release + (0, 0))[:3]
    if micro == 0 and minor > 0:
        return f"{major}.{minor - 1}"
    return f"{major}.{minor}.{micro - 1}" if micro > 0 else version


def _same_minor(a: str, b: str) -> bool:
    return Version(a).release[:2] == Version(b).release[:2]
