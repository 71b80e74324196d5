"""The ``torchdeck`` command line: load, verify, then render.

Exit codes: 0 ok; 1 a fact failed or an output could not be made; 2 bad input or usage.
"""
from __future__ import annotations

import contextlib
import functools
import json
import math
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from . import pipeline
from .errors import BuildError, ContentError
from .pipeline import BuildRequest
from .verify import STATUSES, Verification, VerifyError

if TYPE_CHECKING:
    from .model import Course

# The content model (pydantic) is imported where the content is loaded, after the
# fact-check worker has been started, so that torch's import overlaps ours.


class Failure(click.ClickException):
    """Exit code 1: a fact failed, or an output could not be made."""

    exit_code = 1


def _shipped_content() -> str:
    from .resources import content

    return str(content())


class Seconds(click.ParamType):
    """A timeout: a finite number of seconds above 0 and at most a day (``nan`` and ``inf`` are refused)."""

    name = "seconds"
    LONGEST = 86400.0

    def convert(self, value, param, ctx):
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not math.isfinite(seconds) or not 0 < seconds <= self.LONGEST:
            self.fail(f"{value!r} is not a number of seconds above 0 and at most {self.LONGEST:g}", param, ctx)
        return seconds


def _a_number(value, param):
    """``value``, which FloatRange lets through as ``nan`` (no comparison holds for it): refused."""
    if value is not None and math.isnan(value):
        raise click.BadParameter("'nan' is not a number", param=param)
    return value


def common_options(command):
    @click.option("--content", "content_dir", default=_shipped_content, show_default="the course torchdeck ships",
                  type=click.Path(file_okay=False), help="Folder of module YAML files (only it is loaded).")
    @click.option("--out", "out_dir", default="build", show_default=True, type=click.Path(file_okay=False),
                  help="Folder the outputs go to.")
    @click.option("--lang", type=click.Choice(["en", "zh", "all"]), default="all", show_default=True)
    @click.option("--module", "modules", multiple=True, metavar="NAME",
                  help="Only this module (short or dotted name); repeatable.")
    @click.option("--quiet", is_flag=True, help="Print only errors and the summary line.")
    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        return command(*args, **kwargs)

    return wrapper


def verify_options(command):
    @click.option("--python", "python", metavar="PATH", help="Check against the torch of another interpreter.")
    @click.option("--timeout", default=10.0, show_default=True, type=Seconds(),
                  help="Seconds a single check may run.")
    @click.option("--no-cache", is_flag=True, help="Run every check afresh.")
    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        return command(*args, **kwargs)

    return wrapper


def strict_option(command):
    return click.option("--strict", is_flag=True,
                        help="Write nothing and exit 1 when a fact does not hold (default: leave out "
                             "what rests on it and build the rest).")(command)


def lock_options(command):
    return click.option("--update-lock/--no-update-lock", "update_lock", default=None,
                        help="Bring <content>/deck.lock up to date (default: only for a course outside an "
                             "installed torchdeck, built with this interpreter's torch, not --python's); "
                             "otherwise <out>/deck.lock is written, started from the content's.")(command)


class _Terminated(BaseException):
    """SIGTERM or SIGHUP, raised where the program is, so that cleanup (the fact-check worker's, a
    half-written output's) runs."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _raise_terminated(signum, _frame):
    raise _Terminated(signum)


class _Group(click.Group):
    """Exit 130 on Ctrl-C, 143 on SIGTERM and 129 on SIGHUP (a closed terminal), as shells expect (click
    would exit 1, the code of a failed fact), after the same cleanup as any other exit."""

    def invoke(self, ctx):
        import signal

        for signum in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
            if signum is not None:
                signal.signal(signum, _raise_terminated)
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo("\ninterrupted", err=True)
            ctx.exit(130)
        except _Terminated as stop:
            hangup = stop.signum == getattr(signal, "SIGHUP", None)
            if not hangup:  # after a hangup the terminal is gone: say nothing
                click.echo("\nterminated", err=True)
            ctx.exit(128 + stop.signum)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="torchdeck")
def main():
    """Turn verified knowledge about torch.backends into an Anki deck, slides and quizzes."""


# ------------------------------------------------------------------ helpers
def bad_input(err: ContentError, where) -> click.UsageError:
    """Print every problem of ``err`` (file:line: message) and say nothing was written: exit 2."""
    for problem in err.problems:
        click.echo(str(problem), err=True)
    return click.UsageError(f"{len(err.problems)} problem(s) in {where}; nothing was written")


def check_source_date() -> None:
    """A SOURCE_DATE_EPOCH that is not a count of seconds: exit 2 before anything is verified or written."""
    from .epoch import EpochError, source_date

    try:
        source_date()
    except EpochError as err:
        raise click.UsageError(str(err)) from None


def request_of(content_dir, out_dir="build", lang="all", modules=(), quiet=False, python=None, timeout=10.0,
               no_cache=False, strict=False) -> BuildRequest:
    """The one request object a command's options make."""
    return BuildRequest(content=content_dir, out=out_dir, lang=lang, modules=tuple(modules), python=python,
                        timeout=timeout, no_cache=no_cache, strict=strict, quiet=quiet)


def as_click(err: Exception) -> click.ClickException:
    """A stage's error as the command line reports it: bad input exit 2, a failure exit 1."""
    if isinstance(err, ContentError):
        return bad_input(err, err.where or "the input")
    if isinstance(err, pipeline.OptionError):
        return click.BadParameter(str(err), param_hint=err.option) if err.option else click.UsageError(str(err))
    return Failure(str(err))


def load(content_dir: str, modules=()) -> Course:
    """The course, or a clean exit 2 listing every problem of the input."""
    try:
        return pipeline.load(content_dir, modules)
    except (ContentError, pipeline.OptionError) as err:
        raise as_click(err) from None


def progress_bar(request: BuildRequest):
    """A progress bar on stderr while facts are checked, where a person watches (a terminal, not --quiet)."""
    if request.quiet or not sys.stderr.isatty():
        return None

    @contextlib.contextmanager
    def bar(course):
        with click.progressbar(length=len(course.facts), label="verifying facts", file=sys.stderr) as shown:
            yield shown.update

    return bar


def rendered(name: str, request: BuildRequest, course: Course, verification: Verification, options) -> list[Path]:
    return pipeline.rendered(name, request, pipeline.Verified(course, verification), options)


def verified(request: BuildRequest, *preflights) -> tuple[Course, Verification]:
    """The course to render: with ``--strict``, exit 1 when a fact does not hold; otherwise the course
    without the items that rest on such a fact (each one is listed)."""
    built = pipeline.verified(request, preflights, progress_bar(request))
    report_problems(built.verification, built.left_out)
    return built.course, built.verification


def report_problems(verification: Verification, left_out=None) -> None:
    """Each failing or erroring fact, with where it was written and (``left_out``) the items
    resting on it; without ``left_out``, exit 1."""
    problems = verification.problems
    if not problems:
        return
    resting: dict[str, list[str]] = {}
    for kind, item_id, facts in left_out or ():
        for fact_id in facts:
            resting.setdefault(fact_id, []).append(f"{kind} {item_id}")
    click.echo(f"\n{'status':6}  {'fact':40}  where / detail", err=True)
    for result in problems:
        click.echo(f"{result.status:6}  {result.id:40}  {result.file}:{result.line}", err=True)
        click.echo(f"{'':6}  {'':40}  {result.detail}", err=True)
        if left_out is not None:
            click.echo(f"{'':6}  {'':40}  left out: {', '.join(resting.get(result.id, [])) or 'nothing rests on it'}",
                       err=True)
    if left_out is None:
        raise Failure(f"{len(problems)} fact(s) did not hold against torch {verification.torch}; nothing was rendered")
    click.echo(f"warning: {len(problems)} fact(s) did not hold against torch {verification.torch}; "
               f"{len(left_out)} item(s) resting on them are left out (--strict: build nothing instead)", err=True)


def counts_line(verification: Verification) -> str:
    counts = verification.counts()
    return ", ".join(f"{counts[s]} {s}" for s in STATUSES)


def finish(what: str, paths, started: float, verification: Verification, quiet: bool = False) -> None:
    if not quiet:
        for path in paths:
            click.echo(f"  wrote {path}")
    click.echo(f"{what}: {len(paths)} file(s), facts {counts_line(verification)} "
               f"(torch {verification.torch}) in {time.perf_counter() - started:.1f}s")


def guarded(function):
    """Turn a failed output (BuildError, a file that cannot be read or written) into exit code 1 with a clear
    message."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except (ContentError, pipeline.OptionError, BuildError, VerifyError) as err:
            raise as_click(err) from None
        except OSError as err:
            where = f" {err.filename}" if err.filename else ""
            raise Failure(f"cannot read or write{where}: {err.strerror or err}") from None

    return wrapper


# ----------------------------------------------------------------- commands
@main.command("verify")
@common_options
@verify_options
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="Write results as JSON.")
@click.option("--report", "report_path", type=click.Path(dir_okay=False), help="Write a Markdown report.")
@click.option("--record", is_flag=True, help="Record the results in the ledger (<content>/ledger/), "
              "so that every output shows this torch among those the course was verified on.")
@click.option("--controls", is_flag=True, help="Also rerun each passing check with what it reads from torch "
              "changed (a flag flipped, a result shifted, a name removed) and run its written control: a check "
              "that passes whatever changes is 'missed'. Exit 1 on any missed, or over 5%% reading nothing "
              "that can be changed.")
@guarded
def verify_command(content_dir, out_dir, lang, modules, quiet, python, timeout, no_cache, json_path, report_path,
                   record, controls):
    """Check every fact against the installed torch."""
    from . import ledger
    from .atomic import atomic_write_text
    from .report import markdown_report

    started = time.perf_counter()
    request = request_of(content_dir, out_dir, lang, modules, quiet, python, timeout, no_cache)
    course, verification = pipeline.load_and_verify(request, controls=controls, progress=progress_bar(request))
    if json_path:
        atomic_write_text(json_path, json.dumps(verification.as_json(), indent=2, ensure_ascii=False) + "\n")
    if report_path:
        atomic_write_text(report_path, markdown_report(verification))
    if record:
        if modules:
            raise click.UsageError("--record records the whole course: leave out --module")
        path = ledger.write_run(content_dir, ledger.run_from_verification(verification, course))
        click.echo(f"  recorded {path}")
    try:
        report_problems(verification)
        if controls:
            report_controls(verification, quiet)
    finally:
        control_counts = verification.control_counts()
        controls_line = "; controls: " + ", ".join(f"{n} {c}" for c, n in control_counts.items()) if controls else ""
        if controls:
            rivals = verification.rival_counts()
            controls_line += (f"; rivals: {rivals['facts']} facts name {rivals['rivals']}, "
                              f"{rivals['ruled-out']} ruled out, {rivals['passes']} pass, {rivals['crashed']} crash, "
                              f"{rivals['error']} error")
        click.echo(f"verify: {len(verification.results)} facts: {counts_line(verification)}{controls_line} "
                   f"(torch {verification.torch}, python {verification.python}) "
                   f"in {time.perf_counter() - started:.2f}s")


def report_controls(verification: Verification, quiet: bool) -> None:
    """List each check a control did not catch (``missed``) or could not test (``none``); exit 1 where
    ``Verification.controls_verdict`` fails the content."""
    for result in verification.results.values():
        if result.control and result.control[0] in ("missed", "none"):
            control, detail = result.control
            click.echo(f"{result.file}:{result.line}: {control}: {result.id}: {detail}", err=True)
    verdict = verification.controls_verdict()
    if verdict:
        raise Failure(verdict)


@main.command()
@common_options
@verify_options
@strict_option
@lock_options
@click.option("--diff", is_flag=True, help="List notes added, changed and removed against content/deck.lock; write nothing.")
@guarded
def deck(content_dir, out_dir, lang, modules, quiet, python, timeout, no_cache, strict, update_lock, diff):
    """Build the Anki packages (one per language)."""
    from .render import anki
    from .render.base import RenderJob

    started = time.perf_counter()
    request = request_of(content_dir, out_dir, lang, modules, quiet, python, timeout, no_cache, strict)
    lock, base = pipeline.lock_paths(request, update_lock)
    course, verification = verified(request, pipeline.lock_preflight(lock, base))
    if diff:
        for code in request.languages:
            click.echo(anki.diff(RenderJob(course, verification, code, Path(out_dir)), lock, base).describe())
        return
    options = anki.AnkiOptions(lock=lock, stem=pipeline.deck_stem(course, modules), base=base)
    finish("deck", rendered("anki", request, course, verification, options), started, verification, quiet)


def workshop_options(command):
    @click.option("--workshop", "workshop_id", metavar="ID", help="Only this workshop (see: torchdeck workshops).")
    @click.option("--start", default="09:00", show_default=True, metavar="HH:MM",
                  help="The workshop's start: the clock of its agenda and speaker notes.")
    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        return command(*args, **kwargs)

    return wrapper


def chosen_workshop(content_dir, workshop_id, start, modules, required: bool = False):
    """``(workshop, start in minutes after midnight)`` asked for, checked before anything is verified or
    written; ``(None, start)`` without ``--workshop``."""
    from .workshops import parse_clock

    if required and not workshop_id:
        raise click.UsageError("name the workshop: --workshop ID (see: torchdeck workshops)")
    clock = parse_clock(start)
    if clock is None:
        raise click.BadParameter(f"'{start}' is not a time of day as HH:MM", param_hint="--start")
    if not workshop_id:
        return None, clock
    if modules:
        raise click.UsageError("--workshop picks its own lessons: leave out --module")
    course = load(content_dir)
    found = {w.id: w for w in course.workshops}
    if workshop_id not in found:
        raise click.BadParameter(f"no workshop named '{workshop_id}' (known: {', '.join(found) or 'none'})",
                                 param_hint="--workshop")
    return found[workshop_id], clock


def workshop_build_options(command):
    """The options of a command that builds a course's or a workshop's outputs."""
    return common_options(verify_options(strict_option(workshop_options(guarded(command)))))


def verified_workshop(request: BuildRequest, workshop_id, start, required=False, preflight=None):
    """``(workshop or None, start, course, verification)``: the workshop asked for is checked first, then the
    course is verified as every build verifies it. ``preflight(workshop)``: a preflight for that workshop."""
    workshop, clock = chosen_workshop(request.content, workshop_id, start, request.modules, required)
    course, verification = verified(request, preflight(workshop) if preflight else None)
    return workshop, clock, course, verification


@main.command()
@workshop_build_options
@click.option("--pdf", is_flag=True, help="Also write a PDF of each deck (needs LibreOffice).")
def slides(content_dir, out_dir, lang, modules, quiet, python, timeout, no_cache, strict, workshop_id, start, pdf):
    """Build the workshop PowerPoint presentations (with --workshop, one workshop's deck)."""
    from .render import slides as slides_output
    from .render.slides.pdf import soffice

    if pdf and soffice() is None:  # before anything is verified or written
        raise click.UsageError("--pdf needs LibreOffice (soffice), which is not installed "
                               "(Debian: apt-get install libreoffice-impress)")
    started = time.perf_counter()
    request = request_of(content_dir, out_dir, lang, modules, quiet, python, timeout, no_cache, strict)
    workshop, clock, course, verification = verified_workshop(
        request, workshop_id, start, preflight=lambda workshop: pipeline.titles_preflight(request, workshop))
    options = slides_output.SlidesOptions(per_module=bool(modules), workshop=workshop, start=clock, pdf=pdf)
    finish("slides", rendered("slides", request, course, verification, options), started, verification, quiet)


@main.command()
@workshop_build_options
def handout(content_dir, out_dir, lang, modules, quiet, python, timeout, no_cache, strict, workshop_id, start):
    """Build a workshop's take-aways: the handout PDF per language and its code as one script."""
    from .render import handout as handout_output

    started = time.perf_counter()
    check_source_date()
    request = request_of(content_dir, out_dir, lang, modules, quiet, python, timeout, no_cache, strict)
    workshop, clock, course, verification = verified_workshop(
        request, workshop_id, start, required=True, preflight=lambda _workshop: pipeline.emoji_preflight(content_dir))
    options = handout_output.HandoutOptions(workshop=workshop, start=clock)
    finish("handout", rendered("handout", request, course, verification, options), started, verification, quiet)


@main.command()
@common_options
@verify_options
@strict_option
@click.option("--tag", "tags", multiple=True, help="Only questions with this tag; repeatable.")
@click.option("--difficulty", type=click.IntRange(1, 3), help="Only questions of this difficulty.")
@click.option("--count", type=click.IntRange(1),
              help="How many questions, spread over the modules and difficulties (default: 20, a class's quiz; "
                   "fewer where fewer match).")
@click.option("--per-module", type=click.IntRange(1), help="This many questions from every module (not with --count).")
@click.option("--all", "everything", is_flag=True,
              help="Every question that can share the quiz (one question per fact): the whole bank, not 20.")
@click.option("--versions", default=3, show_default=True, type=click.IntRange(1, 26), help="Shuffled versions A, B, C, ...")
@click.option("--seed", default=0, show_default=True, type=int, help="Same seed, same PDFs.")
@click.option("--paper", type=click.Choice(["a4", "letter"]), default="a4", show_default=True)
@click.option("--title", help="Title printed on the sheets.")
@click.option("--name", help="Name the files quiz-NAME.<lang>.* (default: quiz-s<seed>.<lang>.*).")
@guarded
def quiz(content_dir, out_dir, lang, modules, quiet, python, timeout, no_cache, strict,
         tags, difficulty, count, per_module, everything, versions, seed, paper, title, name):
    """Build printable quiz sheets, answer keys, Moodle XML and GIFT, and QTI 1.2 and 2.1 packages: 20 questions
    unless --count, --per-module or --all says otherwise."""
    from .render import quiz as quiz_output

    if sum(map(bool, (count, per_module, everything))) > 1:
        raise click.UsageError("--count, --per-module and --all exclude each other: give one")
    check_source_date()  # before verifying: a bad SOURCE_DATE_EPOCH fails at once
    try:
        if name:
            quiz_output.check_name(name)
    except quiz_output.SelectionError as err:
        raise click.UsageError(str(err)) from None
    started = time.perf_counter()
    request = request_of(content_dir, out_dir, lang, modules, quiet, python, timeout, no_cache, strict)
    course, verification = verified(request, pipeline.emoji_preflight(content_dir))
    options = quiz_output.QuizOptions(tags=tags, difficulty=difficulty, count=count, per_module=per_module,
                                      everything=everything, versions=versions, seed=seed, paper=paper, title=title,
                                      name=name)
    try:
        paths = rendered("quiz", request, course, verification, options)
    except quiz_output.SelectionError as err:
        raise click.UsageError(str(err)) from None
    finish("quiz", paths, started, verification, quiet)


@main.command()
@common_options
@verify_options
@strict_option
@lock_options
@guarded
def build(content_dir, out_dir, lang, modules, quiet, python, timeout, no_cache, strict, update_lock):
    """Verify once, then build every output (deck, slides, quizzes, web course) with its defaults."""
    from .render import in_build, options

    started = time.perf_counter()
    check_source_date()
    request = request_of(content_dir, out_dir, lang, modules, quiet, python, timeout, no_cache, strict)
    lock, base = pipeline.lock_paths(request, update_lock)
    course, verification = verified(request, pipeline.lock_preflight(lock, base), pipeline.emoji_preflight(content_dir),
                                    pipeline.titles_preflight(request))
    chosen = {"anki": options("anki", lock=lock, base=base, stem=pipeline.deck_stem(course, modules)),
              "slides": options("slides", per_module=bool(modules)),
              "quiz": options("quiz"),
              "site": options("site", languages=request.languages, deck_stem=pipeline.deck_stem(course, modules))}
    paths = []
    for name in in_build():
        if name == "quiz" and not course.questions:  # a selection without questions gets no quiz
            continue
        paths += rendered(name, request, course, verification, chosen[name])
    finish("build", paths, started, verification, quiet)


@main.command()
@common_options
@verify_options
@strict_option
@guarded
def site(content_dir, out_dir, lang, modules, quiet, python, timeout, no_cache, strict):
    """Build the web course: <out>/site/index.html, a page per module and language, opened from the disk."""
    from .render import site as site_output

    started = time.perf_counter()
    check_source_date()
    request = request_of(content_dir, out_dir, lang, modules, quiet, python, timeout, no_cache, strict)
    course, verification = verified(request)
    options = site_output.SiteOptions(languages=request.languages, deck_stem=pipeline.deck_stem(course, modules))
    finish("site", rendered("site", request, course, verification, options), started, verification, quiet)


@main.command("workshops")
@click.option("--content", "content_dir", default=_shipped_content, show_default="the course torchdeck ships",
              type=click.Path(file_okay=False), help="Folder of module YAML files and workshops.yaml.")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
def workshops_command(content_dir, as_json):
    """The workshops a presenter can run: id, title, minutes and lessons."""
    from .workshops import lessons_of, total_minutes

    course = load(content_dir)
    listed = [{"id": w.id, "title": {"en": w.title.get("en"), "zh": w.title.get("zh")},
               "minutes": total_minutes(w, course), "lessons": [lesson.id for lesson in lessons_of(w, course)]}
              for w in course.workshops]
    if as_json:
        click.echo(json.dumps(listed, indent=2, ensure_ascii=False))
        return
    for item in listed:
        click.echo(f"{item['id']:18} {item['minutes']:4} min  {item['title']['en']} / {item['title']['zh']}")
        click.echo(f"{'':18} {len(item['lessons']):4} lessons: {', '.join(item['lessons'])}")
    click.echo(f"workshops: {len(listed)} in {content_dir}; build one with: torchdeck slides --workshop ID")


@main.group("ledger")
def ledger_group():
    """Results recorded on other torches and machines (<content>/ledger/)."""


@ledger_group.command("export")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--content", "content_dir", default=_shipped_content, show_default="the course torchdeck ships",
              type=click.Path(file_okay=False))
@click.option("--timeout", default=10.0, show_default=True, type=Seconds(),
              help="Seconds a single check may run there.")
@click.option("--controls", is_flag=True,
              help="Also run each check in its rivals' worlds there (as verify --controls); the import keeps "
                   "the checks' results, the run's output shows each rival's verdict.")
@guarded
def ledger_export(path, content_dir, timeout, controls):
    """Write every check, with the worker, as one zip that any python with torch runs (stdlib and torch only)."""
    from .atomic import atomic_write_bytes
    from .ledger import export_archive

    course = load(content_dir)
    atomic_write_bytes(path, export_archive(course, timeout, controls))
    click.echo(f"ledger export: {len(course.facts)} checks in {path}; run it with any python that has torch:\n"
               f"  python3 {Path(path).name} > results.jsonl\n"
               f"then: torchdeck ledger import results.jsonl")


@ledger_group.command("import")
@click.argument("paths", nargs=-1, required=True, type=click.Path(dir_okay=False, exists=True))
@click.option("--content", "content_dir", default=_shipped_content, show_default="the course torchdeck ships",
              type=click.Path(file_okay=False))
@click.option("--date", help="When the checks ran (YYYY-MM-DD; default: the results file's modification date).")
@guarded
def ledger_import(paths, content_dir, date):
    """Record the results an exported check file printed."""
    import datetime

    from . import ledger

    if date is not None and ledger.parse_date(date) is None:
        raise click.BadParameter(f"{date!r} is not a day as YYYY-MM-DD", param_hint="--date")
    course = load(content_dir)
    for path in paths:
        when = date or datetime.date.fromtimestamp(Path(path).stat().st_mtime).isoformat()
        with open(path, encoding="utf-8") as lines:
            imported = ledger.import_results(lines, course, when, where=path)
        written = ledger.write_run(content_dir, imported.run)
        counts = ", ".join(f"{n} {s}" for s, n in sorted(imported.run.counts().items()))
        stale = f"; {imported.stale} stale result(s) ignored (their checks changed)" if imported.stale else ""
        click.echo(f"ledger import: {imported.run.label}: {counts}{stale} -> {written}")


@ledger_group.command("show")
@click.option("--content", "content_dir", default=_shipped_content, show_default="the course torchdeck ships",
              type=click.Path(file_okay=False))
@guarded
def ledger_show(content_dir):
    """Every recorded run, with its counts and how many entries are stale."""
    from . import ledger

    course = load(content_dir)
    folder = ledger.folder_of(content_dir)
    paths = sorted(folder.glob("*.json")) if folder.is_dir() else []
    for path in paths:
        run, stale = ledger.read_run(path).current(course)
        counts = ", ".join(f"{n} {s}" for s, n in sorted(run.counts().items()))
        missing = len(course.facts) - len(run.facts)
        click.echo(f"{run.label:45} {run.date}  {counts}; {missing} not run there ({stale} stale)")
    click.echo(f"ledger: {len(paths)} run(s) in {folder}")


@main.command("samples")
@common_options
@click.option("--python", "python", metavar="PATH", help="Run them with the torch of another interpreter.")
@click.option("--timeout", default=20.0, show_default=True, type=Seconds(),
              help="Seconds a single sample may run.")
@guarded
def samples_command(content_dir, out_dir, lang, modules, quiet, python, timeout):
    """Run every Python code sample the outputs show; exit 1 when one does not run as marked."""
    from . import samples
    from .verify import VerifyError

    started = time.perf_counter()
    course = load(content_dir, modules)
    found = samples.samples(course)
    try:
        results = samples.run(found, python, timeout)
    except VerifyError as err:
        raise Failure(str(err)) from None
    counts: dict[str, int] = {}
    for sample, (status, detail) in zip(found, results):
        counts[status] = counts.get(status, 0) + 1
        if status in ("fail", "error"):
            where = course.where(sample.item, sample.section)
            click.echo(f"{where}: {status}: {sample.item} (sample {sample.number}): {detail}", err=True)
    summary = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
    click.echo(f"samples: {len(found)} code samples: {summary} in {time.perf_counter() - started:.1f}s")
    bad = counts.get("fail", 0) + counts.get("error", 0)
    if bad:
        raise Failure(f"{bad} code sample(s) do not run as shown; fix them, or mark them "
                      "runs: raises, runs: fragment or runs: gpu")


@main.command("lint")
@common_options
def lint_command(content_dir, out_dir, lang, modules, quiet):
    """Check the content beyond the schema (translations, speaker notes); exit 1 on findings."""
    from .lint import lint

    course = load(content_dir, modules)
    findings = lint(course)
    if not quiet:
        for finding in findings:
            click.echo(str(finding))
    click.echo(f"lint: {len(course.modules)} modules, {len(findings)} finding(s)")
    if findings:
        raise Failure(f"{len(findings)} lint finding(s)")


@main.command("coverage")
@common_options
@click.option("--python", "python", metavar="PATH", help="Scan the torch of another interpreter.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="Write the coverage as JSON.")
@click.option("--fail-under", type=click.FloatRange(0, 100), help="Exit 1 when coverage is below this percent.",
              callback=lambda ctx, param, value: _a_number(value, param))
def coverage_command(content_dir, out_dir, lang, modules, quiet, python, json_path, fail_under):
    """Public torch.backends names that no fact's check mentions."""
    from .api_coverage import measure, scan_api
    from .atomic import atomic_write_text

    course = load(content_dir, modules)
    try:
        result = measure(course, scan_api(python))
    except VerifyError as err:
        raise Failure(str(err)) from None
    if json_path:
        atomic_write_text(json_path, json.dumps(result.as_json(), indent=2) + "\n")
    if not quiet:
        for name in result.uncovered:
            click.echo(f"uncovered  {name}")
        for name, reason in result.excluded.items():
            click.echo(f"excluded   {name}: {reason}")
    click.echo(f"coverage: {len(result.covered)}/{len(result.names) - len(result.excluded)} public names "
               f"covered ({result.percent:.1f}%), {len(result.excluded)} excluded, torch {result.torch}")
    if fail_under is not None and result.percent < fail_under:
        raise Failure(f"coverage {result.percent:.1f}% is under {fail_under:g}%")


@main.command("stats")
@common_options
@verify_options
@guarded
def stats_command(content_dir, out_dir, lang, modules, quiet, python, timeout, no_cache):
    """Counts per module: facts by status, cards by kind, questions, lessons, missing translations."""
    from .report import stats_table

    request = request_of(content_dir, out_dir, lang, modules, quiet, python, timeout, no_cache)
    course, verification = pipeline.load_and_verify(request, progress=progress_bar(request))
    click.echo(stats_table(course, verification))


if __name__ == "__main__":
    main()
