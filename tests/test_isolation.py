"""Checks cannot reach each other: side effects die with their checker, results travel on sealed
channels, nothing a check starts outlives it, and limits hold whatever a check does (issue 22).

Every run here is on one core (the worker's affinity is this process's, set to one CPU while it
starts), so the checks run one after another in a fixed order: each polluting check comes right
before the probe that would see its side effect in a shared checker.
"""
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import time

import pytest
import yaml

from generator import verify as verify_module
from generator.loader import load_course
from generator.verify import verify
from generator.worker import DETAIL_LIMIT

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc, sets CPU affinity")


@contextlib.contextmanager
def one_core():
    """Start the worker (and so its checkers) on a single CPU: one slot, checks in list order."""
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(before)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def write(folder, facts):
    """``facts``: id -> check (a dict); written in order as one module."""
    folder.mkdir(parents=True, exist_ok=True)
    module = {"module": "torch.backends.t",
              "facts": [{"id": fact_id, "claim": f"claim {fact_id}", "check": check} for fact_id, check in facts.items()]}
    (folder / "t.yaml").write_text(yaml.safe_dump(module, sort_keys=False))
    return folder


def verify_folder(folder, cache_dir=None, timeout=10.0):
    with one_core():
        return verify(load_course(folder), timeout=timeout, cache_dir=cache_dir)


def pollution(tmp):
    """category -> (a plausible check with a side effect, a probe that passes unless it sees that side effect)."""
    marker, exit_marker = str(tmp / "leaked-fd-marker"), str(tmp / "atexit-ran")
    open(marker, "w").close()
    return {
        # process state
        "cwd": (f"import os\nos.chdir({str(tmp)!r})", f"import os\nassert os.getcwd() != {str(tmp)!r}"),
        "environment": ("import os\nos.environ['OMP_NUM_THREADS'] = '37'",
                        "import os\nassert os.environ.get('OMP_NUM_THREADS') != '37'"),
        "umask": ("import os\nos.umask(0o077)", "import os\nmask = os.umask(0)\nos.umask(mask)\nassert mask != 0o077"),
        "signal-handler": ("import signal\nsignal.signal(signal.SIGUSR1, signal.SIG_IGN)",
                           "import signal\nassert signal.getsignal(signal.SIGUSR1) == signal.SIG_DFL"),
        "pending-alarm": ("import signal\nsignal.alarm(30)", "import signal\nassert signal.alarm(0) == 0"),
        "recursion-limit": ("import sys\nsys.setrecursionlimit(123)", "import sys\nassert sys.getrecursionlimit() != 123"),
        "temporary-file": ("import os, tempfile\nopen(os.path.join(tempfile.gettempdir(), 'torchdeck-leftover'), 'w').close()",
                           "import os, tempfile\nassert not os.path.exists(os.path.join(tempfile.gettempdir(), 'torchdeck-leftover'))"),
        "leaked-fds": (f"import os\nleaked = [os.open({marker!r}, os.O_RDONLY) for _ in range(5)]",
                       f"import os\nfds = os.listdir('/proc/self/fd')\n"
                       f"assert {marker!r} not in [os.path.realpath('/proc/self/fd/' + fd) for fd in fds]"),
        # interpreter state
        "sys-modules": ("import sys\nsys.modules['json'] = None", "import json\nassert json.dumps(1) == '1'"),
        "sys-path": ("import sys\nsys.path.insert(0, '/polluted')", "import sys\nassert '/polluted' not in sys.path"),
        "builtins-print": ("import builtins\nbuiltins.print = None", "print('a probe prints')"),
        "builtins-open": ("import builtins\nbuiltins.open = None", "import builtins, io\nassert builtins.open is io.open"),
        "warning-filters": ("import warnings\nwarnings.simplefilter('error')",
                            "import warnings\nwarnings.warn('a probe warns')"),
        "sys-stdout": ("import io, sys\nsys.stdout = io.StringIO()", "import sys\nassert sys.stdout is sys.__stdout__"),
        "settrace": ("import sys\nsys.settrace(lambda *a: None)", "import sys\nassert sys.gettrace() is None"),
        "atexit": (f"import atexit\natexit.register(lambda: open({exit_marker!r}, 'w').close())",
                   f"import atexit, os\natexit._run_exitfuncs()\nassert not os.path.exists({exit_marker!r})"),
        "thread-left-running": ("import threading, time\ndef flip():\n    time.sleep(0.3)\n"
                                "    torch.backends.cudnn.benchmark = True\n"
                                "threading.Thread(target=flip, daemon=True).start()",
                                "import time\ntime.sleep(0.8)\nassert torch.backends.cudnn.benchmark is False"),
        "python-random": ("import random\nrandom.seed(7)",
                          "import random\nassert random.random() != random.Random(7).random()"),
        # torch state outside the watched names
        "printoptions": ("torch.set_printoptions(precision=1)", "assert str(torch.tensor([1.23456])) == 'tensor([1.2346])'"),
        "flush-denormal": ("torch.set_flush_denormal(True)", "assert (torch.tensor([1e-40]) * 1).item() != 0"),
        "anomaly-mode": ("torch.autograd.set_detect_anomaly(True)", "assert not torch.is_anomaly_enabled()"),
        "autocast-left-open": ("torch.autocast('cpu').__enter__()",
                               "assert (torch.ones(2, 2) @ torch.ones(2, 2)).dtype == torch.float32"),
        "function-mode-left-open": ("from torch.overrides import TorchFunctionMode\n"
                                    "class Answer(TorchFunctionMode):\n"
                                    "    def __torch_function__(self, func, types, args=(), kwargs=None):\n"
                                    "        return 42\nAnswer().__enter__()",
                                    "assert torch.ones(2).sum().item() == 2"),
        "inference-mode-left-open": ("torch.inference_mode().__enter__()", "assert not torch.is_inference_mode_enabled()"),
        "linalg-patch": ("torch.linalg.norm = lambda *a, **k: torch.tensor(0.0)",
                         "assert torch.linalg.norm(torch.ones(4)).item() == 2"),
        "module-call-patch": ("torch.nn.Module.__call__ = lambda self, *a, **k: 0",
                              "assert torch.nn.Identity()(torch.ones(1)).sum().item() == 1"),
        "torch-version": ("torch.version.cuda = '99.9'", "assert torch.version.cuda != '99.9'"),
        "backend-module-m": ("torch.backends.mkldnn.m.is_available = lambda: False",
                             "assert torch.backends.mkldnn.m.is_available.__module__ == 'torch.backends.mkldnn'"),
        # a shared output budget
        "output-budget": ("import os\nos.write(1, b'x' * (60 << 20))", "import os\nos.write(1, b'y' * (10 << 20))"),
    }


def polluted_then_probed(tmp):
    facts = {}
    for category, (polluter, probe) in pollution(tmp).items():
        facts[f"{category}-pollutes"] = {"snippet": polluter}
        facts[f"{category}-probe"] = {"snippet": probe}
    return facts


def test_no_side_effect_reaches_a_later_check(tmp_path):
    """One category each: the polluting check passes, and the probe right after it still sees a pristine
    interpreter. Cached, the probes' results are what a run without the polluters gives, and stay so."""
    (tmp_path / "scratch").mkdir()
    facts = polluted_then_probed(tmp_path / "scratch")
    cache = tmp_path / "cache"
    results = verify_folder(write(tmp_path / "content", facts), cache_dir=cache).results
    wrong = {fact_id: (r.status, r.detail) for fact_id, r in results.items() if r.status != "pass"}
    assert not wrong
    # the polluters removed: the probes come from the cache, and equal a run of the probes alone
    probes = {fact_id: check for fact_id, check in facts.items() if fact_id.endswith("-probe")}
    alone = verify_folder(write(tmp_path / "probes", probes)).results
    cached = verify_folder(write(tmp_path / "content", probes), cache_dir=cache).results
    assert {k: r.status for k, r in cached.items()} == {k: r.status for k, r in alone.items()}
    assert all(r.status == "pass" for r in alone.values())


def test_nothing_a_check_leaves_in_temporary_files_outlives_the_run(tmp_path, monkeypatch):
    """Files and folders a check (or the worker, or the compiler stack's sub-worker and its imports) leaves
    in the temporary folder go with the run: the temporary folder is as empty afterwards as before,
    whether the check passed, failed or timed out."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setenv("TMPDIR", str(temporary))
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    leaves = ("import os, tempfile\nfolder = tempfile.mkdtemp(prefix='torchelastic_')\n"
              "open(os.path.join(folder, 'log'), 'w').close()\n"
              "tempfile.NamedTemporaryFile(delete=False).close()\n"
              "open(os.path.join(os.environ['TMPDIR'], 'by-name'), 'w').close()\n")
    facts = {"leaves-and-passes": {"snippet": leaves},
             "leaves-and-fails": {"snippet": leaves + "assert False"},
             "leaves-and-hangs": {"snippet": leaves + "import time\ntime.sleep(60)"},
             "leaves-under-the-compiler-stack": {"snippet": COMPILER_STACK + leaves}}
    results = verify_folder(write(tmp_path / "content", facts), timeout=3).results
    assert {k: r.status for k, r in results.items()} == {"leaves-and-passes": "pass", "leaves-and-fails": "fail",
                                                        "leaves-and-hangs": "error", "leaves-under-the-compiler-stack": "pass"}
    assert sorted(os.listdir(temporary)) == []


COMPILER_STACK = "# runs under torch.compile's stack\n"  # a comment the worker routes by (COMPILER_STACK_USERS)


def test_checks_that_use_the_compiler_stack_run_apart_with_the_same_guarantees(tmp_path):
    """Checks that use the compiler stack run in the sub-worker, forked from a pristine copy with the stack
    imported: no side effect reaches a later check there either, a forgery decides nothing, nothing a
    check starts outlives it; the other checks fork from a worker without the stack."""
    (tmp_path / "scratch").mkdir()
    facts = {fact_id: {"snippet": COMPILER_STACK + check["snippet"]}
             for fact_id, check in polluted_then_probed(tmp_path / "scratch").items()}
    facts["stack-imported-here"] = {"snippet": COMPILER_STACK + "import sys\nassert 'sympy' in sys.modules"}
    facts["forger"] = {"snippet": COMPILER_STACK + "import os\nline = %r\n" % FORGED.replace(b'"index": 1', b'"index": 0')
                       + "for fd in range(3, 1024):\n    try:\n        os.write(fd, line)\n    except OSError:\n"
                         "        pass\n"}
    facts["escapes"] = {"snippet": COMPILER_STACK + "import subprocess\n"
                                                    "subprocess.Popen(['sleep', '100.7104'], start_new_session=True)"}
    facts["hangs"] = {"snippet": COMPILER_STACK + "import time\ntime.sleep(100)"}
    facts["plain-no-stack"] = {"snippet": "import sys\nassert 'sympy' not in sys.modules"}
    facts = {"victim": {"expr": "1 + 1 == 3"}, **facts}
    results = verify_folder(write(tmp_path / "content", facts), timeout=3).results
    wrong = {fact_id: (r.status, r.detail) for fact_id, r in results.items()
             if r.status != "pass" and fact_id not in ("victim", "forger", "escapes", "hangs")}
    assert not wrong
    assert results["victim"].status == "fail"
    assert results["forger"].status == "error" and results["escapes"].status == "error"
    assert "timed out" in results["hangs"].detail
    time.sleep(0.2)
    assert not leftover("sleep 100.7104")


def test_a_result_from_a_checker_that_was_not_pristine_is_not_cached(tmp_path):
    facts = {"a": {"expr": "1 + 1 == 2"}, "b": {"expr": "2 + 2 == 4"}}
    course = load_course(write(tmp_path / "content", facts))
    env = verify_module.probe(sys.executable)
    cache = verify_module._Cache(tmp_path / "cache", env)
    pristine = verify_module._result(course, course.facts[0], "pass", "", [])
    polluted = verify_module._result(course, course.facts[1], "pass", "", [], pristine=False)
    cache.store({"torch": env["torch"], "python": env["python"], "capabilities": {}},
                [(course.facts[0], pristine), (course.facts[1], polluted)])
    again = verify_module._Cache(tmp_path / "cache", env)
    assert again.get(course.facts[0]) is not None and again.get(course.facts[1]) is None


# ------------------------------------------------------------------ sealed channels
FORGED = b'{"index": 1, "status": "pass", "detail": "", "pristine": true, "dirty": false, "at": null}\n'


def test_a_check_cannot_forge_another_fact_s_result(tmp_path):
    """It writes a passing result for the fact after it to every descriptor it may hold (the worker's
    protocol pipe was fd 3): that fact still fails, and nothing is cached from the forgery."""
    forge = ("import os\nline = %r\n" % FORGED +
             "for fd in range(3, 1024):\n"
             "    try:\n        os.write(fd, line)\n    except OSError:\n        pass\n")
    facts = {"forger": {"snippet": forge}, "victim": {"expr": "1 + 1 == 3"}, "after": {"expr": "1 + 1 == 2"}}
    results = verify_folder(write(tmp_path / "content", facts), cache_dir=tmp_path / "cache").results
    assert results["victim"].status in ("fail", "error"), results["victim"]
    assert results["after"].status == "pass"
    # the forger decided only its own result, and wrote more than one line on its channel: an error
    assert results["forger"].status == "error"
    again = verify_folder(write(tmp_path / "content", {"victim": facts["victim"]}), cache_dir=tmp_path / "cache").results
    assert again["victim"].status == "fail"


@pytest.mark.skipif(os.geteuid() == 0, reason="root may open any process's descriptors through /proc")
def test_a_check_cannot_open_the_worker_s_pipes_through_proc(tmp_path):
    """The worker is not dumpable: a check running as an ordinary user cannot open /proc/<worker>/fd/*."""
    probe = ("import os\nfolder = '/proc/%d/fd' % os.getppid()\n"
             "try:\n    names = os.listdir(folder)\nexcept PermissionError:\n    names = []\n"
             "opened = []\nfor name in names:\n    try:\n"
             "        opened.append(open(os.path.join(folder, name), 'wb', buffering=0))\n"
             "    except OSError:\n        pass\nassert not opened")
    facts = {"opens-the-worker-s-pipes": {"snippet": probe}}
    assert verify_folder(write(tmp_path / "content", facts)).results["opens-the-worker-s-pipes"].status == "pass"


@pytest.mark.parametrize("garbage", [b"not json\n", b"[1, 2]\n", b'{"status": "pass"}\n', b"x" * (2 << 20)])
def test_a_malformed_line_is_an_error_for_its_check_never_a_traceback(tmp_path, garbage):
    code = f"import os\nos.write(4, {garbage!r})\nos._exit(0)" if len(garbage) < 100 else \
        "import os\nos.write(4, b'x' * (2 << 20))\nos._exit(0)"
    facts = {"garbage": {"snippet": code}, "after": {"expr": "1 + 1 == 2"}}
    results = verify_folder(write(tmp_path / "content", facts)).results
    assert results["garbage"].status == "error" and "Traceback" not in results["garbage"].detail
    assert results["after"].status == "pass"


def test_checkers_hold_only_their_own_descriptors(tmp_path):
    facts = {"descriptors": {"snippet": "import os\nassert sorted(int(fd) for fd in os.listdir('/proc/self/fd')) "
                                        "[:5] == [0, 1, 2, 3, 4] and len(os.listdir('/proc/self/fd')) <= 6"}}
    assert verify_folder(write(tmp_path / "content", facts)).results["descriptors"].status == "pass"


# ------------------------------------------------------------------ processes and limits
def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def leftover(tag: str) -> str:
    """The pids of processes whose command line matches ``tag`` and that this test process started (its
    descendants), or that nobody waits for (orphans, adopted by init): not those of the tests that
    other pytest-xdist workers run at the same time."""
    found = subprocess.run(["pgrep", "-f", tag], capture_output=True, text=True).stdout.split()
    return "\n".join(pid for pid in found if _ours_or_orphaned(int(pid)))


def _ours_or_orphaned(pid: int) -> bool:
    me, first = os.getpid(), True
    while pid > 1:
        parent = _parent(pid)
        if parent is None:
            return False  # gone meanwhile
        if parent == me or (first and parent == 1):
            return True
        pid, first = parent, False
    return False


def _parent(pid: int):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return int(stat.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def test_no_process_outlives_its_check_whatever_session_or_group_it_moves_to(tmp_path):
    pid_file = tmp_path / "daemon.pid"
    facts = {
        "setsid-background": {"snippet": "import subprocess\nsubprocess.run(['sh', '-c', 'setsid sleep 100.7101 &'])"},
        "new-session": {"snippet": "import subprocess\nsubprocess.Popen(['sleep', '100.7102'], start_new_session=True)"},
        "double-fork-daemon": {"snippet": f"import os, time\nif os.fork() == 0:\n    os.setsid()\n"
                                          f"    if os.fork() == 0:\n"
                                          f"        open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
                                          f"        time.sleep(100)\n    os._exit(0)\ntime.sleep(0.5)"},
        "joins-the-worker-group-and-hangs": {"snippet": "import os, time\nos.setpgid(0, os.getpgid(os.getppid()))\n"
                                                        "time.sleep(100)"},
        "new-session-child-then-hangs": {"snippet": "import signal, subprocess, time\n"
                                                    "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                                                    "subprocess.Popen(['sleep', '100.7103'], start_new_session=True)\n"
                                                    "time.sleep(100)"},
        "after": {"expr": "1 + 1 == 2"},
    }
    started = time.monotonic()
    results = verify_folder(write(tmp_path / "content", facts), timeout=3).results
    assert time.monotonic() - started < 40
    assert results["setsid-background"].status == "error" and "left a process" in results["setsid-background"].detail
    assert results["new-session"].status == "error" and "left a process" in results["new-session"].detail
    assert results["double-fork-daemon"].status == "error"
    assert "timed out" in results["joins-the-worker-group-and-hangs"].detail
    assert "timed out" in results["new-session-child-then-hangs"].detail
    assert results["after"].status == "pass"
    time.sleep(0.2)
    assert not leftover("sleep 100.710")
    assert pid_file.exists() and not alive(int(pid_file.read_text()))


def test_a_shared_mapping_counts_against_the_memory_limit(tmp_path):
    facts = {"shared-6-gb": {"snippet": "import mmap\nm = mmap.mmap(-1, 6 << 30, flags=mmap.MAP_SHARED)\n"
                                        "m[:1] = b'x'"},
             "private-16-gb": {"snippet": "block = bytearray(16 << 30)"}}
    verification = verify_folder(write(tmp_path / "content", facts))
    for fact_id, result in verification.results.items():
        if fact_id == "shared-6-gb" and verification.capabilities.get("cuda"):
            continue  # where a GPU is, checkers have no address-space limit (CUDA's start needs one far past it)
        assert result.status == "error" and "ran out of memory" in result.detail, result


def test_facts_that_require_cuda_run_without_a_memory_limit():
    """CUDA maps large virtual areas when it starts: a checker for a fact that requires cuda or cudnn gets
    no address-space or data limit (other checkers do)."""
    code = ("import resource, sys\nsys.path.insert(0, sys.argv[1])\nfrom worker.processes import _GPU_HERE, _limit_resources\n"
            "_GPU_HERE.extend(eval(sys.argv[3]))\n_limit_resources(eval(sys.argv[2]))\n"
            "print(resource.getrlimit(resource.RLIMIT_AS)[0] == resource.RLIM_INFINITY,"
            " resource.getrlimit(resource.RLIMIT_DATA)[0] == resource.RLIM_INFINITY)")
    folder = str(verify_module.WORKER.parent)

    def unlimited(item, gpu_here=()):
        done = subprocess.run([sys.executable, "-c", code, folder, repr(item), repr(list(gpu_here))],
                              capture_output=True, text=True)
        return done.stdout.split()

    assert unlimited({"requires": ["cuda"]}) == ["True", "True"]
    assert unlimited({"requires": ["cudnn"]}) == ["True", "True"]
    assert unlimited({"requires": []}) == ["False", "False"]
    # on a machine with a GPU any check may start CUDA (cudnn.version() does): data stays limited, address space not
    assert unlimited({"requires": []}, gpu_here=[True]) == ["True", "False"]


def test_a_capability_probe_that_does_not_answer_is_an_error_not_nothing_available():
    """On a busy machine the probe of what torch can do may not answer in time: taken as "nothing available",
    every fact that requires something would be skipped (and cached so); it is an error instead."""
    code = ("import sys, time\nsys.path.insert(0, sys.argv[1])\nfrom worker import serve\n"
            "serve.PROBE_SECONDS = 0.3\nserve.detect_capabilities = lambda: time.sleep(30)\n"
            "try:\n    serve._probe_machine(0.1)\nexcept RuntimeError as err:\n    print(err)\n")
    done = subprocess.run([sys.executable, "-c", code, str(verify_module.WORKER.parent)], capture_output=True,
                          text=True, timeout=60)
    assert "did not answer within 0.3 s" in done.stdout, (done.stdout, done.stderr)


def test_huge_messages_are_cut_quickly(tmp_path):
    facts = {"huge-exception": {"snippet": "raise ValueError('x' * (100 << 20))"},
             "huge-assertion": {"snippet": "assert False, 'y' * (100 << 20)"},
             "huge-expected": {"raises": "raise KeyError('z' * (100 << 20))", "error": "TypeError"},
             "huge-value": {"expr": "'' * (100 << 20) or ('w' * (100 << 20) == 0)"},
             "huge-exception-name": {"snippet": "raise type('E' * (1 << 20), (Exception,), {})('message')"}}
    started = time.monotonic()
    results = verify_folder(write(tmp_path / "content", facts), cache_dir=tmp_path / "cache").results
    assert time.monotonic() - started < 30
    for result in results.values():
        assert result.status in ("fail", "error") and len(result.detail) <= DETAIL_LIMIT, result
    assert max(path.stat().st_size for path in (tmp_path / "cache").glob("verify-*.json")) < 100_000


@pytest.fixture(autouse=True)
def nothing_left_behind():
    """After every test here: no process left of the sleeps the checks started, nor any worker of this tree."""
    yield
    time.sleep(0.1)
    assert not leftover("sleep 100\\.71")
    assert not leftover(str(verify_module.WORKER))


def test_a_fact_may_give_its_check_more_time_than_the_timeout(tmp_path):
    """``timeout:`` on a fact lets its check run that long (an interpreter it starts); the others keep
    ``--timeout``, and a check past its own longer limit is still ended."""
    slow = "import time\ntime.sleep(2.5)"
    module = {"module": "torch.backends.t", "facts": [
        {"id": "given-time", "claim": "c", "check": {"snippet": slow}, "timeout": 10},
        {"id": "no-time-given", "claim": "c", "check": {"snippet": slow}},
        {"id": "past-its-time", "claim": "c", "check": {"snippet": "import time\ntime.sleep(100)"}, "timeout": 3},
    ]}
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "t.yaml").write_text(yaml.safe_dump(module, sort_keys=False))
    started = time.monotonic()
    results = verify_folder(tmp_path / "c", timeout=1).results
    assert results["given-time"].status == "pass", results["given-time"]
    assert results["no-time-given"].status == "error" and results["no-time-given"].detail == "timed out after 1 s"
    assert results["past-its-time"].status == "error" and results["past-its-time"].detail == "timed out after 3 s"
    assert time.monotonic() - started < 30
