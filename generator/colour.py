"""Code colouring for every output: Pygments' tokens (``highlight``) grouped into runs by a palette.

A palette maps a token type to a look; ``runs`` merges neighbouring tokens of one look, and
``lines`` also splits them at line ends. Anki colours by CSS class (night mode is the CSS's
business), the slides by Pygments' ``default`` style (meant for a light grey box), the printed
quiz by a few ink colours that survive a grey-scale printer.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Hashable, TypeVar

from pygments.styles import get_style_by_name
from pygments.token import STANDARD_TYPES, Comment, Keyword, Name, Number, Operator, String

from . import highlight


@dataclass(frozen=True)
class Look:
    colour: str = ""  # RRGGBB, '' for the text colour
    bold: bool = False
    italic: bool = False


LookT = TypeVar("LookT", bound=Hashable)  # what a palette gives a token: a CSS class, a Look
Palette = Callable[[object], LookT]  # generic alias: Palette[str] gives CSS classes

_PAPER = (  # first match wins; token types not listed print in the text colour
    (Comment, "6e7781"), (Operator.Word, "cf222e"), (Keyword, "cf222e"), (String, "0a3069"),
    (Number, "0550ae"), (Name.Builtin, "8250df"), (Name.Function, "8250df"), (Name.Class, "8250df"),
    (Name.Decorator, "8250df"),
)


@lru_cache(maxsize=None)
def css_class(token_type) -> str:
    """Pygments' short CSS class (``k``, ``s1``); an unlisted subtype takes its parent's."""
    while token_type not in STANDARD_TYPES:
        token_type = token_type.parent
    return STANDARD_TYPES[token_type]


@lru_cache(maxsize=None)
def paper(token_type) -> Look:
    """The printed quiz's ink."""
    return Look(next((colour for parent, colour in _PAPER if token_type in parent), ""))


_SLIDE_STYLE = get_style_by_name("default")


@lru_cache(maxsize=None)
def slide(token_type) -> Look:
    """Pygments' ``default`` style: colours meant for a light grey box."""
    look = _SLIDE_STYLE.style_for_token(token_type)
    return Look(look["color"] or "", look["bold"], look["italic"])


def runs(code: str, language: str, palette: Palette[LookT]) -> list[list]:
    """``[[text, look], ...]``: the code's tokens, neighbours of one look merged (line ends kept in the text)."""
    out: list[list] = []
    for token, text in highlight.tokens(code, language):
        look = palette(token)
        if out and out[-1][1] == look:
            out[-1][0] += text
        else:
            out.append([text, look])
    return out


def lines(code: str, language: str, palette: Palette[LookT]) -> list[list[tuple[str, LookT]]]:
    """The code (tabs as 4 spaces, trailing newlines dropped) as one list of ``(text, look)`` runs per line."""
    out: list[list[tuple[str, LookT]]] = [[]]
    for text, look in runs(code.expandtabs(4).rstrip("\n"), language, palette):
        for number, piece in enumerate(text.split("\n")):
            if number:
                out.append([])
            if piece:
                line = out[-1]
                if line and line[-1][1] == look:
                    line[-1] = (line[-1][0] + piece, look)
                else:
                    line.append((piece, look))
    return out
