"""Typesetting with Typst, shared by the quiz and the workshop handout: a template and JSON data in, a
PDF out; the fonts it may use (shipped, or the system's where the content needs them); content text and
code as the templates take them."""
from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Optional

import typst

from .. import colour
from ..errors import BuildError
from ..fonts import FOLDER as FONTS_FOLDER
from ..fonts import EmojiError, emoji_font_folders
from ..markup import segments
from ..wording import words

LATIN_FONT = "Libertinus Serif"  # embedded in Typst: no system font needed for English
CJK_FONT = "Noto Sans CJK SC"  # from the system (fonts-noto-cjk): Chinese quizzes use the system's fonts
MONO_FONT = "DejaVu Sans Mono"  # embedded in Typst
EMOJI_FONT = "Noto Color Emoji"  # the content's emoji, shipped in generator/fonts; only for content with emoji
FONT_FOLDERS = "font_folders"  # a document's key for font folders beyond FOLDER (the system's emoji); not sent to Typst


def emoji_folders(texts) -> tuple[str, ...]:
    """The font folders beside the shipped ones that the emoji of ``texts`` need (``fonts.emoji_font_folders``):
    the system's emoji font for one the shipped cut lacks; an emoji no font has is a BuildError, never an
    empty box (the CLI finds it, located, before anything is written)."""
    try:
        return emoji_font_folders(texts)
    except EmojiError as err:
        raise BuildError(str(err)) from None


def rich(text: str) -> list[dict]:
    """A content text as the template's ``inline`` takes it: ``markup.segments`` as
    ``{"t": text, "c": code?, "e": explanation?}``."""
    return [{"t": s.text, "c": s.code, "e": s.explain} for s in segments(text)]


def legend(lang: str, data) -> str:
    """What ℹ means, for a document whose ``data`` prints an explanation (a ``rich`` segment from ℹ on), to
    say once under its title; '' for a document that prints none."""
    return words(lang)["explained"] if _explains(data) else ""


def _explains(data) -> bool:
    if isinstance(data, dict):
        return data.get("e") is True or any(_explains(value) for value in data.values())
    if isinstance(data, (list, tuple)):
        return any(_explains(value) for value in data)
    return False


@functools.lru_cache(maxsize=1024)
def code_lines(code: Optional[str], language: str) -> Optional[tuple]:
    """``code`` as lines of ``(text, colour)`` runs (``colour.paper`` palette; "" = the text colour).

    The template colours the runs itself: much faster than Typst's own highlighter,
    which re-highlights every listing in every PDF.
    """
    if code is None:
        return None
    lines = colour.lines(code, language, colour.paper)
    while lines and not lines[-1]:
        lines.pop()
    return tuple(tuple((text, f"#{look.colour}" if look.colour else "") for text, look in line)  # type: ignore[attr-defined]
                 for line in lines)


def typeset(data: dict, template: Path) -> bytes:
    """The PDF of the Typst ``template`` (the quiz's, a workshop handout's) for ``data``; a Typst error or a
    missing font is a BuildError."""
    folders = tuple(data.get(FONT_FOLDERS, ()))
    payload = json.dumps({k: v for k, v in data.items() if k != FONT_FOLDERS}, ensure_ascii=False, sort_keys=True)
    try:
        pdf, warnings = _compiler(template, data["lang"] != "en", folders).compile_with_warnings(
            format="pdf", sys_inputs={"data": payload})
    except typst.TypstError as err:
        raise BuildError(f"Typst could not typeset {template.name}", _describe(err)) from None
    for warning in warnings:
        if "unknown font family" in warning.message:
            raise _missing_font(warning.message.rsplit(":", 1)[-1].strip())
    assert isinstance(pdf, bytes)  # one PDF, not one image per page
    return pdf


def _missing_font(family: str) -> BuildError:
    """Typst names the family in lower case; say what needs it and which Debian package brings it."""
    needs = {CJK_FONT.lower(): ("Chinese quizzes need", CJK_FONT, "fonts-noto-cjk"),
             EMOJI_FONT.lower(): ("emoji in the content need", EMOJI_FONT, "fonts-noto-color-emoji")}
    what, name, package = needs.get(family, ("the quiz needs", family, "a package with that font"))
    return BuildError(f"Typst finds no font family '{family}': {what} {name} (install {package}); "
                      f"no PDF was written rather than one with empty boxes for characters")


@functools.cache
def _compiler(template: Path, system_fonts: bool, folders: tuple[str, ...] = ()) -> typst.Compiler:
    """One compiler per template and font set: it scans the fonts once, then reuses them for every PDF.

    English quizzes use only Typst's embedded fonts and the ones torchdeck ships, so the same
    seed gives the same PDF on any machine, fonts installed or not; Chinese ones need the
    system's CJK font as well. ``folders``: more fonts (the system's emoji font, for an emoji
    the shipped cut lacks).
    """
    return typst.Compiler(str(template), root=str(template.parent), font_paths=[str(FONTS_FOLDER), *folders],
                          ignore_system_fonts=not system_fonts)


def _describe(err: typst.TypstError) -> str:
    """Typst's own report: the message with its source excerpt, then its hints."""
    lines = [getattr(err, "diagnostic", "") or str(err)]
    lines += [f"hint: {hint}" for hint in getattr(err, "hints", None) or []]
    return "\n".join(lines)
