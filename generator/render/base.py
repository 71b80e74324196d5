"""What every renderer shares: the job it is given, and how it words verification status.

An output (``Output``) exposes an options type and ``render(job: RenderJob, options) -> list[Path]``,
and writes every file through ``generator.atomic``. Outputs know nothing of each other.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

from .. import ledger
from ..model import Course
from ..text import Text
from ..verify import Verification, verified_in
from ..wording import CAPABILITY_NAMES, words
from .scope import release_union

_LANG_INDEX = {"en": 0, "zh": 1}


class Output(Protocol):
    """What every output (``render/<name>/``, listed in ``render.OUTPUTS``) provides."""

    def render(self, job: RenderJob, options: Any) -> list[Path]:
        """Write the output's files for ``job`` (one language); the paths written."""
        ...
_BUILD_CAPABILITIES = ("cuda-built", "rocm-built", "cudnn-built", "mps-built")


def takes_many_answers(item) -> bool:
    """Whether a learner may pick several options: every ``multi`` question (even one with a single
    right option, so the format gives nothing away), and a scenario or an MCQ card with more than
    one right option. A scenario with one right option asks "which setting?" and reads as a single."""
    if getattr(item, "kind", "") == "multi":
        return True
    return item.kind in ("scenario", "mcq") and sum(o.correct for o in item.options) > 1


@dataclass(frozen=True)
class RenderJob:
    """A verified course, the language to render, and the folder outputs go to."""

    course: Course
    verification: Verification
    lang: str
    out_dir: Path

    def multi_hint(self, item) -> str:
        """'(select all that apply)' for an item that takes several answers; '' otherwise."""
        return words(self.lang)["multi_hint"] if takes_many_answers(item) else ""

    def code(self, owner) -> str:
        """The code of a lesson's example, a code card or a question as shown: its comments in this job's
        language (``ShowsCode.code_in``), with a first comment line where it is an excerpt or needs a GPU
        (``samples.as_shown``)."""
        from ..samples import as_shown

        return as_shown(owner.code_in(self.lang), owner.language, owner.runs, self.lang)

    def t(self, text: Text | str | None) -> str:
        """``text`` in this job's language (English where no translation exists)."""
        if text is None:
            return ""
        return text if isinstance(text, str) else text.get(self.lang)

    def unverified_note(self, fact_ids) -> str:
        """'not verified here (needs CUDA)' for items resting on skipped facts; '' when all passed."""
        needs = self.verification.unverified_needs(fact_ids)
        if not needs:
            return ""
        phrases, (comma, _) = words(self.lang)["needs"], words(self.lang)["separators"]
        missing = [self.capability_name(n) for n in needs if not n.startswith("without:")]
        about = [self.capability_name(n) for n in needs if n.startswith("without:")]
        reasons = ([phrases[2].format(comma.join(missing))] if missing else []) + \
                  ([phrases[3].format(comma.join(about))] if about else [])
        return phrases[0].format(phrases[4].join(reasons))

    def item_mark(self, fact_ids) -> str:
        """What is shown beside an item: the releases and builds it is about, and '⚠ not verified here (...)'
        where a fact behind it could not be checked here; '' for an item about every torch, verified here."""
        note = self.unverified_note(fact_ids)
        return " · ".join(part for part in (self.scope(fact_ids), f"⚠ {note}" if note else "") if part)

    def capability_name(self, need: str) -> str:
        """``CUDA`` for ``cuda``, ``builds without CUDA`` for ``without:cuda-built``."""
        if need.startswith("without:"):
            base = need.removeprefix("without:").removesuffix("-built")
            return words(self.lang)["without"].format(self.capability_name(base))
        if need in CAPABILITY_NAMES:
            return CAPABILITY_NAMES[need][_LANG_INDEX[self.lang]]
        return words(self.lang)["other_needs"].get(need, need)

    def scope(self, fact_ids) -> str:
        """Which releases and builds the facts behind an item are about: 'since torch 2.15 · a CUDA build';
        '' for an item about every release and build."""
        facts = [self.course.fact(fact_id) for fact_id in fact_ids]
        if not facts:
            return ""
        releases = release_union([fact.torch for fact in facts], self.lang)
        builds = [{self.capability_name(c) for c in fact.requires if c in _BUILD_CAPABILITIES}
                  | {self.capability_name("without:" + c) for c in fact.unless if c in _BUILD_CAPABILITIES}
                  for fact in facts]
        shared = sorted(set.intersection(*builds))  # an item comparing builds is about every build
        return " · ".join(([releases] if releases else []) + shared)

    def verified_where(self, fact_ids) -> str:
        """Where every fact behind an item passed: here and in the ledger's runs; '' where none did.

        'verified on torch 2.13.0+cpu (here), 2.15.0+cu132, 2.11.0+cu130 on NVIDIA H100'.
        """
        (lead, here_mark), (comma, _) = words(self.lang)["where"], words(self.lang)["separators"]
        fact_ids = tuple(fact_ids)
        results = [self.verification.results.get(f) for f in fact_ids]
        places = []
        if verified_in((r.status, r.needs) if r else ("missing", ()) for r in results):
            places.append(self._here_label + here_mark)
        places += [self._run_label(run.torch, run.build) for run in self.verification.elsewhere
                   if run.verifies(fact_ids)]
        return lead.format(comma.join(places)) if places else ""

    @cached_property
    def _here_label(self) -> str:
        return self._run_label(self.verification.torch, self.verification.build)

    def _run_label(self, torch: str, build: dict) -> str:
        """A run as this language names it ('2.11.0+cu130 on NVIDIA H200', '2.11.0+cu130（NVIDIA H200）')."""
        return ledger.label(torch, build, words(self.lang)["on_device"])

    def unverified_tags(self, fact_ids) -> list[str]:
        return [f"unverified::needs-{n}" for n in self.verification.unverified_needs(fact_ids)]

    def verified_on(self) -> str:
        """'verified against torch 2.13.0+cpu on 2026-11-23': what a room may see (the slides' footer)."""
        return words(self.lang)["needs"][1].format(self.verification.torch, self.verification.date)

    def verified_as_of_edition(self) -> str:
        """'verified against torch 2.13.0+cpu on <the edition's date>' (``dates.edition_date``: never the day the
        checks ran, so any day gives the same bytes), or 'verified against torch 2.13.0+cpu' where it has none."""
        from .dates import edition_date

        date = edition_date(self.verification)
        phrases = words(self.lang)
        torch = self.verification.torch
        return phrases["needs"][1].format(torch, date.isoformat()) if date else phrases["verified_torch"].format(torch)

    def verified_line(self) -> str:
        """'verified against torch 2.13.0+cpu on 2026-11-23 (300 pass, 12 skip)', for a deck's description."""
        counts = self.verification.counts()
        counted = words(self.lang)["pass_skip"].format(passed=counts["pass"], skipped=counts["skip"])
        return f"{self.verified_on()} {counted}" if self.lang == "en" else f"{self.verified_on()}{counted}"

    def output(self, stem: str, suffix: str) -> Path:
        """``build/<stem>.<lang><suffix>``."""
        return self.out_dir / f"{stem}.{self.lang}{suffix}"
