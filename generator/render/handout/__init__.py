"""A workshop's take-aways: a handout PDF per language and the workshop's code as one script.

The handout (``templates/handout.typ``, typeset by Typst as the quizzes are) holds the agenda with
the clock times the slides print, each lesson's key points (explanations set apart), its takeaway,
code and the diagrams it is the first to need (``cheat``: drawn in the handout's language, printed
no smaller than ``MIN_LABEL_PT``), the questions the slides ask as a self-test with the answers on a
later page (``selftest``), a cheat table of the flags the lessons teach (flag, the default a check
that passed here asserts, when to change it) and the links the lessons cite. Verification shows as
one mark (``cheat.MARK``) and one note under the title, never as lines under the headings.

The script holds every code sample of the workshop in the order the slides show them, one ``# %%``
cell each, so that a presenter runs them live (run as a whole, each cell runs in a fresh Python): a
sample shown to raise catches and prints its error, one that needs a CUDA GPU runs only where there
is one, an excerpt of a larger program is kept as comments.
"""
from __future__ import annotations

import dataclasses
import textwrap
from dataclasses import dataclass
from pathlib import Path

from ... import resources
from ...atomic import atomic_write_bytes, atomic_write_text
from ...fonts import EMOJI
from ...model import Course, Workshop
from ...wording import words as all_words
from ...workshops import REFERENCE, agenda_lines, clock, course_for, file_stem, lessons_of, schedule
from ..base import RenderJob
from ..dates import edition_date
from ..typesetting import (
    CJK_FONT,
    EMOJI_FONT,
    FONT_FOLDERS,
    LATIN_FONT,
    MONO_FONT,
    code_lines,
    emoji_folders,
    legend,
    rich,
    typeset,
)
from .cheat import MARK, cheat_rows, diagrams_of, marked_note
from .selftest import answers, questions_asked

TEMPLATE = resources.templates() / "handout.typ"


@dataclass(frozen=True)
class HandoutOptions:
    workshop: Workshop
    start: int  # minutes after midnight: the clock of the agenda


def render(job: RenderJob, options: HandoutOptions) -> list[Path]:
    """Write ``build/workshop-<id>.<lang>.handout.pdf`` and the workshop's script, ``build/workshop-<id>.py``
    (the same for every language)."""
    script_path = write_script(job.course, options.workshop, job.out_dir)
    job = dataclasses.replace(job, course=course_for(options.workshop, job.course))
    path = job.output(file_stem(options.workshop), ".handout.pdf")
    atomic_write_bytes(path, typeset(handout_data(job, options), TEMPLATE))
    return [path, script_path]


def handout_data(job: RenderJob, options: HandoutOptions) -> dict:
    workshop, course = options.workshop, job.course
    phrases = all_words(job.lang)["workshop"]
    segments = schedule(workshop, course)
    starts = {s.ref: s.start for s in segments if s.kind == "lesson"}
    end = segments[-1].end
    lessons = lessons_of(workshop, course)
    title = job.t(workshop.title)
    when = phrases["title_line"].format(start=clock(options.start, 0), end=clock(options.start, end), minutes=end,
                                        lessons=len(lessons), questions=sum(s.kind == "question" for s in segments))
    date = edition_date(job.verification)  # as a quiz's: never the day the checks ran, so any day gives the same bytes
    asked = questions_asked(workshop, course)
    rows = cheat_rows(job, lessons)
    data = {
        "lang": job.lang, "date": [date.year, date.month, date.day] if date else None, "title": title, "when": when,
        "summary": job.t(workshop.summary), "words": phrases["handout"], "label": all_words(job.lang)["label"],
        "mark": MARK,
        "note": marked_note(job, [*lessons, *asked], rows),
        "footer": job.verified_as_of_edition(),
        "agenda": [list(row) for row in agenda_lines(segments, workshop, course, job.lang, options.start)],
        "lessons": [{"title": job.t(lesson.title), "clock": clock(options.start, starts[lesson.id]),
                     "scope": job.scope(lesson.facts), "marked": bool(job.unverified_note(lesson.facts)),
                     "points": [rich(job.t(point)) for point in lesson.points],
                     "takeaway": rich(job.t(lesson.takeaway)) if lesson.takeaway else [],
                     "code": [{"caption": rich(job.t(example.caption)) if example.caption else [],
                               "lines": code_lines(job.code(example), example.language)} for example in lesson.code],
                     "diagrams": diagrams}
                    for lesson, diagrams in zip(lessons, diagrams_of(job, lessons))],
        "questions": [question for question, _ in answers(job, asked)],
        "answers": [answer for _, answer in answers(job, asked)],
        "cheat": [row.data for row in rows],
        "links": links(job, lessons, phrases["handout"]["docs"]),
    }
    data["explained"] = legend(job.lang, data)  # what ℹ means, where it shows
    fonts = [LATIN_FONT, CJK_FONT] if job.lang == "zh" else [LATIN_FONT]
    folders = emoji_folders(_strings(data))
    if any(EMOJI.search(text) for text in _printed(data)):
        fonts.append(EMOJI_FONT)
    return {**data, "fonts": fonts, "mono_fonts": [MONO_FONT, *fonts[1:]],
            **({FONT_FOLDERS: list(folders)} if folders else {})}


def links(job: RenderJob, lessons, docs_label: str) -> list[dict]:
    """The reference, then each address a lesson quotes or a fact it cites names, once, in lesson order."""
    found = [{"text": docs_label, "url": REFERENCE}]
    seen = {REFERENCE}
    for lesson in lessons:
        addresses = ([lesson.quote.source] if lesson.quote else []) + \
            [job.course.fact(f).source for f in lesson.facts if job.course.fact(f).source]
        for address in addresses:
            if address not in seen and address.startswith(("http://", "https://")):
                seen.add(address)
                found.append({"text": job.t(lesson.title), "url": address})
    return found


def _strings(value) -> list[str]:
    """Every text of a document's data, wherever it is printed."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, (list, tuple)):
        return [s for item in value for s in _strings(item)]
    return []


def _printed(data: dict) -> list[str]:
    """The texts of the handout an emoji may be in (a lesson title's 🎮)."""
    return [data["title"], *(lesson["title"] for lesson in data["lessons"]),
            *(part["t"] for lesson in data["lessons"] for point in lesson["points"] for part in point),
            *(part["t"] for question in data["questions"] for part in question["stem"])]


# ------------------------------------------------------------------ the script
def write_script(course: Course, workshop: Workshop, out_dir: Path) -> Path:
    """Write ``build/workshop-<id>.py``: the workshop's code samples in order, one cell each."""
    path = Path(out_dir) / f"{file_stem(workshop)}.py"
    atomic_write_text(path, script(course, workshop))
    return path


# Run as a script, the file runs each cell in a fresh Python: torch's flags are process-wide, and every
# sample is shown as it runs with nothing but ``import torch`` done before it. In an editor or a notebook
# (no ``__file__``), the cells run one by one, live.
RUNNER = """\
if __name__ == "__main__" and "__file__" in globals():
    import subprocess
    import sys

    source = open(__file__, encoding="utf-8").read()
    for cell in source.split("\\n# %%")[1:]:
        head, _, body = cell.partition("\\n")
        print("# %%" + head, flush=True)
        subprocess.run([sys.executable, "-c", "import torch\\n" + body], check=True)
    raise SystemExit(0)
"""


def script(course: Course, workshop: Workshop) -> str:
    phrases = all_words("en")["workshop"]
    out = [f"# {workshop.title.en}", f"# {phrases['script_head']}", RUNNER, "import torch", ""]
    cell = 0
    for lesson in lessons_of(workshop, course):
        for example in lesson.code:
            cell += 1
            out += [f"# %% [{cell}] {lesson.title.en}" + (f": {example.caption.en}" if example.caption else "")]
            out += _runnable(example.code_in("en"), example.language, example.runs, phrases) + [""]
    return "\n".join(out)


def _runnable(code: str, language: str, runs: str, phrases: dict) -> list[str]:
    """A sample as a cell that runs whatever this machine has: see the module's docstring."""
    body = code.rstrip("\n")
    if language != "python" or runs == "fragment":
        note = all_words("en")["sample"]["fragment"] if runs == "fragment" else language
        return [f"# ({note})"] + [f"# {line}" if line else "#" for line in body.split("\n")]
    if runs == "raises":
        return ["try:", textwrap.indent(body, "    "), "except Exception as err:  # " + phrases["script_raises"],
                "    print(f\"{type(err).__name__}: {err}\")"]
    if runs == "gpu":
        return ["if torch.cuda.is_available():", textwrap.indent(body, "    "), "else:",
                f"    print({phrases['script_gpu']!r})"]
    return [body]
