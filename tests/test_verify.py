"""Fact verification: every check kind, isolation, faults, skips, reports, cache, coverage."""
from __future__ import annotations

import json
import sys
import textwrap

import pytest

# What this machine has, read in the test process: the worker reports the same (test_environment_is_reported),
# and a fact that requires CUDA runs (and passes) where CUDA is available, is skipped where it is not.
import torch
import yaml
from click.testing import CliRunner

from generator import verify as verify_module
from generator.cli import main
from generator.loader import load_course
from generator.verify import verify

HAS_CUDA = torch.cuda.is_available()

CASES = {
    # id: (check, expected status, extra fact keys)
    "exists-pass": ({"exists": "torch.backends.xeon.run_cpu"}, "pass", {}),
    "exists-fail": ({"exists": "torch.backends.mkl.is_enabled"}, "fail", {}),
    "absent-pass": ({"absent": "torch.backends.openmp.is_enabled"}, "pass", {}),
    "absent-fail": ({"absent": "torch.backends.cudnn.benchmark"}, "fail", {}),
    "absent-typo-parent": ({"absent": "torch.backends.mkll.is_enabled"}, "error", {}),
    "default-pass": ({"default": "torch.backends.cudnn.benchmark", "equals": False}, "pass", {}),
    "default-fail": ({"default": "torch.backends.cudnn.enabled", "equals": False}, "fail", {}),
    "default-strict-bool": ({"default": "torch.backends.cudnn.benchmark_limit", "equals": True}, "fail", {}),
    "default-nested": ({"default": "torch.backends.cuda.matmul.allow_tf32", "equals": False}, "pass", {}),
    "type-pass": ({"type": "torch.backends.cudnn.is_available", "is": "callable"}, "pass", {}),
    "type-fail": ({"type": "torch.backends.cudnn.benchmark_limit", "is": "bool"}, "fail", {}),
    "type-module": ({"type": "torch.backends.xnnpack", "is": "module"}, "pass", {}),
    "type-function": ({"type": "torch.backends.mkldnn.is_available", "is": "function"}, "pass", {}),  # a bound method
    # an op packet is callable but no function: what a claim "a function you call" rules out
    "type-not-function": ({"type": "torch.ops.aten.add", "is": "function"}, "fail", {}),
    "signature-pass": ({"signature": "torch.backends.cuda.preferred_linalg_library", "params": ["backend"]}, "pass", {}),
    "signature-fail": ({"signature": "torch.backends.cuda.preferred_linalg_library", "params": []}, "fail", {}),
    # an lru_cache wrapper only forwards (*args, **kwargs): the parameters are those of what it wraps
    "signature-forwarder": ({"signature": "torch.backends.mps.is_available", "params": []}, "pass", {}),
    # contextlib.contextmanager's wrapper only passes a call on: judged by the generator function it wraps
    "signature-contextmanager": ({"signature": "torch.backends.flags", "params": ["fp32_precision"]}, "pass", {}),
    # ... and so does typing_extensions.deprecated's, which warns first (sdp_kernel has both)
    "signature-deprecated": ({"signature": "torch.backends.cuda.sdp_kernel",
                              "params": ["enable_flash", "enable_math", "enable_mem_efficient", "enable_cudnn"]},
                             "pass", {}),
    "expr-pass": ({"expr": "torch.backends.cudnn.benchmark is False"}, "pass", {}),
    "expr-fail": ({"expr": "torch.backends.cudnn.benchmark"}, "fail", {}),
    "expr-raises": ({"expr": "1 / 0"}, "fail", {}),
    "snippet-pass": ({"snippet": "x = torch.ones(2)\nassert x.sum() == 2\nprint('noise on stdout')"}, "pass", {}),
    "snippet-fail": ({"snippet": "assert False, 'nope'"}, "fail", {}),
    "raises-pass": ({"raises": "torch.backends.cuda.preferred_linalg_library('nope')", "error": "RuntimeError"}, "pass", {}),
    "raises-base-class": ({"raises": "raise KeyError('x')", "error": "LookupError"}, "pass", {}),
    "raises-wrong": ({"raises": "raise KeyError('x')", "error": "TypeError"}, "fail", {}),
    "raises-nothing": ({"raises": "x = 1", "error": "ValueError"}, "fail", {}),
    "mutate": ({"snippet": "torch.backends.cudnn.benchmark = True\ntorch.set_num_threads(77)"}, "pass", {}),
    "after-mutate": ({"expr": "torch.backends.cudnn.benchmark is False and torch.get_num_threads() != 77"}, "pass", {}),
    # interop threads can be set once per process: not restorable, so a fresh child must take over
    "unrestorable": ({"snippet": "torch.set_num_interop_threads(3)"}, "pass", {}),
    "after-unrestorable": ({"expr": "torch.get_num_interop_threads() != 3"}, "pass", {}),
    "freezes": ({"snippet": "torch.backends.disable_global_flags()"}, "pass", {}),
    "after-freeze": ({"expr": "not torch.backends.flags_frozen()"}, "pass", {}),
    "precision": ({"snippet": "torch.backends.fp32_precision = 'tf32'"}, "pass", {}),
    "after-precision": ({"expr": "torch.backends.fp32_precision == 'none' and "
                                 "torch.get_float32_matmul_precision() == 'highest'"}, "pass", {}),
    "hangs": ({"snippet": "while True: pass"}, "error", {}),
    "aborts": ({"snippet": "import os; os.abort()"}, "error", {}),
    "exits": ({"snippet": "import os; os._exit(7)"}, "error", {}),
    "system-exit": ({"snippet": "raise SystemExit(3)"}, "error", {}),
    "needs-cuda": ({"expr": "torch.cuda.device_count() > 0"}, "pass" if HAS_CUDA else "skip", {"requires": ["cuda"]}),
    "old-torch-only": ({"absent": "torch.backends.cudnn.nothing"}, "skip", {"torch": "<2.0"}),
    "in-range": ({"exists": "torch.backends.cudnn"}, "pass", {"torch": ">=2.4"}),
}
# `default` reads a pristine interpreter even though "mutate" flips the flag first in file order
CASES["default-after-mutate"] = ({"default": "torch.backends.cudnn.benchmark", "equals": False}, "pass", {})


def write_content(folder, cases):
    facts = [{"id": fact_id, "claim": f"claim {fact_id}", "check": check, **extra}
             for fact_id, (check, _, extra) in cases.items()]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "t.yaml").write_text(yaml.safe_dump({"module": "torch.backends.t", "facts": facts}, sort_keys=False))
    return folder


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    folder = write_content(tmp_path_factory.mktemp("content"), CASES)
    course = load_course(folder)
    return course, verify(course, timeout=2, cache_dir=None)


@pytest.mark.parametrize("fact_id", list(CASES))
def test_each_check_kind(checked, fact_id):
    _, verification = checked
    result = verification.results[fact_id]
    assert result.status == CASES[fact_id][1], result
    assert result.file.endswith("t.yaml") and result.line > 0


def test_failures_show_expected_and_actual(checked):
    results = checked[1].results
    assert "expected torch.backends.cudnn.enabled == False, actual True" in results["default-fail"].detail
    assert "expected parameters [], actual ['backend']" in results["signature-fail"].detail
    assert "timed out after 2 s" in results["hangs"].detail
    assert "SIGABRT" in results["aborts"].detail
    assert "exit code 7" in results["exits"].detail
    if not HAS_CUDA:
        assert "needs cuda" in results["needs-cuda"].detail and results["needs-cuda"].needs == ("cuda",)
    assert "outside <2.0" in results["old-torch-only"].detail
    assert "a typo?" in results["absent-typo-parent"].detail


def test_environment_is_reported(checked):
    verification = checked[1]
    import torch

    assert verification.torch == torch.__version__
    assert verification.python == "%d.%d.%d" % sys.version_info[:3]
    assert set(verification.capabilities) >= {"cuda", "cudnn", "mps", "mkl", "mkldnn", "openmp", "opt_einsum",
                                              "cusparselt", "kleidiai", "nnpack", "xnnpack"}
    assert verification.capabilities["cuda"] is torch.cuda.is_available()


def test_unverified_needs_lists_missing_capabilities(checked):
    verification = checked[1]
    assert verification.unverified_needs(["exists-pass"]) == []
    assert verification.unverified_needs(["exists-pass", "needs-cuda"]) == ([] if HAS_CUDA else ["cuda"])


def test_cache_reruns_only_changed_facts(tmp_path, monkeypatch):
    cases = {k: CASES[k] for k in ("exists-pass", "default-pass", "expr-pass")}
    content = write_content(tmp_path / "content", cases)
    cache = tmp_path / "cache"
    ran = []
    real = verify_module.WorkerClient.run

    def spy(worker, facts, *args):
        ran.append(sorted(f.id for f in facts))
        return real(worker, facts, *args)

    monkeypatch.setattr(verify_module.WorkerClient, "run", spy)
    first = verify(load_course(content), cache_dir=cache)
    second = verify(load_course(content), cache_dir=cache)
    assert ran == [["default-pass", "exists-pass", "expr-pass"]]
    assert first.results == second.results and second.capabilities == first.capabilities
    changed = dict(cases, **{"expr-pass": ({"expr": "torch.backends.cudnn.enabled"}, "pass", {})})
    write_content(tmp_path / "content", changed)
    third = verify(load_course(content), cache_dir=cache)
    assert ran[-1] == ["expr-pass"] and third.counts()["pass"] == 3


def test_cache_is_keyed_by_the_environment_torch_reads(tmp_path, monkeypatch):
    """A result cached under other thread settings is never shown: OMP_NUM_THREADS changes torch's answers."""
    cases = {"threads": ({"expr": "torch.get_num_threads() == 1"}, None, {})}
    content = write_content(tmp_path / "content", cases)
    cache = tmp_path / "cache"
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert verify(load_course(content), cache_dir=cache).results["threads"].status == "pass"
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    assert verify(load_course(content), cache_dir=cache).results["threads"].status == "fail"


def test_a_corrupt_verify_cache_is_ignored_and_rebuilt(tmp_path, capsys):
    cases = {k: CASES[k] for k in ("exists-pass", "default-pass")}
    course = load_course(write_content(tmp_path / "content", cases))
    cache = tmp_path / "cache"
    verify(course, cache_dir=cache)
    (path,) = cache.glob("verify-*.json")
    data = json.loads(path.read_text())
    key = next(iter(data["facts"]))
    data["facts"][key] = None
    path.write_text(json.dumps(data))
    again = verify(course, cache_dir=cache)
    assert again.counts()["pass"] == 2
    assert "1 corrupt cache entries ignored" in capsys.readouterr().err
    path.write_text("[1, 2")
    assert verify(course, cache_dir=cache).counts()["pass"] == 2
    assert "corrupt verify cache ignored" in capsys.readouterr().err
    assert json.loads(path.read_text())["facts"]  # rebuilt


def test_a_corrupt_parse_cache_never_drops_a_module(tmp_path, capsys):
    import pickle

    content = write_content(tmp_path / "content", {k: CASES[k] for k in ("exists-pass", "default-pass")})
    cache = tmp_path / "cache"
    load_course(content, cache)
    entries = [*(cache / "parsed").glob("*.pickle"), *(cache / "validated").glob("*.pickle")]
    assert len(entries) == 2  # the file's parse and its validated module
    for garbage in (pickle.dumps(None), b"\x80\x05garbage"):
        for entry in entries:
            entry.write_bytes(garbage)
        assert len(load_course(content, cache).facts) == 2
        assert capsys.readouterr().err.count("corrupt cache entry ignored") == 2


def test_cli_verify_json_report_and_exit_code(tmp_path):
    content = write_content(tmp_path / "content", {k: CASES[k] for k in ("exists-pass", "default-fail", "needs-cuda")})
    json_path, report = tmp_path / "r.json", tmp_path / "r.md"
    result = CliRunner().invoke(main, ["verify", "--content", str(content), "--out", str(tmp_path / "b"),
                                       "--json", str(json_path), "--report", str(report), "--python", sys.executable])
    assert result.exit_code == 1, result.output
    assert "default-fail" in result.output and "t.yaml:" in result.output
    assert ("2 pass, 1 fail, 0 skip, 0 error" if HAS_CUDA else "1 pass, 1 fail, 1 skip, 0 error") in result.output
    data = json.loads(json_path.read_text())
    assert set(data) >= {"torch", "python", "capabilities", "facts"}
    assert [set(f) for f in data["facts"]] == [{"id", "status", "detail", "file", "line"}] * 3
    assert {f["id"]: f["status"] for f in data["facts"]} == {"exists-pass": "pass", "default-fail": "fail",
                                                              "needs-cuda": "pass" if HAS_CUDA else "skip"}
    assert "| fail | `default-fail` |" in report.read_text()


def test_a_python_without_torch_is_a_clear_error(tmp_path):
    content = write_content(tmp_path / "content", {"exists-pass": CASES["exists-pass"]})
    bare = tmp_path / "bare-python"  # this interpreter without site-packages: no torch
    bare.write_text(f'#!/bin/sh\nexec "{sys.executable}" -S "$@"\n')
    bare.chmod(0o755)
    result = CliRunner().invoke(main, ["verify", "--content", str(content), "--python", str(bare), "--no-cache"])
    assert result.exit_code == 1 and "has no torch installed" in result.output


def test_a_missing_interpreter_is_a_clear_error(tmp_path):
    content = write_content(tmp_path / "content", {"exists-pass": CASES["exists-pass"]})
    result = CliRunner().invoke(main, ["verify", "--content", str(content), "--python", str(tmp_path / "nope"),
                                       "--no-cache"])
    assert result.exit_code == 1 and "cannot run" in result.output and "Traceback" not in result.output


FAKE_TREE = {
    "fakeb/__init__.py": """
        import sys, types
        class PropModule(types.ModuleType):
            def __init__(self, m, name):
                super().__init__(name)
                self.m = m
            def __getattr__(self, attr):
                return self.m.__getattribute__(attr)
        def flags(): pass
    """,
    "fakeb/alpha/__init__.py": """
        import sys, os
        from typing import Optional
        from fakeb import PropModule
        LIMIT = 10
        def is_available(): return True
        class _Matmul:
            def __getattr__(self, name):
                if name == "allow_fast":
                    return True
                raise AttributeError(name)
        matmul = _Matmul()
        class AlphaModule(PropModule):
            @property
            def enabled(self): return True
        sys.modules[__name__] = AlphaModule(sys.modules[__name__], __name__)
    """,
    "fakeb/beta/__init__.py": "def version(): return 1\n",
    "fakeb/beta/tool.py": "def main(): pass\n",
    "fakeb/_private/__init__.py": "def hidden(): pass\n",
}


def test_coverage_scans_a_fake_module_tree(tmp_path, monkeypatch):
    for relative, source in FAKE_TREE.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source))
    monkeypatch.syspath_prepend(str(tmp_path))
    from generator import api_scan

    names = api_scan.scan("fakeb")
    assert names == sorted([
        "fakeb.PropModule", "fakeb.alpha", "fakeb.alpha.AlphaModule", "fakeb.alpha.LIMIT", "fakeb.alpha.enabled",
        "fakeb.alpha.is_available", "fakeb.alpha.matmul", "fakeb.alpha.matmul.allow_fast", "fakeb.beta",
        "fakeb.beta.tool", "fakeb.beta.tool.main", "fakeb.beta.version", "fakeb.flags",
    ])


def test_coverage_measures_mentions_and_exclusions(tmp_path):
    from generator.api_coverage import measure

    (tmp_path / "c.yaml").write_text(textwrap.dedent("""\
        module: torch.backends.cudnn
        facts:
          - {id: a, claim: x, check: {default: torch.backends.cudnn.benchmark, equals: false}}
          - {id: b, claim: y, check: {expr: "torch.backends.cuda.matmul.allow_tf32 is False"}}
        coverage_exclude:
          - {name: torch.backends.cudnn.rnn, reason: "internal helper module of the RNN code"}
    """))
    api = {"torch": "x", "names": ["torch.backends.cudnn", "torch.backends.cudnn.benchmark",
                                   "torch.backends.cuda.matmul", "torch.backends.cuda.matmul.allow_tf32",
                                   "torch.backends.cudnn.rnn", "torch.backends.mps"]}
    result = measure(load_course(tmp_path), api)
    assert result.uncovered == ("torch.backends.mps",)
    assert result.excluded == {"torch.backends.cudnn.rnn": "internal helper module of the RNN code"}
    assert result.percent == pytest.approx(80.0)


def test_coverage_of_the_real_torch_finds_nested_namespaces(torch_api):
    names = set(torch_api["names"])
    assert {"torch.backends.cuda.matmul.allow_tf32", "torch.backends.cudnn.rnn", "torch.backends.mkldnn.matmul",
            "torch.backends.fp32_precision", "torch.backends.flags", "torch.backends.disable_global_flags",
            "torch.backends.xeon.run_cpu", "torch.backends.xnnpack.enabled"} <= names
    assert not {n for n in names if n.endswith((".torch", ".Optional", ".contextlib", ".sys"))}


# ------------------------------------------------------------------ hostile checks
LEAKS = {
    "leak-zeros": "torch.zeros = lambda *a, **k: None",
    "leak-device": "torch.set_default_device('meta')",
    "leak-patch": "torch.backends.cudnn.is_available = lambda: True",
    "leak-tensor": "torch.Tensor.sum = lambda self: 42",
    "leak-seed": "torch.manual_seed(12345)",
    "leak-new-name": "torch.backends.cudnn.brand_new = 1",
}
PROBES = {
    "probe-zeros": "torch.zeros(2).sum().item() == 0",
    "probe-device": "torch.ones(2).device.type == 'cpu'",
    "probe-patch": "torch.backends.cudnn.is_available.__module__ == 'torch.backends.cudnn'",
    "probe-tensor": "torch.ones(3).sum().item() == 3",
    "probe-seed": "torch.initial_seed() != 12345",
    "probe-new-name": "not hasattr(torch.backends.cudnn, 'brand_new')",
}


def test_leaking_checks_never_reach_a_later_check(tmp_path):
    cases = {}
    for round_ in range(4):  # every leak before every probe, on whichever child picks them up
        for name, code in LEAKS.items():
            cases[f"{name}-{round_}"] = ({"snippet": code}, "pass", {})
        for name, code in PROBES.items():
            cases[f"{name}-{round_}"] = ({"expr": code}, "pass", {})
    course = load_course(write_content(tmp_path / "content", cases))
    results = verify(course, timeout=10, cache_dir=None).results
    wrong = {k: (r.status, r.detail) for k, r in results.items() if r.status != "pass"}
    assert not wrong


HOSTILE = {
    # id: (check, status, words in the detail; "" where the detail must be empty, a pass)
    "background-process": ({"snippet": "import subprocess\nsubprocess.Popen(['sleep', '100.4321'])"},
                           "error", "left a process running"),
    "kills-its-group": ({"snippet": "import os, signal\nos.killpg(0, signal.SIGKILL)"}, "error", "SIGKILL"),
    "forks": ({"snippet": "import os\nos.fork()"}, "error", "forked"),
    "loud-stderr": ({"snippet": "import sys\nsys.stderr.write('x' * 2_000_000)\nsys.stdout.write('y' * 2_000_000)"},
                    "pass", ""),
    "huge-output": ({"snippet": "import os\nblock = b'z' * (1 << 20)\nfor _ in range(100):\n    os.write(2, block)"},
                    "error", "MiB of output"),
    "out-of-memory": ({"snippet": "block = bytearray(16 << 30)"}, "error", "ran out of memory"),
    "syntax-error": ({"expr": "torch.backends.cudnn.enabled ==="}, "error", "does not compile"),
    "closes-its-pipes": ({"snippet": "import os\nfor fd in range(3, 64):\n    try:\n        os.close(fd)\n"
                                     "    except OSError:\n        pass"}, "error", "interpreter"),
    "ignores-sigterm-and-hangs": ({"snippet": "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                                              "time.sleep(60)"}, "error", "timed out"),
    "raises-base-exception": ({"snippet": "raise KeyboardInterrupt"}, "error", "escaped"),
    "after-all": ({"expr": "torch.ones(2).sum().item() == 2"}, "pass", ""),
}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    import time

    cases = {fact_id: (check, status, {}) for fact_id, (check, status, _) in HOSTILE.items()}
    course = load_course(write_content(tmp_path_factory.mktemp("hostile"), cases))
    started = time.monotonic()
    verification = verify(course, timeout=3, cache_dir=None)
    return verification.results, time.monotonic() - started


@pytest.mark.parametrize("fact_id", list(HOSTILE))
def test_hostile_checks_become_clear_errors(hostile, fact_id):
    result = hostile[0][fact_id]
    _, status, words = HOSTILE[fact_id]
    assert result.status == status, result
    if words:
        assert words in result.detail, result
    else:
        assert result.detail == "", result


def test_hostile_checks_end_within_their_timeouts_and_leave_nothing_behind(hostile):
    import subprocess

    assert hostile[1] < 30
    assert not subprocess.run(["pgrep", "-f", "sleep 100.4321"], capture_output=True, text=True).stdout
