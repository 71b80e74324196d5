"""The deck's note types: fields, card templates and CSS, with ids derived from stable names.

Card templates live in ``templates/anki/<file>.front.html`` / ``.back.html`` and
are Jinja2 templates whose only Jinja job is ``{% include %}`` of the shared
answer footer. Their ``{{Field}}`` tags belong to Anki, so Jinja's variable and
comment delimiters are moved out of the way (``[[ ]]``, ``[# #]``).

A note type whose fields or template names change becomes a different note
type to Anki, and an update then fails to match; ``tests/snapshots/anki_models.json``
holds what is published so no change goes unnoticed.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache

import genanki
from jinja2 import Environment, FileSystemLoader, StrictUndefined

from ... import resources

TEMPLATE_DIR = resources.templates() / "anki"
CSS_FILE = "card.css"
COMMON_FIELDS = ("Source", "Verified", "Extra", "Diagram")


@dataclass(frozen=True)
class NoteType:
    """One note type: its stable key (the card kind), display name, fields and cards."""

    key: str
    name: str
    fields: tuple[str, ...]
    cards: tuple[tuple[str, str], ...]  # (card template name, template file stem)
    cloze: bool = False

    @property
    def model_id(self) -> int:
        return stable_id(f"torchdeck note type {self.key}")

    def templates(self) -> list[dict]:
        return [{"name": name, "qfmt": _card_template(f"{stem}.front.html"),
                 "afmt": _card_template(f"{stem}.back.html")} for name, stem in self.cards]

    def snapshot(self) -> dict:
        """What Anki keys its matching on, plus a hash of the CSS: compared with the committed snapshot."""
        return {"id": self.model_id, "name": self.name, "type": "cloze" if self.cloze else "standard",
                "fields": list(self.fields), "templates": self.templates(),
                "css_sha256": hashlib.sha256(css().encode()).hexdigest()}

    def content_hash(self) -> str:
        """Changes whenever anything Anki stores for the note type changes (the manifest's key)."""
        text = json.dumps([self.snapshot(), css()], sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def model_json(self, mod: int, deck_id: int) -> dict:
        """The note type as the package stores it (genanki's JSON), stamped with ``mod``."""
        model = genanki.Model(model_id=self.model_id, name=self.name, fields=[{"name": f} for f in self.fields],
                              templates=self.templates(), css=css(),
                              model_type=genanki.Model.CLOZE if self.cloze else genanki.Model.FRONT_BACK)
        return model.to_json(mod, deck_id)


NOTE_TYPES: dict[str, NoteType] = {
    note_type.key: note_type
    for note_type in (
        NoteType("basic", "torchdeck Basic", ("Front", "Back", *COMMON_FIELDS), (("Card 1", "basic"),)),
        NoteType("reverse", "torchdeck Basic (and reversed card)", ("Front", "Back", *COMMON_FIELDS),
                 (("Card 1", "basic"), ("Card 2", "reverse"))),
        NoteType("cloze", "torchdeck Cloze", ("Text", "Back Extra", *COMMON_FIELDS), (("Cloze", "cloze"),),
                 cloze=True),
        NoteType("mcq", "torchdeck MCQ", ("Question", "Options", "Answers", *COMMON_FIELDS), (("Card 1", "mcq"),)),
        NoteType("code", "torchdeck Code", ("Front", "Code", "Back", *COMMON_FIELDS), (("Card 1", "code"),)),
    )
}


@lru_cache(maxsize=None)
def stable_id(name: str) -> int:
    """An Anki id (2**30 .. 2**31) that depends only on ``name``."""
    digest = int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big")
    return (1 << 30) + digest % (1 << 30)


def models_snapshot() -> dict:
    return {key: note_type.snapshot() for key, note_type in NOTE_TYPES.items()}


@lru_cache(maxsize=None)
def css() -> str:
    return (TEMPLATE_DIR / CSS_FILE).read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def _card_template(file_name: str) -> str:
    return _card_environment().get_template(file_name).render().strip()


@lru_cache(maxsize=None)
def _card_environment() -> Environment:
    return Environment(loader=FileSystemLoader(TEMPLATE_DIR), variable_start_string="[[",
                       variable_end_string="]]", comment_start_string="[#", comment_end_string="#]",
                       undefined=StrictUndefined, keep_trailing_newline=False, autoescape=False)

