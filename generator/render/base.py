"""What every renderer shares: the job it is given, and how it words verification status.

A renderer module exposes ``render(job: RenderJob, **options) -> list[Path]`` and
writes every file through ``generator.atomic``. Renderers know nothing of each other.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..model import Course
from ..text import Text
from ..verify import Verification

_CAPABILITY_NAMES = {
    "cuda": "CUDA", "cudnn": "cuDNN", "mps": "MPS", "mkl": "MKL", "mkldnn": "oneDNN", "openmp": "OpenMP",
    "opt_einsum": "opt_einsum", "cusparselt": "cuSPARSELt", "kleidiai": "KleidiAI", "nnpack": "NNPACK",
    "xnnpack": "XNNPACK", "torch-range": "another torch version",
}
_NEEDS_WORDS = {
    "en": ("not verified here (needs {})", "verified against torch {} on {}"),
    "zh": ("未在此环境验证（需要 {}）", "已于 {1} 对照 torch {0} 验证"),
}


@dataclass(frozen=True)
class RenderJob:
    """A verified course, the language to render, and the folder outputs go to."""

    course: Course
    verification: Verification
    lang: str
    out_dir: Path

    def t(self, text: Text | str | None) -> str:
        """``text`` in this job's language (English where no translation exists)."""
        if text is None:
            return ""
        return text if isinstance(text, str) else text.get(self.lang)

    def unverified_note(self, fact_ids) -> str:
        """'not verified here (needs cuda)' for items resting on skipped facts; '' when all passed."""
        needs = self.verification.unverified_needs(fact_ids)
        if not needs:
            return ""
        return _NEEDS_WORDS[self.lang][0].format(", ".join(_CAPABILITY_NAMES.get(n, n) for n in needs))

    def unverified_tags(self, fact_ids) -> list[str]:
        return [f"unverified::needs-{n}" for n in self.verification.unverified_needs(fact_ids)]

    def verified_line(self) -> str:
        """'verified against torch 2.13.0+cpu on 2026-11-23 (300 pass, 12 skip)'."""
        v = self.verification
        counts = v.counts()
        base = _NEEDS_WORDS[self.lang][1].format(v.torch, v.date)
        return f"{base} ({counts['pass']} pass, {counts['skip']} skip)"

    def output(self, stem: str, suffix: str) -> Path:
        """``build/<stem>.<lang><suffix>``."""
        return self.out_dir / f"{stem}.{self.lang}{suffix}"
