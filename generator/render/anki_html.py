"""Content text to the HTML that goes into Anki fields.

Anki shows a field's HTML as is, so every text is escaped: ``<`` and ``&`` become
entities, and so does every brace, because ``{{`` and ``}}`` in a cloze field
would otherwise be read as cloze syntax. In cloze text the deletions
(``{{c1::answer}}``, ``{{c2::answer::hint}}``) are kept working while the text
around and inside them is escaped. Backticks mark code: `` `x` `` becomes
``<code>x</code>``.
"""
from __future__ import annotations

import html
import re
from functools import lru_cache
from itertools import groupby

from markupsafe import Markup
from pygments.lexers import get_lexer_by_name
from pygments.token import STANDARD_TYPES
from pygments.util import ClassNotFound

_BACKTICKS = re.compile(r"`([^`\n]+)`")
_CLOZE_OPEN = re.compile(r"\{\{c(\d+)::")
_CLOSING_RUN = re.compile(r"\}{2,}")


def escape(text: str) -> str:
    """``text`` as literal HTML: markup characters and braces become entities."""
    text = html.escape(text, quote=False)
    if "{" in text or "}" in text:
        text = text.replace("{", "&#123;").replace("}", "&#125;")
    return text


def _decorate(escaped: str) -> str:
    """Backticked spans become ``<code>``, line breaks ``<br>``."""
    if "`" in escaped:
        escaped = _BACKTICKS.sub(r"<code>\1</code>", escaped)
    return escaped.replace("\n", "<br>") if "\n" in escaped else escaped


def inline(text: str) -> Markup:
    """A content text as field HTML."""
    return Markup(_decorate(escape(text)))


def cloze(text: str) -> Markup:
    """Cloze text with working deletions and everything else escaped; ValueError if one is left open."""
    return Markup(_decorate("".join(_cloze_pieces(text))))


def _cloze_pieces(text: str):
    """Yield escaped text and the cloze markers Anki must see.

    A run of closing braces inside a deletion closes as many deletions as are
    open, taking its last braces; braces before those stay literal, so
    ``{{c1::{'a': {}}}}`` hides ``{'a': {}}``.
    """
    depth, position = 0, 0
    while position < len(text):
        opening = _CLOZE_OPEN.match(text, position)
        if opening:
            depth += 1
            yield opening.group(0)
            position = opening.end()
            continue
        closing = _CLOSING_RUN.match(text, position) if depth else None
        if closing:
            run = len(closing.group(0))
            closes = min(depth, run // 2)
            yield escape("}" * (run - 2 * closes)) + "}}" * closes
            depth -= closes
            position = closing.end()
            continue
        following = _next_special(text, position + 1, depth)
        yield escape(text[position:following])
        position = following
    if depth:
        raise ValueError("a cloze deletion is not closed (a '}}' is missing)")


def _next_special(text: str, start: int, depth: int) -> int:
    """Where the next cloze opening (or, inside a deletion, closing) could start."""
    candidates = [text.find("{{c", start)]
    if depth:
        candidates.append(text.find("}}", start))
    found = [c for c in candidates if c >= 0]
    return min(found) if found else len(text)


@lru_cache(maxsize=None)
def code_block(code: str, language: str) -> Markup:
    """Code as ``<pre class="highlight">`` with Pygments' token classes; colours come from the CSS.

    Whitespace is kept exactly (indentation, blank lines) but for one final
    newline. Tokens are formatted here rather than by Pygments'
    HtmlFormatter, which costs more than the lexing it wraps.
    """
    tokens = _lexer(language).get_tokens(code.removesuffix("\n"))
    spans = []
    for css_class, run in groupby(tokens, key=lambda token: _css_class(token[0])):
        value = escape("".join(text for _, text in run))
        spans.append(f'<span class="{css_class}">{value}</span>' if css_class else value)
    return Markup(f'<pre class="highlight"><code>{"".join(spans)}</code></pre>')


@lru_cache(maxsize=None)
def _lexer(language: str):
    options = {"stripnl": False, "stripall": False, "ensurenl": False}
    try:
        return get_lexer_by_name(language, **options)
    except ClassNotFound:
        return get_lexer_by_name("text", **options)


@lru_cache(maxsize=None)
def _css_class(token_type) -> str:
    """Pygments' short class (``k``, ``s1``); an unlisted subtype takes its parent's."""
    while token_type not in STANDARD_TYPES:
        token_type = token_type.parent
    return STANDARD_TYPES[token_type]
