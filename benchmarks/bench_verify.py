"""Verification speed, as ratios against `python -c "import torch"` measured in the same run.

Targets (issue 3): whole content, cold cache <= 1.5x import torch; warm cache,
nothing changed < 0.5 s; 2,000 synthetic facts, cold <= 2x import torch.
"""
from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
RUNS = 3


def wall(command: list[str]) -> float:
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        subprocess.run(command, cwd=ROOT, check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


class _PlainDumper(yaml.SafeDumper):
    """Writes shared values out again: content refuses YAML aliases."""

    def ignore_aliases(self, data):
        return True


def synthetic_content(folder: Path, count: int) -> Path:
    """``count`` facts spread over every check kind, a tenth of them mutating backend state."""
    kinds = [
        {"default": "torch.backends.cudnn.benchmark", "equals": False},
        {"exists": "torch.backends.cuda.matmul.allow_tf32"},
        {"type": "torch.backends.cudnn.is_available", "is": "callable"},
        {"signature": "torch.backends.cuda.preferred_linalg_library", "params": ["backend"]},
        {"absent": "torch.backends.mkl.is_enabled"},
        {"expr": "torch.backends.mkldnn.enabled is True"},
        {"raises": "torch.backends.cuda.preferred_linalg_library('x')", "error": "RuntimeError"},
        {"snippet": "with torch.backends.cudnn.flags(enabled=False):\n    assert not torch.backends.cudnn.enabled"},
        {"expr": "torch.ones(3).sum().item() == 3.0"},
        {"snippet": "torch.backends.cudnn.benchmark = True"},
    ]
    facts = []
    for index in range(count):
        check = dict(kinds[index % len(kinds)])
        if "expr" in check:  # distinct text, so every fact is its own cache entry
            check["expr"] = f"{check['expr']} and {index} >= 0"
        facts.append({"id": f"synthetic-{index}", "claim": f"claim {index}", "check": check})
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "synthetic.yaml").write_text(yaml.dump({"module": "torch.backends.synthetic", "facts": facts},
                                                     Dumper=_PlainDumper))
    return folder


def main() -> int:
    python = sys.executable
    torchdeck = [python, "-m", "generator", "verify", "--quiet"]
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        base = wall([python, "-c", "import torch"])
        cold = wall(torchdeck + ["--no-cache", "--out", str(scratch / "a")])
        subprocess.run(torchdeck + ["--out", str(scratch / "b")], cwd=ROOT, check=True, capture_output=True)
        warm = wall(torchdeck + ["--out", str(scratch / "b")])
        content = synthetic_content(scratch / "synthetic", 2000)
        synthetic = wall(torchdeck + ["--no-cache", "--content", str(content), "--out", str(scratch / "c")])
    results = [
        ("verify-cold", cold / base, 1.5, f"{cold:.2f}s vs import torch {base:.2f}s"),
        ("verify-warm", warm, 0.5, "seconds"),
        ("verify-2000-facts-cold", synthetic / base, 2.0, f"{synthetic:.2f}s vs import torch {base:.2f}s"),
    ]
    failed = 0
    for name, measured, target, note in results:
        ok = measured <= target
        failed += not ok
        print(f"{name}: {measured:.2f} (target {target}) {'PASS' if ok else 'FAIL'}  [{note}]")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
