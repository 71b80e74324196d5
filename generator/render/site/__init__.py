"""The course as a static web course: ``build/site/index.html`` (the languages), then per language a page
listing the modules (``site/<lang>/index.html``) and a page per module (``site/<lang>/<module>.html``).

A module's page holds its outline, then its lessons in teaching order (points, code, table, quote, analogy,
diagrams, takeaway), each followed by the questions that test it (``render.teaching``): an option clicked
shows the why of every option; a game lesson's table becomes a game (pick each situation's settings, then
check); a review of the takeaways just taught every few lessons. Every item says where its facts were
verified, in the folded footer the cards show (``html.verified_fields``). Answers are kept in the browser
(``localStorage``), so progress survives a reload. The pages link only to each other, to their stylesheets,
script and diagrams beside them, and to the sources: no server, no network, opened as ``file://``.

The cards' stylesheet (``templates/anki/card.css``) comes along: code blocks, their colours, night mode
(``prefers-color-scheme`` sets its ``.nightMode``) and the light and night diagrams look as on a card.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from jinja2 import ChoiceLoader, Environment, FileSystemLoader, StrictUndefined

from ... import resources
from ...atomic import atomic_write_bytes, atomic_write_text
from ...diagrams import Variant, card_diagram_filename, card_diagram_png
from ...text import LANGS
from ...wording import words
from ..base import RenderJob
from .view import SiteView

FOLDER = "site"
TEMPLATES = resources.templates() / "site"
CARD_CSS = resources.templates() / "anki" / "card.css"
ASSETS = ("site.css", "site.js")


@dataclass(frozen=True)
class SiteOptions:
    languages: tuple[str, ...] = LANGS  # the languages this build writes: the ones the pages link to
    deck_stem: str = "torch-backends"  # the Anki deck the pages point to, beside the site: <stem>.<lang>.apkg


def render(job: RenderJob, options: SiteOptions) -> list[Path]:
    """Write the site's shared files and ``job``'s language: its course page, module pages and diagrams."""
    root = job.out_dir / FOLDER
    view = SiteView(job, options.languages, options.deck_stem)
    paths = [_write_text(root / "card.css", CARD_CSS.read_text(encoding="utf-8"))]
    paths += [_write_text(root / name, (TEMPLATES / name).read_text(encoding="utf-8")) for name in ASSETS]
    paths.append(_write_text(root / "index.html", _page("home.html", view, root="")))
    folder = root / job.lang
    paths.append(_write_text(folder / "index.html", _page("course.html", view, root="../")))
    for module in job.course.modules:
        paths.append(_write_text(folder / view.page_of(module), _page("module.html", view, root="../", module=module)))
    for name in view.diagram_names():
        for night in (False, True):
            variant = Variant(job.lang, night)
            path = folder / "img" / card_diagram_filename(name, job.course, variant)
            atomic_write_bytes(path, card_diagram_png(name, job.course, variant))
            paths.append(path)
    return paths


def _write_text(path: Path, text: str) -> Path:
    atomic_write_text(path, text)
    return path


@lru_cache(maxsize=None)
def _environment() -> Environment:
    """The site's templates, and the cards' fields it shares (the folded "verified" footer)."""
    loader = ChoiceLoader([FileSystemLoader(TEMPLATES), FileSystemLoader(resources.templates() / "anki")])
    return Environment(loader=loader, autoescape=True, undefined=StrictUndefined, trim_blocks=True,
                       lstrip_blocks=True, auto_reload=False, keep_trailing_newline=True)


def _page(template: str, view: SiteView, root: str, **values) -> str:
    """A page of ``view``'s language, or (the home page, at the ``root`` of the site) of every language, led by
    the first."""
    lang = view.lang if root else view.languages[0]
    return _environment().get_template(template).render(view=view, w=view.words, root=root, page_lang=lang,
                                                         skip=words(lang)["site"]["skip"], **values)
