"""The deck manifest (``content/deck.lock``): for every published note and note type,
a hash of its content and ``mod``, the time that content last changed.

Anki's importer updates a note only when the package's ``mod`` is newer than the
collection's, so an unchanged card must keep its ``mod`` from build to build and
an edited one must get a newer one. The manifest is committed with the content
for that reason. It is JSON with one entry per line, so a review sees which
notes a change touched.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from pathlib import Path

from ...atomic import atomic_write_text
from ...errors import BuildError

VERSION = 1
_quoted = encode_basestring  # json.dumps of one string, without json.dumps' overhead


@dataclass(frozen=True)
class Entry:
    hash: str
    mod: int


@dataclass(frozen=True)
class Manifest:
    models: dict[str, Entry] = field(default_factory=dict)
    notes: dict[str, dict[str, Entry]] = field(default_factory=dict)  # language -> card id -> entry

    def notes_of(self, lang: str) -> dict[str, Entry]:
        return self.notes.get(lang, {})

    def with_entries(self, lang: str, notes: dict[str, Entry], models: dict[str, Entry]) -> "Manifest":
        return Manifest(models={**self.models, **models}, notes={**self.notes, lang: notes})


@dataclass(frozen=True)
class Changes:
    """Note ids added, changed and removed against the manifest, in teaching order where they exist."""

    added: tuple[str, ...]
    changed: tuple[str, ...]
    removed: tuple[str, ...]


def read_manifest(path: Path) -> Manifest:
    """The manifest at ``path``; empty when there is none yet."""
    path = Path(path)
    if not path.exists():
        return Manifest()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("version") != VERSION:
            raise ValueError(f"unknown version {data.get('version')!r} (expected {VERSION})")
        return Manifest(models=_entries(data.get("models", {})),
                        notes={lang: _entries(notes) for lang, notes in data.get("notes", {}).items()})
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise BuildError(f"{path} is not a deck manifest ({err}); restore it from git rather than deleting it, "
                         "or every note's mod starts over") from None


def write_manifest(path: Path, manifest: Manifest) -> None:
    """Write ``manifest`` unless the file already says the same."""
    text = format_manifest(manifest)
    path = Path(path)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        atomic_write_text(path, text)


def format_manifest(manifest: Manifest) -> str:
    lines = ["{", f'  "version": {VERSION},', '  "models": {']
    lines += _entry_lines(manifest.models, "    ")
    lines += ["  },", '  "notes": {']
    languages = sorted(manifest.notes)
    for index, lang in enumerate(languages):
        lines.append(f"    {json.dumps(lang)}: {{")
        lines += _entry_lines(manifest.notes[lang], "      ")
        lines.append("    }" + ("," if index < len(languages) - 1 else ""))
    lines += ["  }", "}"]
    return "\n".join(lines) + "\n"


def stamp(previous: dict[str, Entry], hashes: dict[str, str], now: int | None = None) -> dict[str, Entry]:
    """Entries for ``hashes``: unchanged ones keep their ``mod``, new and changed ones get a newer one."""
    now = int(time.time()) if now is None else now
    stamped = {}
    for key, content_hash in hashes.items():
        old = previous.get(key)
        if old is not None and old.hash == content_hash:
            stamped[key] = old
        else:
            stamped[key] = Entry(content_hash, max(now, old.mod + 1) if old else now)
    return stamped


def compare(previous: dict[str, Entry], hashes: dict[str, str], still_written: set[str]) -> Changes:
    """What building ``hashes`` changes against ``previous``.

    ``still_written`` holds ids the content still defines although this build
    leaves them out (a ``--module`` selection): those are not removed.
    """
    added = tuple(k for k in hashes if k not in previous)
    changed = tuple(k for k in hashes if k in previous and previous[k].hash != hashes[k])
    removed = tuple(k for k in sorted(previous) if k not in hashes and k not in still_written)
    return Changes(added, changed, removed)


def _entries(data: dict) -> dict[str, Entry]:
    return {key: Entry(str(value["hash"]), int(value["mod"])) for key, value in data.items()}


def _entry_lines(entries: dict[str, Entry], indent: str) -> list[str]:
    lines = [f'{indent}{_quoted(key)}: {{"hash": {_quoted(entry.hash)}, "mod": {entry.mod}}},'
             for key, entry in sorted(entries.items())]
    if lines:
        lines[-1] = lines[-1].removesuffix(",")
    return lines
