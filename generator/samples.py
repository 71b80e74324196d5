"""Code samples: which run as shown, how the others are marked, and running the ones that should run.

A sample runs as shown (``runs: yes``, the default) with nothing but ``import torch`` done
for it, or is shown to raise (``runs: raises``: what it raises is the point, so nothing
marks it): ``torchdeck samples`` and ``make test`` run every Python one through the
fact-check worker. An excerpt of a larger program (``runs: fragment``) and a sample that
needs a CUDA GPU (``runs: gpu``) are shown with a first comment line saying so, in every
output. A sample of an item about other releases only (every fact it cites has a ``torch:``
range, none admitting this torch) is not run here.
"""
from __future__ import annotations

from dataclasses import dataclass

from .wording import words

COMMENT_MARK = {"python": "# ", "bash": "# ", "sh": "# ", "shell": "# ", "console": "# ", "yaml": "# ", "toml": "# ",
            "c": "// ", "cpp": "// ", "c++": "// ", "cuda": "// "}


def as_shown(code: str, language: str, runs: str, lang: str) -> str:
    """``code`` as the outputs show it: with a comment line saying it is an excerpt or needs a GPU."""
    if runs not in ("fragment", "gpu") or not code:
        return code
    comment = COMMENT_MARK.get(language.lower(), "# ")
    return f"{comment}{words(lang)['sample'][runs]}\n{code}"


@dataclass(frozen=True)
class Sample:
    item: str  # the lesson, card or question showing it
    section: str  # lessons, cards or questions (for its origin)
    number: int  # 1-based among the item's samples
    code: str
    runs: str
    releases: tuple = ()  # the torch ranges of the facts its item cites (None: every release)


def samples(course) -> list[Sample]:
    """Every Python code sample of the course's lessons, cards and questions, in course order."""
    found = []

    def releases(item):
        return tuple(course.fact(f).torch for f in item.facts if f in course.defined_ids("facts"))

    for module in course.modules:
        for section, index, number, holder in module.code_samples():
            if holder.language == "python":
                item = getattr(module, section)[index]
                # either language's version: the loader proved them the same program
                found.append(Sample(item.id, section, number, holder.code_in("en"), holder.runs, releases(item)))
    return found


def _about_other_releases(sample: Sample, version: str) -> bool:
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    if not sample.releases or not all(sample.releases):
        return False
    release = Version(Version(version).public.split("+")[0])
    return not any(release in SpecifierSet(spec) for spec in sample.releases)


def run(found: list[Sample], python: str | None = None, timeout: float = 20.0) -> list[tuple[str, str]]:
    """``(status, detail)`` for each sample, in order: ``pass`` (it ran, or raised as ``runs: raises``
    says), ``fail``, ``error``, ``skip`` (a GPU sample without CUDA, another release's sample) or
    ``fragment``. The fact-check worker runs them as snippets: isolated and time-limited."""
    import sys

    from .verify import WorkerClient, probe

    interpreter = python or sys.executable
    version = probe(interpreter)["torch"]
    to_run = [s for s in found if s.runs != "fragment" and not _about_other_releases(s, version)]
    items = [{"check": {"snippet": s.code}, "requires": ["cuda"] if s.runs == "gpu" else []} for s in to_run]
    results = dict(zip(map(id, to_run), WorkerClient(interpreter).run_items(items, timeout) if items else []))
    out = []
    for sample in found:
        if sample.runs == "fragment":
            out.append(("fragment", ""))
        elif id(sample) not in results:
            out.append(("skip", f"about other releases than torch {version}"))
        else:
            out.append(_expected(sample, *results[id(sample)]))
    return out


def _expected(sample: Sample, status: str, detail: str) -> tuple[str, str]:
    """A ``runs: raises`` sample passes when it raised, and fails when it ran through."""
    if sample.runs != "raises" or status not in ("pass", "fail"):
        return status, detail
    if status == "fail" and detail.startswith("the snippet raised"):
        return "pass", detail
    return "fail", "expected the sample to raise, but it ran through"
