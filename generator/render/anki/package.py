"""Notes, note types and decks to a collection database; that and in-memory media to an ``.apkg``.

Same input, same bytes. The collection uses genanki's schema and JSON for note
types and decks; it is built in memory, the rows inserted in bulk instead of
genanki's one-statement-per-row loop and the indexes made once at the end, and
each note keeps its own ``mod`` instead of the build clock. The zip entries
carry a fixed date.
"""
from __future__ import annotations

import itertools
import json
import sqlite3
import zipfile
from pathlib import Path
from typing import Iterator, NamedTuple

from genanki.apkg_col import APKG_COL
from genanki.apkg_schema import APKG_SCHEMA

from ...atomic import atomic_path

_ZIP_DATE = (1980, 1, 1, 0, 0, 0)
# a row of the notes table: id, guid, note type id, mod, tags, fields, sort field (its first field)
NoteRow = tuple[int, str, int, int, str, str, str]
CardRow = tuple[int, int, int, int, int, int]  # a row of the cards table: id, note id, deck id, ord, mod, due


class PackagedNote(NamedTuple):
    """A note row, the ordinals of the cards it has and each card's new-card position (``dues``)."""

    guid: str
    model_id: int
    deck_id: int
    mod: int
    dues: tuple[int, ...]
    fields: tuple[str, ...]
    tags: tuple[str, ...]
    ords: tuple[int, ...]


def write_apkg(path: Path, database: bytes, media: dict[str, bytes]) -> None:
    """An Anki package of ``database`` (from ``collection``) and ``media`` at ``path``, written atomically."""
    names = sorted(media)
    with atomic_path(path) as temp, zipfile.ZipFile(temp, "w") as archive:
        _add(archive, "collection.anki2", database, compress=True)
        _add(archive, "media", json.dumps({str(i): name for i, name in enumerate(names)}).encode(), compress=True)
        for index, name in enumerate(names):
            _add(archive, str(index), media[name], compress=False)  # PNG is compressed already


# genanki's schema, split so that the indexes are built once after the rows go in, not row by row
_TABLES, _, _INDEXES = APKG_SCHEMA.partition("CREATE INDEX")
_INDEXES = "CREATE INDEX" + _INDEXES


def collection(*, models: list[dict[str, object]], decks: list[dict[str, object]], notes: list[PackagedNote],
               timestamp: int) -> bytes:
    """The collection database, built in memory, as the bytes of an SQLite file.

    ``timestamp`` seeds the note and card ids; pass the newest ``mod`` so the same
    content always gives the same ids.
    """
    connection = sqlite3.connect(":memory:")
    try:
        cursor = connection.cursor()
        cursor.executescript(_TABLES)
        cursor.executescript(APKG_COL)
        known_decks = json.loads(cursor.execute("SELECT decks FROM col").fetchone()[0])
        known_decks.update({str(deck["id"]): deck for deck in decks})
        cursor.execute("UPDATE col SET decks = ?, models = ?",
                       (json.dumps(known_decks), json.dumps({str(m["id"]): m for m in models})))
        note_rows, card_rows = _rows(notes, itertools.count(timestamp * 1000))
        cursor.executemany("INSERT INTO notes VALUES (?,?,?,?,-1,?,?,?,0,0,'')", note_rows)
        cursor.executemany("INSERT INTO cards VALUES (?,?,?,?,?,-1,0,0,?,0,0,0,0,0,0,0,0,'')", card_rows)
        cursor.executescript(_INDEXES)
        connection.commit()
        return connection.serialize()
    finally:
        connection.close()


def _rows(notes: list[PackagedNote], ids: Iterator[int]) -> tuple[list[NoteRow], list[CardRow]]:
    """Note and card rows; ids count up note by note, each note's cards right after it."""
    note_rows: list[NoteRow] = []
    card_rows: list[CardRow] = []
    for note in notes:
        note_id = next(ids)
        tags = f" {' '.join(note.tags)} "
        note_rows.append((note_id, note.guid, note.model_id, note.mod, tags, "\x1f".join(note.fields), note.fields[0]))
        card_rows.extend((next(ids), note_id, note.deck_id, ordinal, note.mod, due)
                         for ordinal, due in zip(note.ords, note.dues))
    return note_rows, card_rows


def _add(archive: zipfile.ZipFile, name: str, data: bytes, *, compress: bool) -> None:
    info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    info.external_attr = 0o644 << 16
    archive.writestr(info, data, compresslevel=1 if compress else None)
