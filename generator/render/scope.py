"""Which torch releases an item is about, in words a learner reads: 'since torch 2.15', 'torch 2.14 and earlier'."""
from __future__ import annotations

from functools import lru_cache
from typing import Optional, Sequence

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from ..wording import words as _words

# The release lines the words speak of: every minor release of torch 1 and 2 (and room to grow).
_RELEASES = tuple([(1, minor) for minor in range(14)] + [(2, minor) for minor in range(60)])


def release_union(specs: Sequence[Optional[str]], lang: str) -> str:
    """The releases any of ``specs`` (PEP 440 ranges; None for every release) admits, in words;
    '' where together they admit every release (an item comparing releases is about all of them)."""
    return _union_words(tuple(sorted(set(specs), key=str)), lang) if all(specs) else ""


@lru_cache(maxsize=None)
def _union_words(specs: tuple[str, ...], lang: str) -> str:
    sets = [SpecifierSet(spec) for spec in specs]
    named = {Version(item.version.removesuffix(".*")).release[:2] for spec in sets for item in spec}
    releases = sorted(set(_RELEASES) | {(v[0], v[1] if len(v) > 1 else 0) for v in named})
    releases.append((releases[-1][0], releases[-1][1] + 1))  # one beyond any release a range names
    admitted = [any(Version(f"{major}.{minor}") in spec for spec in sets) for major, minor in releases]
    if all(admitted):
        return ""
    words = _words(lang)["releases"]
    runs, start = [], None
    for index, inside in enumerate(admitted + [False]):
        if inside and start is None:
            start = index
        elif not inside and start is not None:
            runs.append((start, index - 1))
            start = None
    phrases = []
    for first, last in runs:
        low, high = (".".join(map(str, releases[i])) for i in (first, last))
        if first == 0:
            phrases.append(words["until"].format(high))
        elif last == len(releases) - 1:
            phrases.append(words["since"].format(low))
        elif first == last:
            phrases.append(words["only"].format(low))
        else:
            phrases.append(words["between"].format(low, high))
    return _words(lang)["separators"][0].join(phrases)
