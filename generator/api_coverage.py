"""Which public names of the installed ``torch.backends`` no fact's check mentions."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from .model import Course, Fact
from .verify import VerifyError

SCANNER = Path(__file__).with_name("api_scan.py")
_DOTTED = re.compile(r"torch\.backends(?:\.[A-Za-z_]\w*)*")


@dataclass(frozen=True)
class Coverage:
    torch: str
    names: tuple[str, ...]
    covered: tuple[str, ...]
    excluded: dict[str, str]
    uncovered: tuple[str, ...]

    @property
    def percent(self) -> float:
        counted = len(self.names) - len(self.excluded)
        return 100.0 if counted <= 0 else 100.0 * len(self.covered) / counted

    def as_json(self) -> dict:
        return {"torch": self.torch, "percent": round(self.percent, 2), "total": len(self.names),
                "covered": list(self.covered), "excluded": self.excluded, "uncovered": list(self.uncovered)}


def scan_api(python: Optional[str] = None) -> dict:
    """``{"torch": version, "names": [...]}`` from the target interpreter."""
    interpreter = python or sys.executable
    done = subprocess.run([interpreter, str(SCANNER)], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise VerifyError(f"scanning torch.backends under {interpreter} failed:\n{done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout)


def mentions(fact: Fact) -> set[str]:
    """Dotted ``torch.backends`` names a fact's check touches: written out, or read through an alias
    (``oe = torch.backends.opt_einsum`` then ``oe.enabled``), as the controls read them."""
    from .worker import subjects

    read = {subject["path"] for subject in subjects(fact.check.as_dict())}
    return set(_DOTTED.findall(fact.check.target)) | {path for path in read if path.startswith("torch.backends")}


def measure(course: Course, api: dict) -> Coverage:
    mentioned = set().union(*(mentions(f) for f in course.facts)) if course.facts else set()
    excluded = {e.name: e.reason for m in course.modules for e in m.coverage_exclude}
    covered: list[str] = []
    uncovered: list[str] = []
    for name in api["names"]:
        if name in excluded:
            continue
        hit = any(m == name or m.startswith(name + ".") for m in mentioned)
        (covered if hit else uncovered).append(name)
    return Coverage(api["torch"], tuple(api["names"]), tuple(covered), excluded, tuple(uncovered))
