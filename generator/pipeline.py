"""The build, stage by stage: load the content, verify its facts against torch, add the runs the
ledger recorded elsewhere, leave out what rests on a fact that did not hold, render each output.

The CLI turns its options into one ``BuildRequest`` and calls ``verified`` and ``rendered``; nothing
here prints or exits. Bad input is a ``ContentError`` (every problem, with file:line) or an
``OptionError`` (an option's value), found before anything is written (exit 2); a verification
that cannot run is a ``VerifyError`` and an output that cannot be made a ``BuildError`` (exit 1).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional, Sequence

from .errors import BuildError, ContentError, Problem
from .verify import Verification, start_worker_if_cold, verify

if TYPE_CHECKING:
    from .model import Course

# The content model (pydantic) is imported where the content is loaded, after the
# fact-check worker has been started, so that torch's import overlaps ours.

Preflight = Callable[["Course"], None]  # raises what an output would fail on half-way, before anything is checked


class OptionError(Exception):
    """An option's value is bad (exit 2): ``option`` names it (``--module``), or None for the command."""

    def __init__(self, message: str, option: Optional[str] = None):
        super().__init__(message)
        self.option = option


@dataclass(frozen=True)
class BuildRequest:
    """What a build is asked for, as the command line gives it."""

    content: str
    out: str = "build"
    lang: str = "all"
    modules: tuple[str, ...] = ()
    python: Optional[str] = None
    timeout: float = 10.0
    no_cache: bool = False
    strict: bool = False
    quiet: bool = False

    @property
    def cache_dir(self) -> Optional[Path]:
        return None if self.no_cache else Path(self.out) / ".cache"

    @property
    def languages(self) -> tuple[str, ...]:
        from .text import LANGS

        return LANGS if self.lang == "all" else (self.lang,)


@dataclass(frozen=True)
class Verified:
    """A course to render and what torch said of it; ``left_out``: ``(kind, item id, facts)`` of each item
    left out because a fact it rests on did not hold (None for a strict build, which leaves out nothing)."""

    course: Course
    verification: Verification
    left_out: Optional[list] = None


def load(content: str, modules: Sequence[str] = (), cache_dir: Optional[Path] = None) -> Course:
    """The course (the chosen modules of it)."""
    from .loader import load_course

    try:
        course = load_course(content, cache_dir)
    except ContentError as err:
        raise ContentError(err.problems, where=str(content)) from None
    unknown = [m for m in modules if not course.select([m]).modules]
    if unknown:
        known = ", ".join(m.name for m in course.modules)
        raise OptionError(f"no module named {', '.join(unknown)} (known: {known})", "--module")
    return course.select(modules)


def load_and_verify(request: BuildRequest, *, controls: bool = False, preflight: Optional[Preflight] = None,
                    progress=None) -> tuple[Course, Verification]:
    """The course and what torch says of its facts.

    With nothing cached, the worker starts before the content loads, so that its ``import torch``
    overlaps the YAML parsing. ``preflight(course)`` runs before any fact is checked.
    ``progress(course)``: a context manager giving the callback verification counts facts with.
    """
    worker = start_worker_if_cold(request.python, request.cache_dir)
    try:
        course = load(request.content, request.modules, request.cache_dir)
        if preflight is not None:
            preflight(course)
    except BaseException:
        if worker:
            worker.cancel()
        raise
    def run(update=None) -> Verification:
        return verify(course, python=request.python, timeout=request.timeout, cache_dir=request.cache_dir,
                      progress=update, worker=worker, controls=controls)

    if progress is None:
        return course, run()
    with progress(course) as update:
        return course, run(update)


def ledger_runs(content: str, course: Course) -> tuple:
    """Every run the ledger recorded, each file readable as one (a bad date or value: a ContentError with
    its file:line)."""
    from . import ledger

    try:
        return ledger.load(content, course)
    except ContentError as err:
        raise ContentError(err.problems, where=str(ledger.folder_of(content))) from None


def with_runs(verification: Verification, runs: Sequence) -> Verification:
    """``verification`` with the ``runs`` recorded elsewhere (other torches, other machines)."""
    from . import ledger

    here = ledger.label(verification.torch, verification.build)
    return dataclasses.replace(verification, elsewhere=tuple(r for r in runs if r.label != here))


def verified(request: BuildRequest, preflights: Sequence[Optional[Preflight]] = (), progress=None) -> Verified:
    """The course to render: every preflight passed, the facts checked, the ledger's runs added; unless the
    request is strict, without the items that rest on a fact that did not hold (``Verified.left_out``)."""
    runs: list = []

    def checked(course):
        runs.extend(ledger_runs(request.content, course))  # read once, before any fact is checked
        for preflight in preflights:
            if preflight is not None:
                preflight(course)

    course, verification = load_and_verify(request, preflight=checked, progress=progress)
    verification = with_runs(verification, runs)
    if request.strict:
        return Verified(course, verification)
    course, left_out = course.without_facts(r.id for r in verification.problems)
    return Verified(course, verification, left_out)


def rendered(name: str, request: BuildRequest, built: Verified, options) -> list[Path]:
    """Every file output ``name`` (``render.OUTPUTS``) writes for each language asked for, each path once."""
    from .render import output
    from .render.base import RenderJob

    paths: list[Path] = []
    for lang in request.languages:
        job = RenderJob(built.course, built.verification, lang, Path(request.out))
        paths += [path for path in output(name).render(job, options) if path not in paths]
    return paths


def deck_stem(course: Course, modules: Sequence[str]) -> str:
    """``torch-backends``, or ``torch-backends.cudnn+mha`` for a selection, so that a partial deck never
    replaces the whole one."""
    if not modules:
        return "torch-backends"
    return "torch-backends." + "+".join(m.name for m in course.modules)


# ----------------------------------------------------------------- preflights
def emoji_preflight(content: str) -> Preflight:
    """Every emoji of the content drawn by the shipped cut or the system's emoji font; else a ContentError with
    each one's file:line (a quiz or handout would fail half-way)."""
    def preflight(_course):
        from .fonts import EmojiError, located_emoji_nowhere

        found = located_emoji_nowhere(sorted(Path(content).glob("*.yaml")))
        if found:
            reason = str(EmojiError(sorted({emoji for *_, emoji in found})))
            raise ContentError([Problem(file, line, 1, "", f"{reason}; remove it, or install a font with it")
                                for file, line, _ in found], where=str(content))

    return preflight


def lock_preflight(lock: Path, base: Optional[Path]) -> Preflight:
    """The deck's lock and the one read under it are manifests; else an OptionError naming the file:line."""
    def preflight(_course):
        from .render import anki

        try:
            anki.read_lock(lock, base)
        except BuildError as err:
            raise OptionError(f"{err}; nothing was written") from None

    return preflight


def titles_preflight(request: BuildRequest, workshop=None) -> Preflight:
    """Every title the content gives a slide fits it; else a ContentError."""
    def preflight(course):
        from .render import slides
        from .workshops import course_for

        shown = course_for(workshop, course) if workshop is not None else course
        file = Path(request.content) / "workshops.yaml"
        problems = [p for lang in request.languages for p in slides.title_problems(shown, lang, workshop, file)]
        if problems:
            raise ContentError(problems, where="the slide titles")

    return preflight


def lock_paths(request: BuildRequest, update_lock: Optional[bool] = None) -> tuple[Path, Optional[Path]]:
    """``(the lock this build writes, the lock read under it or None)`` (``lock_preflight`` checks them).

    The content's ``deck.lock`` is brought up to date only by a build of a course in a checkout or folder of
    its own (never an installed torchdeck's) with this interpreter's torch, or with ``--update-lock``:
    another torch (``--python``) words every card's verification differently, and would otherwise rewrite
    every entry. Such a build writes ``<out>/deck.lock``, read over the content's."""
    from .resources import is_packaged

    content_lock = Path(request.content) / "deck.lock"
    packaged = is_packaged(Path(request.content))
    if update_lock and packaged:
        raise OptionError("--update-lock: the course of an installed torchdeck is never written to; build a "
                          "copy (--content) or a checkout instead")
    if update_lock is None:
        update_lock = not packaged and request.python is None
    return (content_lock, None) if update_lock else (Path(request.out) / "deck.lock", content_lock)
