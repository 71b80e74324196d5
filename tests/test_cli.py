"""The command line: exit codes, filters, lint, stats, coverage, atomic outputs."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from generator.atomic import atomic_path, atomic_write_text
from helpers import torchdeck

MODULE = textwrap.dedent("""\
    module: torch.backends.cudnn
    title: {en: cuDNN, zh: cuDNN}
    summary: {en: Convolutions on NVIDIA GPUs, zh: NVIDIA GPU 上的卷积}
    facts:
      - id: t-benchmark
        claim: {en: benchmark is off by default, zh: benchmark 默认关闭}
        check: {default: torch.backends.cudnn.benchmark, equals: false}
      - id: t-version
        claim: {en: version() returns an int on CUDA builds, zh: CUDA 构建上 version() 返回整数}
        check: {expr: "isinstance(torch.backends.cudnn.version(), int)"}
        requires: [cudnn]
    cards:
      - {id: t-card, kind: basic, front: {en: "Default of `torch.backends.cudnn.benchmark`?", zh: "`torch.backends.cudnn.benchmark` 的默认值？"}, back: {en: "False", zh: "False"}, facts: [t-benchmark]}
    lessons:
      - id: t-lesson
        title: {en: Flags, zh: 开关}
        notes: {en: Say this, zh: 这样讲}
        ask: {en: Ask that, zh: 问这个}
""")


@pytest.fixture
def content(tmp_path):
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "cudnn.yaml").write_text(MODULE)
    return tmp_path / "content"


def test_lint_is_clean_on_translated_content_and_flags_missing_translations(content, tmp_path):
    assert torchdeck("lint", "--content", content).exit_code == 0
    (content / "cudnn.yaml").write_text(MODULE.replace("{en: Say this, zh: 这样讲}", "Say this"))
    result = torchdeck("lint", "--content", content)
    assert result.exit_code == 1
    assert "cudnn.yaml:" in result.output and "t-lesson.notes: no zh translation" in result.output


def test_stats_counts_per_module(content, tmp_path):
    result = torchdeck("stats", "--content", content, "--out", tmp_path / "build")
    assert result.exit_code == 0, result.output
    row = next(line.split() for line in result.output.splitlines() if line.startswith("cudnn"))
    # module pass fail skip error basic reverse cloze mcq code questions lessons no-zh
    import torch

    cudnn = torch.cuda.is_available() and torch.backends.cudnn.is_available()  # t-version runs only with cuDNN
    passed, skipped = ("2", "0") if cudnn else ("1", "1")
    assert row == ["cudnn", passed, "0", skipped, "0", "1", "0", "0", "0", "0", "0", "1", "0"]
    assert "stats: 1 modules, 2 facts, 1 cards, 0 questions, 1 lessons" in result.output


def test_unknown_module_filter_is_a_usage_error(content):
    result = torchdeck("verify", "--content", content, "--module", "cudnnn")
    assert result.exit_code == 2 and "no module named cudnnn (known: cudnn)" in result.output


def test_coverage_fail_under(content):
    result = torchdeck("coverage", "--content", content, "--quiet", "--fail-under", "50")
    assert result.exit_code == 1 and "is under 50%" in result.output
    assert "torch.backends.cudnn.benchmark" not in result.output  # --quiet lists nothing
    listed = torchdeck("coverage", "--content", content)
    assert "uncovered  torch.backends.cudnn.enabled" in listed.output
    assert "uncovered  torch.backends.cudnn.benchmark\n" not in listed.output


def test_a_module_selection_gets_its_own_deck_file(content, tmp_path):
    out = tmp_path / "build"
    result = torchdeck("deck", "--content", content, "--out", out, "--module", "cudnn", "--lang", "en")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.glob("*.apkg")) == ["torch-backends.cudnn.en.apkg"]


def test_a_selection_draws_the_same_module_map(course):
    from generator.diagrams import diagram_png

    assert diagram_png("backends-map", course.select(["mha"])) == diagram_png("backends-map", course)


def test_python_dash_m_generator_is_the_same_program(content):
    done = subprocess.run([sys.executable, "-m", "generator", "lint", "--content", str(content)],
                          capture_output=True, text=True)
    assert done.returncode == 0 and "lint: 1 modules, 0 finding(s)" in done.stdout


def test_atomic_write_keeps_the_previous_file_when_interrupted(tmp_path):
    target = tmp_path / "deck.apkg"
    atomic_write_text(target, "old")
    with pytest.raises(KeyboardInterrupt):
        with atomic_path(target) as temp:
            temp.write_text("half-writ")
            raise KeyboardInterrupt
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["deck.apkg"]


def test_timeout_must_be_positive(content, tmp_path):
    for value in ("0", "-1"):
        result = torchdeck("verify", "--content", content, "--out", tmp_path / "b", "--timeout", value)
        assert result.exit_code == 2 and "--timeout" in result.output


def test_an_unwritable_out_is_a_clean_error(content, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    result = torchdeck("deck", "--content", content, "--out", blocker / "build", "--lang", "en")
    assert result.exit_code == 1 and "cannot read or write" in result.output and "Not a directory" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def verify_with_a_slow_check(content, tmp_path, snippet: str):
    """A ``torchdeck verify`` process, returned once its slow check (``snippet``, which writes a pid
    to the file named by ``{pid_file}``) is running."""
    import time

    pid_file = tmp_path / "running.pid"
    slow = MODULE.replace("check: {default: torch.backends.cudnn.benchmark, equals: false}",
                          "check: {snippet: \"%s\"}" % snippet.format(pid_file=repr(str(pid_file))))
    (content / "cudnn.yaml").write_text(slow)
    process = subprocess.Popen([sys.executable, "-m", "generator", "verify", "--no-cache", "--content", str(content),
                                "--out", str(tmp_path / "b"), "--timeout", "120"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.1)
    if not (pid_file.exists() and pid_file.read_text()):  # the check never ran: nothing below would prove anything
        process.kill()
        _, err = process.communicate(timeout=60)
        raise AssertionError(f"the slow check did not start within 60 s: {err}")
    time.sleep(0.3)
    return process, pid_file


def test_interrupt_exits_130_and_leaves_no_worker(content, tmp_path):
    import os
    import signal
    import time

    process, pid_file = verify_with_a_slow_check(
        content, tmp_path, "import os, time; open({pid_file}, 'w').write(str(os.getpid())); time.sleep(60)")
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err
    checker = int(pid_file.read_text())
    time.sleep(0.5)
    try:
        os.kill(checker, 0)
    except ProcessLookupError:
        return
    status = open(f"/proc/{checker}/stat").read().split()[2]
    assert status == "Z", "the checking process outlived torchdeck"


def test_a_module_selection_verifies_and_renders_facts_cited_from_other_modules(content, tmp_path):
    other = textwrap.dedent("""\
        module: torch.backends.mkldnn
        title: {en: oneDNN, zh: oneDNN}
        cards:
          - {id: o-card, kind: basic, front: {en: cuDNN benchmark?, zh: cuDNN benchmark？}, back: "False",
             facts: [t-benchmark]}
    """)
    (content / "mkldnn.yaml").write_text(other)
    out = tmp_path / "build"
    result = torchdeck("deck", "--content", content, "--out", out, "--module", "mkldnn", "--lang", "en", "--strict")
    assert result.exit_code == 0, result.output
    assert "facts 1 pass" in result.output  # the cited cudnn fact was checked
    assert (out / "torch-backends.mkldnn.en.apkg").exists()
    result = torchdeck("slides", "--content", content, "--out", out, "--module", "mkldnn", "--lang", "en")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("how, code", [("TERM", 143), ("HUP", 129), ("KILL", -9)])
def test_no_process_outlives_torchdeck(content, tmp_path, how, code):
    """SIGTERM exits 143 and SIGHUP (a closed terminal) 129 after cleanup; even SIGKILL, which allows none,
    leaves no check's process behind."""
    import signal
    import time

    marker = f"{time.time_ns() % 10 ** 9}.5"
    process, pid_file = verify_with_a_slow_check(
        content, tmp_path, "import subprocess, time; p = subprocess.Popen(['sleep', '%s']); "
                           "open({pid_file}, 'w').write(str(p.pid)); time.sleep(60)" % marker)
    running = subprocess.run(["pgrep", "-f", f"sleep {marker}"], capture_output=True, text=True).stdout.split()
    assert running == [pid_file.read_text()], "the check's process is running and pgrep finds it, before the signal"
    process.send_signal(getattr(signal, "SIG" + how))
    _, err = process.communicate(timeout=60)
    assert process.returncode == code, err
    assert "Traceback" not in err
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if not subprocess.run(["pgrep", "-f", f"sleep {marker}"], capture_output=True).stdout:
            return
        time.sleep(0.2)
    raise AssertionError("a process a check started outlived torchdeck")
