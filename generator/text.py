"""Bilingual text: a plain string (English) or ``{en: ..., zh: ...}``."""
from __future__ import annotations

import re
from typing import Annotated, Optional

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

LANGS = ("en", "zh")
_UNTRANSLATABLE = re.compile(r"^[\w.:()\[\]=+\-*/`'\",<>%]+$")


class Text(BaseModel):
    """A text with an English original and an optional Chinese translation."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    en: str = Field(min_length=1)
    zh: Optional[str] = Field(default=None, min_length=1)

    def get(self, lang: str) -> str:
        """The text in ``lang``, falling back to English where no translation exists."""
        if lang == "zh" and self.zh:
            return self.zh
        return self.en

    def missing(self) -> list[str]:
        """Languages this text lacks; a bare identifier or literal (``True``, ``cudnn.enabled``) needs none."""
        return [] if self.zh or _UNTRANSLATABLE.match(self.en) else ["zh"]

    def __str__(self) -> str:  # English is the canonical form in logs and ids
        return self.en


def _from_plain_string(value):
    return {"en": value} if isinstance(value, str) else value


LocalText = Annotated[Text, BeforeValidator(_from_plain_string)]
