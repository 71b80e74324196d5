"""Reading the project's own JSON files (the ledger's runs, deck.lock): one object with a version."""
from __future__ import annotations

import json
from pathlib import Path

from .atomic import read_regular


class BadJson(ValueError):
    """A JSON file that is not what it should be, and the line that shows it."""

    def __init__(self, message: str, line: int = 1):
        super().__init__(message)
        self.line = line


def read_versioned(path: str | Path, version: int) -> tuple[dict, str]:
    """``(object, text)`` of the regular file at ``path``, which must hold one JSON object whose
    ``version`` is ``version``. OSError or UnicodeDecodeError where it cannot be read; BadJson, with its
    line, where it can but is not such an object."""
    text = read_regular(path).decode("utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise BadJson(err.msg, err.lineno) from None
    if not isinstance(data, dict):
        raise BadJson("not a JSON object")
    if data.get("version") != version:
        raise BadJson(f"unknown version {data.get('version')!r} (expected {version})")
    return data, text
