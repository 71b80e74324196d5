"""Fact-check worker: imports torch once, then runs checks in forked children.

It runs in the interpreter whose torch is checked, so it needs nothing but the standard library and
torch: torchdeck starts it as a folder (``python .../worker``), and ``torchdeck ledger export`` writes
it with a request as one zip any such interpreter runs (``python checks.pyz``).

Protocol: one JSON document on stdin ``{"checks": [{"check": {...}, "requires": [...]}, ...],
"timeout": 10}``; JSON lines on the original stdout, first ``{"hello": {...}}`` (torch, python,
capabilities), then one ``{"index": i, "status": ..., "detail": ...}`` per check.

Isolation: the worker imports torch and runs no check itself. Every check that runs code runs in a
checker of its own, a fresh fork of the pristine worker that exits after it; declarative checks (a
PATH read) share a checker while the watched state stays as it was (``state``). A checker reaches
only its own channels; what it leaves behind is ended (the worker is a subreaper); one that hangs
past the timeout is killed, one that dies is reported as ``error`` (``checker``, ``supervise``,
``processes``). Checks that use the compiler stack run in a sub-worker that imports it once
(``serve``). The kinds of check are one table (``kinds.CHECK_KINDS``), and so are the capabilities
(``capabilities.CAPABILITIES``); ``controls`` and ``mutants`` test the checks themselves.
"""
from .capabilities import CAPABILITIES, describe_build, detect_capabilities, skip_reason
from .kinds import CHECK_KINDS, CODE_KINDS, TYPE_NAMES, CheckKind, check_kind, judge, resolve, run_check, subjects
from .limits import DETAIL_LIMIT, MEMORY_LIMIT, OUTPUT_LIMIT

__all__ = ["CAPABILITIES", "CHECK_KINDS", "CODE_KINDS", "DETAIL_LIMIT", "MEMORY_LIMIT", "OUTPUT_LIMIT", "TYPE_NAMES",
           "CheckKind", "check_kind", "describe_build", "detect_capabilities", "judge", "resolve", "run_check",
           "skip_reason", "subjects"]
