"""Shared fixtures: the shipped content, loaded and verified once per test session."""
from __future__ import annotations

from pathlib import Path

import pytest

from generator.loader import load_course
from generator.render.base import RenderJob
from generator.verify import verify

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "content"


@pytest.fixture(scope="session")
def course():
    return load_course(CONTENT)


@pytest.fixture(scope="session")
def verification(course, tmp_path_factory):
    return verify(course, cache_dir=tmp_path_factory.mktemp("verify-cache"), controls=True)


@pytest.fixture(scope="session")
def torch_api():
    """The installed torch.backends' public names (``coverage.scan_api``), scanned once per session."""
    from generator.coverage import scan_api

    return scan_api()


@pytest.fixture
def job_for(course, verification, tmp_path):
    """``job_for(lang)``: a RenderJob writing into this test's temp folder."""

    def make(lang: str = "en", out_dir: Path | None = None) -> RenderJob:
        return RenderJob(course, verification, lang, out_dir or tmp_path)

    return make
