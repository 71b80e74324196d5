"""Content text as HTML, for the Anki fields and the web course alike.

Anki shows a field's HTML as is (and the site its pages), so every text is escaped: ``<`` and ``&`` become
entities, and so does every brace, because ``{{`` and ``}}`` in a cloze field
would otherwise be read as cloze syntax. In cloze text the deletions
(``{{c1::answer}}``, ``{{c2::answer::hint}}``) are kept working while the text
around and inside them is escaped. Backticks mark code: `` `x` `` becomes
``<code>x</code>``.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterable, Iterator, NamedTuple, Optional, Sequence
from urllib.parse import urlsplit

from markupsafe import Markup

from .. import colour
from ..markup import CLOZE_OPEN, CODE_SPAN, is_plain, segments
from ..parallel import in_background
from ..wording import words

if TYPE_CHECKING:
    from .base import RenderJob

_CODE_BLOCKS: dict[tuple[str, str], Markup] = {}  # (code, language) -> HTML, for the process
_CLOZE_MARKER = re.compile(CLOZE_OPEN.pattern + r"|\}{2,}")  # a deletion's opening, or a run of closing braces
# Where code may wrap: after a dot between names (not inside a number or an ellipsis), an underscore
# between two letters or digits (``allow_|tf32``, never ``__|init__``), a ``/``, a comma, an opening
# parenthesis or an ``=`` (not doubled, nor before a closing one or a space, which breaks anyway).
# Never between two letters or digits: a name is never cut inside a word. Each branch starts with its
# character (what comes before it is looked at behind it), so the regex engine skips every other character.
_BREAK_AFTER = re.compile(r"\.(?:(?<![\s\d]\.)(?=[^\s.])|(?<=\d\.)(?=[^\s.\d]))|_(?<=[A-Za-z0-9]_)(?=[A-Za-z0-9])"
                          r"|/(?=[^\s/])|,(?=[^\s])|\((?=[^\s()])|=(?<!==)(?=[^\s=])")
# Code written in prose without backticks: a run of ASCII without spaces that holds a dotted or snake_case
# name (``torch.backends.cudnn.benchmark``, ``MALLOC_CONF=oversize_threshold:1,background_thread:true``).
# One unbreakable word to a browser, so it gets code's break places too. A match only starts where a run
# starts (the lookbehind): the same matches, without retrying from every character of a run that holds no name.
_NAME_JOIN = r"[A-Za-z0-9][._][A-Za-z0-9_]"  # the dot or underscore inside a name
_PROSE_NAME = re.compile(rf"(?<![!-~])[!-~]*?{_NAME_JOIN}[!-~]*")
_HOLDS_NAME = re.compile(_NAME_JOIN)  # searched first: most sentences hold a dot but no name, and this is cheaper
_FITS = 20  # inline code or a name this long fits a line anywhere on a card at 390 px (the layout tests hold it)
_ENTITY = re.compile(r"&[^;]+;")
_MAX_HANGING_INDENT = 20  # card.css has a class i1 .. i20 per leading-space count


def escape(text: str) -> str:
    """``text`` as literal HTML: markup characters and braces become entities (``&`` first).

    Each character tested before it is replaced, written out rather than looped over: a deck escapes
    over 100,000 short texts, most with none of them, and a loop costs three times the tests.
    """
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    if "{" in text:
        text = text.replace("{", "&#123;")
    if "}" in text:
        text = text.replace("}", "&#125;")
    return text


def _decorate(escaped: str) -> str:
    """Backticked spans become ``<code>``, names in the prose around them breakable, line breaks ``<br>``."""
    html, start = [], 0
    for span in CODE_SPAN.finditer(escaped) if "`" in escaped else ():
        html += [prose(escaped[start:span.start()]), "<code>", _breakable_if_long(span[1]), "</code>"]
        start = span.end()
    html.append(prose(escaped[start:]))
    joined = "".join(html)
    return joined.replace("\n", "<br>") if "\n" in joined else joined


def prose(escaped: str) -> str:
    """Escaped prose with ``breakable``'s ``<wbr>`` inside each name it mentions (``_PROSE_NAME``): a dotted
    name is one word to the browser, which could otherwise only cut it mid-word on a phone."""
    if ("." in escaped or "_" in escaped) and _HOLDS_NAME.search(escaped):
        return _PROSE_NAME.sub(lambda name: _breakable_if_long(name[0]), escaped)
    return escaped


def _breakable_if_long(escaped_code: str) -> str:
    """``breakable`` for inline code or a name longer than ``_FITS`` characters; a shorter one fits any line of a
    card at 390 px, so it moves to the next line whole rather than breaking at a dot (``torch.`` / ``backends``)."""
    if len(escaped_code) <= _FITS:  # an entity shows as one character: shorter still
        return escaped_code
    shown = len(_ENTITY.sub("x", escaped_code)) if "&" in escaped_code else len(escaped_code)
    return breakable(escaped_code) if shown > _FITS else escaped_code


def breakable(escaped_code: str) -> str:
    """Inline code with a ``<wbr>`` at each of ``_BREAK_AFTER``'s places.

    ``torch.backends.cudnn.allow_tf32`` then wraps at its dots (or after ``allow_``) on a phone
    rather than running past the edge; the CSS breaks code nowhere else, so no name is cut inside
    a word. ``<wbr>`` is no character, so copied code stays intact. Entities (``&amp;``) hold none
    of these characters.
    """
    return _BREAK_AFTER.sub(_with_wbr, escaped_code)


def _with_wbr(match: re.Match[str]) -> str:
    """A break character and its ``<wbr>`` (a function: faster than a ``\\g<0>`` template, expanded match by match)."""
    return match[0] + "<wbr>"


def break_offsets(code: str) -> list[int]:
    """Where ``breakable`` puts its ``<wbr>``: offsets in ``code`` just after each break character."""
    return [match.end() for match in _BREAK_AFTER.finditer(code)]


class Link(NamedTuple):
    """A source as the footer shows it: the address it opens and short text to tap."""

    address: str
    text: Markup


def link(address: str) -> Link:
    """``address`` with short link text, breakable like code: the site, then what it points at
    (``docs.pytorch.org › cudnn.benchmark``, ``docs.pytorch.org › notes/randomness``,
    ``github.com › cudnn/__init__.py``, ``github.com › pytorch#127277``)."""
    parts = urlsplit(address)
    host = parts.netloc.removeprefix("www.")
    segments = [s for s in parts.path.split("/") if s]
    fragment = parts.fragment.removeprefix("module-")
    if host == "github.com" and len(segments) > 3 and segments[2] == "blob":  # OWNER/REPO/blob/REF/PATH
        what = ("" if segments[:2] == ["pytorch", "pytorch"] else f"{segments[1]} › ") + "/".join(segments[4:][-2:])
    elif host == "github.com" and len(segments) == 4 and segments[2] in ("pull", "issues"):
        what = f"{segments[1]}#{segments[3]}"
    elif fragment.startswith("torch."):
        what = fragment.removeprefix("torch.backends.")
    else:  # the page: its last two named parts (no docs/stable, no .html, no discussion numbers)
        named = [re.sub(r"\.html?$", "", s) for s in segments
                 if s not in ("docs", "stable", "main", "master", "generated") and not s.isdigit() and len(s) > 1]
        what = "/".join(named[-2:])
    return Link(address, Markup(breakable(escape(f"{host} › {what}" if what else host))))


def inline(text: str) -> Markup:
    """A content text as field HTML (``markup.segments``): code in ``<code>``, an explanation (from ``ℹ``
    on) set apart in ``<span class="explain">``, line breaks as ``<br>``."""
    joined = prose(escape(text)) if is_plain(text) else "".join(_inline_pieces(text))
    return Markup(joined.replace("\n", "<br>") if "\n" in joined else joined)


def _inline_pieces(text: str) -> list[str]:
    html, explaining = [], False
    for segment in segments(text):
        if segment.explain and not explaining:
            html.append('<span class="explain">')
            explaining = True
        body = escape(segment.text)
        html.append("<code>" + _breakable_if_long(body) + "</code>" if segment.code else prose(body))
    if explaining:
        html.append("</span>")
    return html


class ShownOption(NamedTuple):
    """An MCQ card's option as shown: its text and why as field HTML, and whether it is right."""

    text: Markup
    why: Markup
    correct: bool


def mcq_fields(options: Sequence[ShownOption]) -> tuple[str, str]:
    """An MCQ card's Options field (the options as asked) and Answers field (as answered: each marked right
    or wrong, and explained). Built here, not by a template: a deck has thousands, and a Jinja macro call
    costs more than the rest of an option's HTML."""
    asked = "".join(f"<li>{option.text}</li>" for option in options)
    answered = "".join(f'<li class="{"correct" if option.correct else "wrong"}"><span class="mark">'
                       f'{"✓" if option.correct else "✗"}</span> {option.text}<div class="why">{option.why}</div></li>'
                       for option in options)
    return f'<ol class="options">{asked}</ol>', f'<ol class="options answered">{answered}</ol>'


def verified_fields(job: RenderJob, fact_ids: Iterable[str], own_source: Optional[str] = None) -> dict[str, object]:
    """What the folded "verified" footer of an item resting on ``fact_ids`` shows (``field.verified.html``,
    on a card and on the site alike): the mark, or the warning where no run verified every fact; where
    they were verified, what could not be checked here, the claims, and the sources (``own_source``, an
    item's own quote's, first) as short links."""
    fact_ids = tuple(fact_ids)
    facts = [job.course.fact(f) for f in fact_ids]
    addresses = dict.fromkeys(((own_source,) if own_source else ()) + tuple(f.source for f in facts if f.source))
    phrases = words(job.lang)
    return {"note": job.unverified_note(fact_ids), "where": job.verified_where(fact_ids),
            "claims": [inline(job.t(fact.claim)) for fact in facts], "links": [link(address) for address in addresses],
            "source": phrases["card_sources"][len(addresses) > 1], "mark": phrases["verified_mark"],
            "unverified_mark": phrases["unverified_mark"]}


def cloze(text: str) -> Markup:
    """Cloze text with working deletions and everything else escaped; ValueError if one is left open."""
    return Markup(_decorate("".join(_cloze_pieces(text))))


def _cloze_pieces(text: str) -> Iterator[str]:
    """Yield escaped text and the cloze markers Anki must see.

    A run of closing braces inside a deletion closes as many deletions as are
    open, taking its last braces; braces before those stay literal, so
    ``{{c1::{'a': {}}}}`` hides ``{'a': {}}``.
    """
    depth, position = 0, 0
    for marker in _CLOZE_MARKER.finditer(text):
        if marker[0][0] == "{":
            depth += 1
            piece = marker[0]
        elif depth:
            run = len(marker[0])
            closes = min(depth, run // 2)
            depth -= closes
            piece = escape("}" * (run - 2 * closes)) + "}}" * closes
        else:  # braces outside a deletion are text, escaped with what follows them
            continue
        yield escape(text[position:marker.start()]) + piece
        position = marker.end()
    yield escape(text[position:])
    if depth:
        raise ValueError("a cloze deletion is not closed (a '}}' is missing)")


def code_block(code: str, language: str) -> Markup:
    """Code as ``<pre class="highlight">`` with Pygments' token classes; colours come from the CSS.

    Whitespace is kept (indentation, blank lines; tabs as four spaces) but for
    final newlines. Kept for the process: a deck's two languages show the same code.
    """
    block = _CODE_BLOCKS.get((code, language))
    if block is None:
        block = _CODE_BLOCKS[code, language] = _highlighted(code, language)
    return block


def highlight_ahead(pieces: Iterable[tuple[str, str]], *, at_least: int = 200) -> Optional[HighlightAhead]:
    """Start colouring, in another process, the ``(code, language)`` pieces ``code_block`` has not done yet.

    Colouring is the costliest part of a big deck; this lets it run beside the
    rendering of the other notes. None (nothing started) when fewer than
    ``at_least`` pieces are new: too few to pay for a process.
    """
    new = list(dict.fromkeys(piece for piece in pieces if piece not in _CODE_BLOCKS))
    return HighlightAhead(new) if len(new) >= at_least else None


class HighlightAhead:
    """Pieces being coloured in the background; ``wait()`` before ``code_block`` is asked for them."""

    def __init__(self, pieces: list[tuple[str, str]]):
        self.pieces = pieces
        self.pending = in_background(_highlight_all, pieces)

    def wait(self) -> None:
        for piece, block in zip(self.pieces, self.pending.result()):
            _CODE_BLOCKS[piece] = block

    def cancel(self) -> None:
        self.pending.cancel()


def _highlight_all(pieces: list[tuple[str, str]]) -> list[Markup]:
    return [_highlighted(code, language) for code, language in pieces]


def _highlighted(code: str, language: str) -> Markup:
    """One ``<span class="line">`` per line, tokens in Pygments' classes (formatted here: Pygments'
    HtmlFormatter costs more than the lexing it wraps).

    The CSS wraps a line too long for the screen (preferably at a space, else after
    ``breakable``'s characters) with a hanging indent and a ↳ at each continuation;
    class ``iN`` (N leading spaces) puts the continuation under the line's own
    indentation. The block's text is the code.
    """
    lines = colour.lines(code.removesuffix("\n"), language, colour.css_class)
    rows = [_code_line(runs, "\n" if number < len(lines) else "") for number, runs in enumerate(lines, 1)]
    return Markup('<pre class="highlight"><code>' + "".join(rows) + "</code></pre>")


def _code_line(runs: list[tuple[str, str]], end: str) -> str:
    """A line's spans and its newline inside the line's box (a newline between the boxes would show as a blank line).

    Break places are found in the whole line, not token by token: Pygments makes each dot of
    ``torch.backends.cudnn`` a token of its own, and only the line shows it between two names.
    """
    text = "".join(piece for piece, _ in runs)
    indent = min(len(text) - len(text.lstrip(" ")), _MAX_HANGING_INDENT) if text.strip() else 0
    pieces = zip(_split_at(runs, break_offsets(text)), (css_class for _, css_class in runs))
    spans = "".join(f'<span class="{css_class}">{piece}</span>' if css_class else piece for piece, css_class in pieces)
    classes = f"line i{indent}" if indent else "line"
    return f'<span class="{classes}">{spans}{end}</span>'


def _split_at(runs: list[tuple[str, str]], offsets: list[int]) -> list[str]:
    """Each run's text escaped, with a ``<wbr>`` at each of ``offsets`` (offsets in the whole line) inside it
    or at its end."""
    pieces, start, pending = [], 0, iter(offsets)
    offset = next(pending, None)
    for piece, _ in runs:
        end = start + len(piece)
        if piece and (offset is None or offset > end):  # most runs: no break place in them or at their end
            pieces.append(escape(piece))
            start = end
            continue
        parts, at = [], start
        while offset is not None and offset <= end:
            parts.append(escape(piece[at - start:offset - start]))
            at, offset = offset, next(pending, None)
        parts.append(escape(piece[at - start:]))
        pieces.append("<wbr>".join(parts) if parts[-1] else "<wbr>".join(parts[:-1]) + "<wbr>")
        start = end
    return pieces
