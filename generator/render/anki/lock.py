"""The deck manifest (``content/deck.lock``): for every published note and note type,
a hash of its content and ``mod``, the time that content last changed.

Anki's importer updates a note only when the package's ``mod`` is newer than the
collection's, so an unchanged card must keep its ``mod`` from build to build and
an edited one must get a newer one. The manifest is committed with the content
for that reason. It is JSON with one entry per line, so a review sees which
notes a change touched.
"""
from __future__ import annotations

import errno
import json
import time
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from pathlib import Path

from ...atomic import atomic_write_text
from ...errors import BuildError
from ...jsonfile import BadJson, read_versioned

VERSION = 1
_quoted = encode_basestring  # json.dumps of one string, without json.dumps' overhead


@dataclass(frozen=True)
class LockEntry:
    """A published note's or note type's line in the manifest: the hash of its content and ``mod``, when
    that content last changed."""

    hash: str
    mod: int
    kind: str = ""  # the note type's key (basic, cloze, ...): a retired note must keep it to update in place


@dataclass(frozen=True)
class Manifest:
    models: dict[str, LockEntry] = field(default_factory=dict)
    notes: dict[str, dict[str, LockEntry]] = field(default_factory=dict)  # language -> card id -> entry

    def notes_of(self, lang: str) -> dict[str, LockEntry]:
        return self.notes.get(lang, {})

    def with_entries(self, lang: str, notes: dict[str, LockEntry], models: dict[str, LockEntry]) -> "Manifest":
        return Manifest(models={**self.models, **models}, notes={**self.notes, lang: notes})


@dataclass(frozen=True)
class Changes:
    """Note ids added, changed and removed against the manifest, in teaching order where they exist."""

    added: tuple[str, ...]
    changed: tuple[str, ...]
    removed: tuple[str, ...]
    retired: tuple[tuple[str, str], ...] = ()  # (card id, why) of each published note written as retired


MAX_MOD = 2 ** 53  # seconds: far beyond any clock, and exact in every JSON reader and SQLite


def read_manifest(path: Path) -> Manifest:
    """The manifest at ``path``; empty when there is none yet. A BuildError saying ``path:line`` where it is
    not a manifest (a value of the wrong type, a ``mod`` that is no whole count of seconds)."""
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        return Manifest()
    line = 1
    try:
        try:
            data, text = read_versioned(path, VERSION)
        except BadJson as err:
            line = err.line
            raise
        notes = data.get("notes", {})
        if not isinstance(notes, dict):
            raise ValueError("'notes' is not an object")
        return Manifest(models=_entries(data.get("models", {}), text),
                        notes={lang: _entries(entries, text) for lang, entries in notes.items()})
    except _BadEntry as err:
        raise BuildError(f"{path}:{err.line}: not a deck manifest ({err.message}); restore it from git rather "
                         "than deleting it, or every note's mod starts over") from None
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError) as err:
        if isinstance(err, OSError) and err.errno not in (errno.EINVAL, errno.EISDIR):
            raise  # an I/O failure (permissions, a bad disk), not a bad manifest
        reason = err.strerror if isinstance(err, OSError) and err.strerror else err
        raise BuildError(f"{path}:{line}: not a deck manifest ({reason}); restore it from git rather than "
                         "deleting it, or every note's mod starts over") from None


def merged(*manifests: Manifest) -> Manifest:
    """One manifest of several: per note type and note, the entry that changed last (the largest ``mod``)."""
    def newest(tables):
        out: dict[str, LockEntry] = {}
        for table in tables:
            for key, entry in table.items():
                if key not in out or entry.mod > out[key].mod:
                    out[key] = entry
        return out

    langs = sorted({lang for m in manifests for lang in m.notes})
    return Manifest(models=newest(m.models for m in manifests),
                    notes={lang: newest(m.notes_of(lang) for m in manifests) for lang in langs})


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


def stamp(previous: dict[str, LockEntry], hashes: dict[str, str], now: int | None = None,
          kinds: dict[str, str] | None = None) -> dict[str, LockEntry]:
    """Entries for ``hashes``: unchanged ones keep their ``mod``, new and changed ones get a newer one;
    each with its note type from ``kinds`` where given."""
    now = int(time.time()) if now is None else now
    kinds = kinds or {}
    stamped = {}
    for key, content_hash in hashes.items():
        old = previous.get(key)
        kind = kinds.get(key, old.kind if old else "")
        if old is not None and old.hash == content_hash:
            stamped[key] = old if old.kind == kind else LockEntry(old.hash, old.mod, kind)
        else:
            stamped[key] = LockEntry(content_hash, max(now, old.mod + 1) if old else now, kind)
    return stamped


def compare(previous: dict[str, LockEntry], hashes: dict[str, str], still_written: set[str]) -> Changes:
    """What building ``hashes`` changes against ``previous``.

    ``still_written`` holds ids the content still defines although this build
    leaves them out (a ``--module`` selection): those are not removed.
    """
    added = tuple(k for k in hashes if k not in previous)
    changed = tuple(k for k in hashes if k in previous and previous[k].hash != hashes[k])
    removed = tuple(k for k in sorted(previous) if k not in hashes and k not in still_written)
    return Changes(added, changed, removed)


class _BadEntry(Exception):
    def __init__(self, line: int, message: str):
        super().__init__(message)
        self.line, self.message = line, message


def _entries(data, text: str) -> dict[str, LockEntry]:
    if not isinstance(data, dict):
        raise ValueError(f"expected an object of entries, found {type(data).__name__}")
    entries = {}
    for key, value in data.items():
        problem = None
        if not isinstance(value, dict) or not isinstance(value.get("hash"), str):
            problem = f"the entry of {key!r} has no hash string"
        else:
            mod = value.get("mod")
            if isinstance(mod, bool) or not isinstance(mod, int) or not 0 <= mod < MAX_MOD:
                problem = f"the mod of {key!r} is {mod!r}, not a whole count of seconds from 0 to 2**53"
            elif not isinstance(value.get("kind", ""), str):
                problem = f"the kind of {key!r} is {value.get('kind')!r}, not a note type's name"
        if problem:
            raise _BadEntry(_line_of(text, key), problem)
        entries[key] = LockEntry(value["hash"], value["mod"], value.get("kind", ""))
    return entries


def _line_of(text: str, key: str) -> int:
    """The line of ``text`` where the entry of ``key`` is written (1 where it cannot be told)."""
    at = text.find(_quoted(key) + ":")
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


def _entry_lines(entries: dict[str, LockEntry], indent: str) -> list[str]:
    lines = [f'{indent}{_quoted(key)}: {{"hash": {_quoted(entry.hash)}, "mod": {entry.mod}'
             + (f', "kind": {_quoted(entry.kind)}' if entry.kind else "") + "},"
             for key, entry in sorted(entries.items())]
    if lines:
        lines[-1] = lines[-1].removesuffix(",")
    return lines
