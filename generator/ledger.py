"""The verification ledger: results from other interpreters and machines, kept beside the content.

``content/ledger/<run>.json`` holds one run each: which torch (version and build), which
device, when, and for every fact the hash of its check (``Fact.check_key``), its status
and detail. A run is recorded by ``torchdeck verify --record`` or imported from a run of
an exported check file (``torchdeck ledger export``) on a machine where only torch is
installed. An entry whose hash no longer matches its fact's check is stale and ignored:
editing a check invalidates what was recorded for it.
"""
from __future__ import annotations

import errno
import json
import re
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Optional

from .atomic import atomic_write_text
from .errors import BuildError, ContentError, Problem, printable
from .jsonfile import BadJson, read_versioned

if TYPE_CHECKING:
    from .model import Course
    from .verify import Verification

FOLDER = "ledger"
VERSION = 1


def label(torch: str, build: dict, on_device: str = "{torch} on {device}") -> str:
    """``2.15.0+cu132``, or ``2.11.0+cu130 on NVIDIA H100 80GB HBM3`` where a GPU was used: how a run is named
    (``on_device``: the same in another language's words)."""
    device = build.get("device")
    return on_device.format(torch=torch, device=device) if device else torch


@dataclass(frozen=True)
class FactRecord:
    """What one fact's check said in a run: the hash of the check that ran, its status and detail, and why
    it was skipped (``needs``)."""

    hash: str
    status: str
    detail: str = ""
    needs: tuple[str, ...] = ()  # why it was skipped: ("cuda",), ("torch-range",), ("without:cuda-built",)


@dataclass(frozen=True)
class Run:
    """One verification of the content: where it ran, and what each fact's check said there."""

    torch: str
    python: str
    date: str
    build: dict = field(default_factory=dict)
    capabilities: dict = field(default_factory=dict)
    facts: dict[str, FactRecord] = field(default_factory=dict)

    @property
    def device(self) -> Optional[str]:
        return self.build.get("device")

    @property
    def label(self) -> str:
        return label(self.torch, self.build)

    @property
    def file_name(self) -> str:
        slug = re.sub(r"[^a-z0-9.+]+", "-", self.label.lower().replace(" on ", "."))
        return slug.strip("-") + ".json"

    def passed(self, fact_id: str) -> bool:
        entry = self.facts.get(fact_id)
        return entry is not None and entry.status == "pass"

    def verifies(self, fact_ids) -> bool:
        """Whether this run verified an item resting on ``fact_ids`` (``verify.verified_in``)."""
        from .verify import verified_in

        entries = [self.facts.get(f) for f in fact_ids]
        return verified_in((e.status, e.needs) if e else ("missing", ()) for e in entries)

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for entry in self.facts.values():
            counts[entry.status] = counts.get(entry.status, 0) + 1
        return counts

    def current(self, course: Course, keys: Optional[dict[str, str]] = None) -> tuple["Run", int]:
        """This run without the entries whose check has changed since (and ids no longer in the course),
        and how many were dropped. ``keys``: each fact's ``check_key``, where the caller has them."""
        keys = keys if keys is not None else check_keys(course)
        kept = {fact_id: entry for fact_id, entry in self.facts.items() if keys.get(fact_id) == entry.hash}
        return Run(self.torch, self.python, self.date, self.build, self.capabilities, kept), len(self.facts) - len(kept)


def check_keys(course: Course) -> dict[str, str]:
    return {fact.id: fact.check_key() for fact in course.facts}


def run_from_verification(verification: Verification, course: Course) -> Run:
    """The run ``verification`` made, as a ledger records it."""
    results = verification.results
    facts = {fact.id: FactRecord(fact.check_key(), results[fact.id].status, results[fact.id].detail,
                            tuple(results[fact.id].needs))
             for fact in course.facts if fact.id in results}
    return Run(verification.torch, verification.python, verification.date, dict(verification.build),
               dict(verification.capabilities), facts)


# ------------------------------------------------------------------ files
def folder_of(content_dir) -> Path:
    return Path(content_dir) / FOLDER


def load(content_dir, course: Course) -> tuple[Run, ...]:
    """Every recorded run, stale entries dropped, in a stable order (by file name)."""
    folder = folder_of(content_dir)
    if not folder.is_dir():
        return ()
    keys = check_keys(course)
    return tuple(read_run(path).current(course, keys)[0] for path in sorted(folder.glob("*.json")))


def parse_date(value) -> Optional[str]:
    """``value`` where it is a day written ``YYYY-MM-DD``; None otherwise."""
    import datetime

    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return None
    try:
        return datetime.date.fromisoformat(value).isoformat()
    except ValueError:
        return None


def read_run(path: Path) -> Run:
    """The run recorded at ``path``; a ContentError at its file:line where it is not one (exit 2: a ledger
    file is input, checked before anything is written)."""
    line = 1
    text = ""
    try:
        try:
            data, text = read_versioned(path, VERSION)
        except BadJson as err:
            line = err.line
            raise
        if parse_date(data.get("date")) is None:
            line = _line_of(text, "date")
            raise ValueError(f"date {data.get('date')!r} is not a day as YYYY-MM-DD")
        from .verify import STATUSES

        facts = {}
        for k, v in data["facts"].items():
            line = _line_of(text, k)
            if v["status"] not in STATUSES:
                raise ValueError(f"the status of {k!r} is {v['status']!r}, not one of {', '.join(STATUSES)}")
            facts[str(k)] = FactRecord(_text(v["hash"]), _text(v["status"]), _text(v.get("detail", "")),
                                  tuple(_text(n) for n in v.get("needs", ())))
        line = 1
        return Run(_text(data["torch"]), _text(data["python"]), data["date"], dict(data.get("build") or {}),
                   dict(data.get("capabilities") or {}), facts)
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError) as err:
        if isinstance(err, OSError) and err.errno not in (errno.EINVAL, errno.EISDIR):
            raise  # an I/O failure, not a bad ledger file
        reason = err.strerror if isinstance(err, OSError) and err.strerror else err
        raise ContentError([Problem(str(path), line, 1, "", f"not a ledger run ({reason}); restore it from git "
                                                            "or delete it")]) from None


def _line_of(text: str, key: str) -> int:
    at = text.find(encode_basestring(key) + ":")
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


def _text(value) -> str:
    """``value`` as text that any file can hold: a lone surrogate (from a check's message) is escaped."""
    return printable(str(value))


def write_run(content_dir, run: Run) -> Path:
    """Write ``run`` to the ledger (one line per fact, so a review sees which results changed)."""
    path = folder_of(content_dir) / run.file_name
    head = {"version": VERSION, "torch": run.torch, "python": run.python, "date": run.date,
            "build": run.build, "capabilities": run.capabilities, "counts": run.counts()}
    lines = ["{"] + [f"  {encode_basestring(k)}: {json.dumps(v, sort_keys=True)}," for k, v in head.items()]
    lines.append('  "facts": {')
    entries = [f"    {encode_basestring(fact_id)}: "
               + json.dumps({"hash": e.hash, "status": e.status, "detail": e.detail,
                             **({"needs": list(e.needs)} if e.needs else {})}, ensure_ascii=False) + ","
               for fact_id, e in sorted(run.facts.items())]
    if entries:
        entries[-1] = entries[-1].removesuffix(",")
    lines += entries + ["  }", "}"]
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, "\n".join(lines) + "\n")
    return path


# ------------------------------------------------------- export / import
_EXPORTED_MAIN = """\
# torchdeck checks, exported: run with any python that has torch,
#   python3 checks.pyz > results.jsonl
# then bring results.jsonl back and run: torchdeck ledger import results.jsonl
import json
import sys
import traceback

from worker import serve

serve.EXPORTED_REQUEST = json.loads(%r)
try:
    serve.main()
except Exception:
    traceback.print_exc()
    sys.exit(3)
"""


def export_archive(course: Course, timeout: float, controls: bool = False) -> bytes:
    """The worker with every fact's check built in: one zip that any python with torch runs
    (``python3 checks.pyz > results.jsonl``); stdlib and torch only. The same bytes for the same
    content and worker. With ``controls``, each check also runs in its rivals' worlds there."""
    import io
    import zipfile

    from .verify import WORKER, worker_item

    request = {"timeout": timeout, "controls": controls,
               "checks": [{"id": f.id, "hash": f.check_key(), **worker_item(f, controls)} for f in course.facts]}
    files = {"__main__.py": _EXPORTED_MAIN % json.dumps(request, ensure_ascii=True)}
    files.update({f"worker/{path.name}": path.read_text(encoding="utf-8")
                  for path in sorted(WORKER.glob("*.py")) if path.name != "__main__.py"})
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, text.encode("utf-8"))
    return buffer.getvalue()


@dataclass(frozen=True)
class Imported:
    run: Run
    stale: int  # results for checks that have changed since the export (or facts no longer in the content)


def import_results(lines: Iterable[str], course: Course, date: str, where: str = "results") -> Imported:
    """A run from the JSON lines an exported check file printed."""
    from .verify import TORCH_RANGE, outside_range, skip_needs

    hello = None
    facts: dict[str, FactRecord] = {}
    stale = 0
    keys = {fact.id: fact for fact in course.facts}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except ValueError as err:
            raise BuildError(f"{where}:{number}: not a JSON line ({err})") from None
        if not isinstance(message, dict):
            raise BuildError(f"{where}:{number}: expected an object")
        if "hello" in message:
            hello = message["hello"]
            continue
        if "control" in message:  # a control's verdict (an export with --controls): shown there, not recorded
            continue
        if "id" not in message or "status" not in message:
            raise BuildError(f"{where}:{number}: a result without 'id' and 'status' (was the check file exported "
                             "by 'torchdeck ledger export'?)")
        fact = keys.get(message["id"])
        if fact is None or fact.check_key() != message.get("hash"):
            stale += 1
            continue
        status, detail = _text(message["status"]), _text(message.get("detail", ""))
        needs: tuple[str, ...] = ()
        if hello is not None and outside_range(fact, hello["torch"]):
            status, detail, needs = "skip", f"torch {hello['torch']} is outside {fact.torch}", (TORCH_RANGE,)
        elif status == "skip" and hello is not None:
            needs = tuple(skip_needs(fact, hello.get("capabilities") or {}))
        facts[fact.id] = FactRecord(fact.check_key(), status, detail, needs)
    if hello is None:
        raise BuildError(f"{where}: no 'hello' line: the check file did not start (see its error output)")
    return Imported(Run(_text(hello["torch"]), _text(hello["python"]), date, dict(hello.get("build") or {}),
                        dict(hello.get("capabilities") or {}), facts), stale)

