"""Shared fixtures: the shipped content, loaded and verified once per test session."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from generator import ledger
from generator.loader import load_course
from generator.render import slides
from generator.render.base import RenderJob
from generator.render.slides.pdf import soffice
from generator.verify import verify
from generator.workshops import file_stem
from helpers import CONTENT, DRAWN_WORKSHOPS, once_per_run, verification_of

RECORDED = "2.13.0+cpu"  # the ledger run plumbing tests render from


@pytest.fixture(scope="session")
def course():
    return load_course(CONTENT)


@pytest.fixture(scope="session")
def shipped_verify_cache(course, tmp_path_factory):
    """A verify cache (``build/.cache``) of the shipped content: every check run against the installed torch,
    controls included, once in this test run (``once_per_run``). A test that builds the shipped content
    through the CLI copies it into its ``--out`` (``with_shipped_cache``): only the checks it changed run."""
    return once_per_run(tmp_path_factory, "verify-cache",
                        lambda folder: verify(course, cache_dir=folder, controls=True))


@pytest.fixture(scope="session")
def live_verification(course, shipped_verify_cache, tmp_path_factory):
    """The shipped content verified against the installed torch, controls included: for the tests of
    the content's truth (test_content), which also hold the ledger current. Every result is this run's
    (``shipped_verify_cache``, read from a copy)."""
    cache = tmp_path_factory.mktemp("verify-cache")
    shutil.copytree(shipped_verify_cache, cache, dirs_exist_ok=True)
    return verify(course, cache_dir=cache, controls=True)


@pytest.fixture(scope="session")
def with_shipped_cache(shipped_verify_cache):
    """``with_shipped_cache(out)``: ``out`` (a build's ``--out``) holding the shipped content's verify cache."""

    def copy(out: Path) -> Path:
        shutil.copytree(shipped_verify_cache, Path(out) / ".cache", dirs_exist_ok=True)
        return out

    return copy


@pytest.fixture(scope="session")
def verification(course):
    """What the renderers read, taken from the ledger's recorded 2.13.0+cpu run instead of a live run of
    690 checks: plumbing tests need results, not torch (and, like a live run, no other runs: tests
    that read the ledger add it). test_content proves the recorded run current."""
    runs = ledger.load(CONTENT, course)
    return verification_of(next(run for run in runs if run.torch == RECORDED), course)


@pytest.fixture(scope="session")
def torch_api(tmp_path_factory):
    """The installed torch.backends' public names (``coverage.scan_api``), scanned once per test run
    (``once_per_run``: test_content and test_verify read them)."""
    from generator.api_coverage import scan_api

    def scan(folder: Path) -> None:
        (folder / "api.json").write_text(json.dumps(scan_api()), encoding="utf-8")

    return json.loads((once_per_run(tmp_path_factory, "torch-api", scan) / "api.json").read_text(encoding="utf-8"))


@pytest.fixture
def job_for(course, verification, tmp_path):
    """``job_for(lang)``: a RenderJob writing into this test's temp folder."""

    def make(lang: str = "en", out_dir: Path | None = None) -> RenderJob:
        return RenderJob(course, verification, lang, out_dir or tmp_path)

    return make



@pytest.fixture(scope="session")
def drawn_workshop_decks(course, verification, tmp_path_factory):
    """``{(workshop id, lang): (.pptx, .pdf)}``: the decks of ``DRAWN_WORKSHOPS`` in both languages as
    ``torchdeck slides --workshop ID --pdf`` writes them (LibreOffice draws each PDF), once per test run
    (``once_per_run``): test_diagrams reads them, and test_workshops reads these drawings instead of having
    LibreOffice draw the same decks again. Read only."""
    if soffice() is None:
        pytest.skip("LibreOffice (soffice) is not installed")
    keys = [(workshop_id, lang) for workshop_id in DRAWN_WORKSHOPS for lang in ("en", "zh")]

    def make(folder: Path) -> None:
        for workshop_id, lang in keys:
            slides.render(RenderJob(course, verification, lang, folder),
                          slides.SlidesOptions(workshop=course.workshop(workshop_id), pdf=True))

    folder = once_per_run(tmp_path_factory, "workshop-decks", make)
    return {(workshop_id, lang): tuple(RenderJob(course, verification, lang, folder).output(
        file_stem(course.workshop(workshop_id)), suffix) for suffix in (".pptx", ".pdf"))
        for workshop_id, lang in keys}
