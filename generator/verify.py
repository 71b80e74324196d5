"""Verify every fact against a torch: the worker runs the checks, a cache skips unchanged ones.

The cache lives in ``build/.cache``. Its key is a fingerprint of the target
interpreter taken *without* importing torch (Python version, torch's install
path and ``torch/version.py``, which names version, git commit and CUDA build,
plus the GPU device nodes), so a warm run never pays for ``import torch``.
Each fact's entry is keyed by the hash of its check, requires and torch range.
"""
from __future__ import annotations

import dataclasses
import datetime
import functools
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Optional

from .atomic import atomic_write_text
from .errors import printable

if TYPE_CHECKING:  # not imported at run time: the CLI starts the worker before pydantic loads
    from .model import Course, Fact

WORKER = Path(__file__).with_name("worker")  # a folder any python with torch runs
STATUSES = ("pass", "fail", "skip", "error")
# What a control run says of a check that passed: a change to what it reads (or its written control)
# made it fail, nothing did, or it reads nothing that can be changed; ``skip`` where the fact did not pass.
CONTROLS = ("caught", "missed", "none", "skip")
# What a rival's world did to a passing check: made it fail at its own assertion (the rival is ruled
# out), left it passing, made it fail on the way (a crash proves nothing), or could not be built.
RIVAL_VERDICTS = ("ruled-out", "passes", "crashed", "error")

_PROBE = r"""
import hashlib, importlib.util, json, os, re, sys
spec = importlib.util.find_spec("torch")
if spec is None or not spec.origin:
    print(json.dumps(None)); sys.exit(0)
folder = os.path.dirname(spec.origin)
try:
    text = open(os.path.join(folder, "version.py")).read()
except OSError:
    text = ""
match = re.search(r"__version__\s*=\s*['\"]([^'\"]+)", text)
devices = sorted(d for d in os.listdir("/dev") if d.startswith(("nvidia", "kfd"))) if os.path.isdir("/dev") else []
prefixes = tuple(sys.argv[1].split(","))
environ = {k: v for k, v in sorted(os.environ.items()) if k.startswith(prefixes)}
print(json.dumps({"python": "%d.%d.%d" % sys.version_info[:3], "torch": match.group(1) if match else "?",
                  "build": hashlib.sha256((folder + text).encode()).hexdigest()[:16], "devices": devices,
                  "environ": environ, "platform": sys.platform}))
"""


# Environment variables that change what torch answers (threads, devices, allocator, library
# choices, debug modes): part of the cache key, so a run under other settings never reuses results.
ENVIRONMENT_PREFIXES = ("OMP_", "KMP_", "MKL_", "GOMP_", "DNNL_", "ONEDNN_", "TORCH", "PYTORCH_", "ATEN_",
                        "CUDA_", "CUBLAS", "CUBLASLT_", "CUDNN_", "NVIDIA_", "NCCL_", "HIP_", "ROCM_", "MIOPEN_",
                        "HSA_", "XNNPACK_", "NNPACK_", "OPENBLAS_", "LD_PRELOAD", "LD_LIBRARY_PATH", "TRITON_")


class VerifyError(Exception):
    """The checks could not run at all (no torch in that interpreter, a broken worker)."""


TORCH_RANGE = "torch-range"  # the need of a fact skipped because this torch is outside its range


def not_applicable(needs) -> bool:
    """Whether a skip says the fact is about another release or build (not that something is missing here)."""
    return bool(needs) and all(n == TORCH_RANGE or n.startswith("without:") for n in needs)


def verified_in(outcomes) -> bool:
    """Whether ``(status, needs)`` of an item's facts in one run verify the item: every fact that applies
    to that run passed, and at least one did (a missing result counts as not passed)."""
    relevant = [status for status, needs in outcomes if not (status == "skip" and not_applicable(needs))]
    return bool(relevant) and all(status == "pass" for status in relevant)


NONE_SHARE = 0.05  # at most this share of the checks that ran may read nothing a control can change

@dataclass(frozen=True)
class FactResult:
    id: str
    status: str
    detail: str
    file: str
    line: int
    needs: tuple[str, ...] = ()
    control: Optional[tuple[str, str]] = None  # (one of CONTROLS, what was changed) once controls ran
    rivals: tuple = ()  # (belief, verdict, detail) per rival once controls ran; verdict in RIVAL_VERDICTS
    # whether the checker was pristine when the check began (no other check's code had run in it):
    # only such a result is cached
    pristine: bool = field(default=True, compare=False)

    def as_json(self) -> dict:
        out = {"id": self.id, "status": self.status, "detail": self.detail, "file": self.file, "line": self.line}
        if self.control:
            out["control"], out["control_detail"] = self.control
        if self.rivals:
            out["rivals"] = [{"belief": b, "verdict": v, "detail": d} for b, v, d in self.rivals]
        return out


@dataclass(frozen=True)
class Verification:
    """What the installed torch said of each fact; renderers read it to mark what is unverified."""

    torch: str
    python: str
    capabilities: dict
    date: str
    results: dict[str, FactResult] = field(default_factory=dict)
    build: dict = field(default_factory=dict)  # CUDA/HIP/cuDNN versions and the device (worker.describe_build)
    elsewhere: tuple = ()  # ledger.Run: recorded runs on other torches and machines

    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(STATUSES, 0)
        for result in self.results.values():
            counts[result.status] += 1
        return counts

    def controls_verdict(self) -> Optional[str]:
        """Why the controls fail the content, or None: a check a control did not catch (``missed``), or
        more than NONE_SHARE of the checks that ran reading nothing a control can change (``none``)."""
        counts = self.control_counts()
        ran = counts["caught"] + counts["missed"] + counts["none"]
        if counts["missed"] or counts["none"] > NONE_SHARE * ran:
            return (f"{counts['missed']} check(s) pass whatever torch does and {counts['none']} of {ran} "
                    f"read nothing a control can change (at most {NONE_SHARE:.0%}); give each a sharper check "
                    f"or a written control")
        return None

    def control_counts(self) -> dict[str, int]:
        counts = dict.fromkeys(CONTROLS, 0)
        for result in self.results.values():
            if result.control:
                counts[result.control[0]] += 1
        return counts

    def rival_counts(self) -> dict[str, int]:
        """Facts whose rivals ran, their rivals, and each verdict's count."""
        counts = {"facts": 0, "rivals": 0, **dict.fromkeys(RIVAL_VERDICTS, 0)}
        for result in self.results.values():
            if result.rivals:
                counts["facts"] += 1
                counts["rivals"] += len(result.rivals)
                for _, verdict, _ in result.rivals:
                    counts[verdict] += 1
        return counts

    @property
    def problems(self) -> list[FactResult]:
        return [r for r in self.results.values() if r.status in ("fail", "error")]

    def unverified_needs(self, fact_ids) -> list[str]:
        """What the facts behind an item lacked here (``['cuda']``); empty when all passed.

        A fact about another release or build (skipped here as not applying) counts only where
        no recorded run passed it either.
        """
        needs: list[str] = []
        for fact_id in fact_ids:
            result = self.results.get(fact_id)
            if result is None or result.status == "pass":
                continue
            lacking = result.needs or (TORCH_RANGE,)
            if not_applicable(lacking) and any(run.passed(fact_id) for run in self.elsewhere):
                continue
            for need in lacking:
                if need not in needs:
                    needs.append(need)
        return needs

    def as_json(self) -> dict:
        return {"torch": self.torch, "python": self.python, "capabilities": self.capabilities,
                "build": self.build, "date": self.date, "facts": [r.as_json() for r in self.results.values()]}


def verify(course: Course, *, python: Optional[str] = None, timeout: float = 10.0,
           cache_dir: Optional[Path] = Path("build/.cache"),
           progress: Optional[Callable[[int], None]] = None, worker: Optional[WorkerClient] = None,
           controls: bool = False) -> Verification:
    """Check every fact of ``course``; ``cache_dir=None`` runs every check afresh.

    ``controls`` also runs each passing check in changed worlds (``mutants``) and its written
    control, and gives every result its ``control``. ``worker``, started early for this
    interpreter, is used or cancelled.
    """
    try:
        return _verify(course, python, timeout, cache_dir, progress, worker, controls)
    finally:
        if worker is not None:
            worker.cancel()


def _verify(course, python, timeout, cache_dir, progress, worker, controls) -> Verification:
    interpreter = python or sys.executable
    env = probe(interpreter)
    cache = _Cache(cache_dir, env) if cache_dir else None
    facts = course.facts
    results: dict[str, FactResult] = {}
    to_run: list[Fact] = []
    for fact in facts:
        cached = cache.get(fact, controls) if cache else None
        if cached:
            results[fact.id] = _result(course, fact, *cached)
        elif outside_range(fact, env["torch"]):
            results[fact.id] = _result(course, fact, "skip", f"torch {env['torch']} is outside {fact.torch}",
                                       [TORCH_RANGE], ("skip", "about another release") if controls else None)
        else:
            to_run.append(fact)
    if progress and len(results):
        progress(len(results))
    hello = cache.hello if cache and cache.hello else None
    if to_run:
        worker = worker or WorkerClient(interpreter)
        hello = worker.run(to_run, timeout, course, results, progress, controls)
        if cache:
            cache.store(hello, [(f, results[f.id]) for f in to_run])
    if hello is None:  # every fact was outside its range, nothing ran
        hello = {"torch": env["torch"], "python": env["python"], "capabilities": {}}
    ordered = {f.id: results[f.id] for f in facts}
    date = cache.oldest_date(facts) if cache else _today()
    return Verification(hello["torch"], hello["python"], hello["capabilities"], date or _today(), ordered,
                        hello.get("build") or {})


def probe(interpreter: str) -> dict:
    """The target's fingerprint, read without importing torch."""
    try:
        done = subprocess.run([interpreter, "-c", _PROBE, ",".join(ENVIRONMENT_PREFIXES)], capture_output=True,
                              text=True, timeout=60, env=_worker_environment())
    except (OSError, subprocess.TimeoutExpired) as err:
        raise VerifyError(f"cannot run {interpreter}: {err}") from None
    if done.returncode != 0:
        raise VerifyError(f"{interpreter} failed to start:\n{done.stderr.strip()}")
    env = json.loads(done.stdout)
    if env is None:
        raise VerifyError(f"{interpreter} has no torch installed (try: {interpreter} -m pip install torch==2.13.0)")
    return env


def outside_range(fact: Fact, version: str) -> bool:
    if not fact.torch:
        return False
    from packaging.specifiers import SpecifierSet
    from packaging.version import InvalidVersion, Version

    try:
        release = Version(version).public.split("+")[0]
        return Version(release) not in SpecifierSet(fact.torch)
    except InvalidVersion:
        return False


def _result(course: Course, fact: Fact, status: str, detail: str, needs, control=None,
            pristine: bool = True) -> FactResult:
    origin = course.where(fact.id, "facts")
    rivals = ()
    if control and len(control) == 3:  # a cached control result carries its rivals' verdicts
        rivals = _rivals(fact, control[2])
    return FactResult(fact.id, status, printable(detail), origin.file, origin.line, tuple(needs),
                      (control[0], printable(control[1])) if control else None, rivals, pristine)


class WorkerClient:
    """torchdeck's side of the worker protocol: it starts the worker process (early: it imports torch
    while the content loads), sends one request and reads the messages back."""

    def __init__(self, interpreter: str):
        self.interpreter = interpreter
        # a temporary folder of its own (each checker gets one inside it): whatever the worker, the
        # compiler stack or a check leaves in temporary files goes when the worker is done
        self.scratch: Optional[str] = tempfile.mkdtemp(prefix="torchdeck-verify-")
        # its own process group: cancelling ends the worker and every checker it forked
        self.process = subprocess.Popen(
            [interpreter, str(WORKER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, env={**_worker_environment(), "TMPDIR": self.scratch}, start_new_session=True)

    def cancel(self) -> None:
        """Stop the worker and its checkers: not needed (every fact cached, bad content), or interrupted.

        SIGTERM first: the worker then ends each check's process group (what a check started
        included); whatever is left of the worker's own group is killed after a second.
        """
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=1)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
        self._remove_scratch()

    def _remove_scratch(self) -> None:
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None

    def exchange(self, request: dict) -> Iterator[dict]:
        """Send ``request``; yield each message the worker sends back (a hello, a result, a control),
        never a line that is not one. A second result for one check is yielded as ``{"index": i,
        "forged": True}``: something other than the worker wrote to its pipe."""
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None  # started with pipes
        try:
            stdin.write(json.dumps(request))
            stdin.close()
        except BrokenPipeError:
            pass  # it died starting up: ``finish`` reports its stderr
        reported: set[int] = set()
        for line in stdout:
            message = _message(line, len(request["checks"]))
            if message is None:
                continue
            if "index" in message and "control" not in message:
                if message["index"] in reported:
                    message = {"index": message["index"], "forged": True}
                reported.add(message["index"])
            yield message

    def finish(self) -> str:
        """Wait for the worker to exit; what it wrote to stderr."""
        stderr = self.process.stderr.read() if self.process.stderr is not None else ""
        self.process.wait()
        self._remove_scratch()
        return stderr.strip()

    def run(self, facts, timeout, course, results, progress, controls=False) -> dict:
        """Send the checks, collect one result per fact into ``results``; returns the worker's hello.

        With ``controls``, every result also gets its control (``skip`` where the fact did not pass).
        """
        request = {"timeout": timeout, "controls": controls,
                   "checks": [worker_item(f, controls) for f in facts]}
        hello = None
        for message in self.exchange(request):
            if "hello" in message:
                hello = message["hello"]
                continue
            fact = facts[message["index"]]
            if message.get("forged"):
                results[fact.id] = _result(course, fact, "error", "two results arrived for this fact: one was "
                                           "forged (a check that reached the worker's pipe?)", [], pristine=False)
            elif "control" in message:
                results[fact.id] = dataclasses.replace(results[fact.id],
                                                       control=(message["control"], printable(message["detail"])),
                                                       rivals=_rivals(fact, message.get("rivals", [])))
            else:
                skipped = message["status"] == "skip"
                needs = skip_needs(fact, hello["capabilities"]) if skipped and hello else []
                results[fact.id] = _result(course, fact, message["status"], message["detail"], needs,
                                           pristine=message.get("pristine") is True)
                if progress:
                    progress(1)
        if controls:
            for fact in facts:
                result = results.get(fact.id)
                if result is not None and result.control is None:
                    reason = f"the fact's status here is {result.status}" if result.status != "pass" else "not run"
                    results[fact.id] = dataclasses.replace(result, control=("skip", reason))
        stderr = self.finish()
        if hello is None:
            raise VerifyError(f"the fact-check worker failed under {self.interpreter}:\n{stderr[-2000:]}")
        for fact in facts:
            if fact.id not in results:
                results[fact.id] = _result(course, fact, "error", f"the worker stopped early: {stderr[-300:]}", [])
        return hello

    def run_items(self, items: list, timeout: float) -> list[tuple[str, str]]:
        """``(status, detail)`` for each raw worker item (``{"check", "requires"}``), in order."""
        results: dict[int, tuple[str, str]] = {}
        for message in self.exchange({"timeout": timeout, "checks": items}):
            if message.get("forged"):
                results[message["index"]] = ("error", "two results arrived: one was forged")
            elif "index" in message and "control" not in message:
                results[message["index"]] = (message["status"], printable(message["detail"]))
        stderr = self.finish()
        return [results.get(i, ("error", f"the worker stopped early: {stderr[-300:]}")) for i in range(len(items))]


def _message(line: str, count: int) -> Optional[dict]:
    """A line of the worker's as a message (hello, a result or a control), or None where it is not one."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict):
        return None
    if "hello" in message:
        return message if isinstance(message["hello"], dict) else None
    index = message.get("index")
    if not (isinstance(index, int) and 0 <= index < count and isinstance(message.get("detail"), str)):
        return None
    if "control" in message:
        return message if message["control"] in CONTROLS else None
    return message if message.get("status") in STATUSES else None


def _rivals(fact: Fact, verdicts: list) -> tuple:
    """``(belief, verdict, detail)`` for each of the fact's rivals, from the worker's ``[verdict, detail]``."""
    return tuple((rival.belief, verdict, printable(detail)) for rival, (verdict, detail) in zip(fact.rivals, verdicts))


def worker_item(fact: Fact, controls: bool = False) -> dict:
    """What the worker needs to know of a fact: its check and the capabilities it requires or excludes
    (with ``controls``, its written control too)."""
    item: dict[str, Any] = {"check": fact.check.as_dict(), "requires": list(fact.requires)}
    if fact.timeout:
        item["timeout"] = fact.timeout
    if fact.unless:
        item["unless"] = list(fact.unless)
    if controls and fact.control:
        item["control"] = fact.control.as_dict()
    if controls and fact.rivals:
        item["rivals"] = [{"belief": rival.belief, "world": rival.world} for rival in fact.rivals]
    return item


def skip_needs(fact: Fact, capabilities: dict) -> list[str]:
    """Why a fact was skipped, as capability names: ``cuda`` (missing here) or ``without:cuda-built``
    (a capability this torch has that the fact's claim is about lacking)."""
    return ([c for c in fact.requires if not capabilities.get(c)]
            + [f"without:{c}" for c in fact.unless if capabilities.get(c)])


def _worker_environment() -> dict:
    """The caller's environment, with OpenMP threads that sleep rather than spin when idle:
    the worker's children share the cores, and a spinning pool in one starves the other."""
    return {"OMP_WAIT_POLICY": "PASSIVE", **os.environ, "PYTHONWARNINGS": "ignore"}


def start_worker_if_cold(python: Optional[str], cache_dir: Optional[Path]) -> Optional[WorkerClient]:
    """A worker started now, before the content is loaded, when no cached result can be expected."""
    cold = cache_dir is None or not any(Path(cache_dir).glob("verify-*.json"))
    if not cold:
        return None
    try:
        return WorkerClient(python or sys.executable)
    except OSError:
        return None  # no such interpreter: the probe reports it cleanly


def _valid_entry(entry) -> bool:
    """``[status, detail, needs, date]`` as ``_Cache.store`` writes it."""
    return (isinstance(entry, list) and len(entry) == 4 and entry[0] in STATUSES and isinstance(entry[1], str)
            and isinstance(entry[2], list) and all(isinstance(n, str) for n in entry[2])
            and isinstance(entry[3], str))


def _valid_control(entry) -> bool:
    """``[control, detail, [[verdict, detail], ...]]`` as the cache stores it."""
    return (isinstance(entry, list) and len(entry) == 3 and entry[0] in CONTROLS and isinstance(entry[1], str)
            and isinstance(entry[2], list) and all(isinstance(r, list) and len(r) == 2 and r[0] in RIVAL_VERDICTS
                                                    and isinstance(r[1], str) for r in entry[2]))


@functools.lru_cache(maxsize=None)
def _mutants_hash() -> str:
    """The code that decides a control's verdict: the worker's (how a check's failure is judged, the
    changes ``mutants.py`` makes)."""
    code = b"".join(path.read_bytes() for path in sorted(WORKER.glob("*.py")))
    return hashlib.sha256(code).hexdigest()[:16]


def _today() -> str:
    return datetime.date.today().isoformat()


class _Cache:
    """One JSON file per interpreter fingerprint: ``{hello, facts: {key: [status, detail, needs, date]},
    controls: {control key: [control, detail]}}``."""

    def __init__(self, folder: Path, env: dict):
        name = hashlib.sha256(json.dumps(env, sort_keys=True).encode()).hexdigest()[:20]
        self.path = Path(folder) / f"verify-{name}.json"
        self.hello, self.entries, self.controls = self._read()
        self._keys: dict[str, str] = {}  # fact id -> key: each fact's hash is taken once per run

    def _read(self) -> tuple[Optional[dict], dict, dict]:
        """``(hello, entries)`` from the file; what is not of the expected shape is reported and dropped,
        never trusted (a dropped fact is simply checked again)."""
        try:
            text = self.path.read_text()
        except OSError:
            return None, {}, {}
        try:
            data = json.loads(text)
            hello, facts = data["hello"], data["facts"]
            if not (isinstance(hello, dict) and isinstance(hello.get("capabilities"), dict)
                    and isinstance(hello.get("torch"), str) and isinstance(facts, dict)):
                raise ValueError("not a verify cache")
        except (ValueError, KeyError, TypeError):
            print(f"warning: {self.path}: corrupt verify cache ignored; every fact is checked again", file=sys.stderr)
            return None, {}, {}
        entries = {key: entry for key, entry in facts.items() if _valid_entry(entry)}
        if len(entries) != len(facts):
            print(f"warning: {self.path}: {len(facts) - len(entries)} corrupt cache entries ignored; "
                  "those facts are checked again", file=sys.stderr)
        controls = data.get("controls")
        controls = {key: entry for key, entry in controls.items() if _valid_control(entry)} \
            if isinstance(controls, dict) else {}
        return hello, entries, controls

    def key(self, fact: Fact) -> str:
        key = self._keys.get(fact.id)
        if key is None:
            key = self._keys[fact.id] = fact.check_key()
        return key

    def control_key(self, fact: Fact) -> str:
        """The fact's control key and the changes a control run makes (``mutants.py``): editing either
        runs the controls again."""
        return hashlib.sha256((fact.control_key() + _mutants_hash()).encode()).hexdigest()[:24]

    def get(self, fact: Fact, controls: bool = False):
        """``(status, detail, needs, control)`` of a cached fact; None where it must run (with ``controls``,
        also where its control result is not cached)."""
        entry = self.entries.get(self.key(fact))
        if entry is None or self.hello is None:
            return None
        control = self.controls.get(self.control_key(fact)) if controls else None
        if controls and control is None:
            return None
        return entry[0], entry[1], entry[2], control

    def oldest_date(self, facts) -> Optional[str]:
        entries = (self.entries.get(self.key(f)) for f in facts)
        dates = [entry[3] for entry in entries if entry is not None]
        return min(dates) if dates else None

    def store(self, hello: dict, fresh) -> None:
        """Keep passes, fails and skips from pristine checkers; errors (timeouts, crashes), and any result
        of a checker where another check had run, are retried next run."""
        self.hello = hello
        today = _today()
        for fact, result in fresh:
            if result.status != "error" and result.pristine:
                self.entries[self.key(fact)] = [result.status, result.detail, list(result.needs), today]
                if result.control and not (result.control[0] == "skip" and result.status == "pass"):
                    self.controls[self.control_key(fact)] = [*result.control,
                                                             [[v, d] for _, v, d in result.rivals]]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.path, json.dumps({"hello": hello, "facts": self.entries, "controls": self.controls}))
