"""Prose markup shared by every output: where a text stops stating checked fact.

Everything from the first ``ℹ`` to the end of a text is explanation or advice: it is not
entailed by the facts its item cites. Every output shows it set apart (italic, muted) and
keeps the ``ℹ``, so a learner can tell what was proven from what is explained; lint and the
statement counts read the same split.
"""
from __future__ import annotations

EXPLAIN = "ℹ"


def split_explanation(text: str) -> tuple[str, str]:
    """``(fact part, explanation)``; the explanation starts with ``ℹ`` and is '' where there is none."""
    at = text.find(EXPLAIN)
    if at < 0:
        return text, ""
    return text[:at].rstrip(" "), text[at:]
