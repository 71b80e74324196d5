"""Controls: would a passing check notice were its claim false? Each rival's world, else changes to
what the check reads (``mutants``), must make it fail at its own assertion."""

from .kinds import _mutants, subjects
from .supervise import supervise


# ---------------------------------------------------------------- controls
class _Trials:
    """The changes tried on one check, one at a time: each subject's variants in turn until one is caught."""

    def __init__(self, subjects, limit):
        self.subjects = subjects
        self.position = 0
        self.pending = [0]
        self.limit = limit
        self.tried = []
        self.caught = None

    def next(self):
        """``{"subject", "variant"}`` to try next, or None when done."""
        if self.caught is not None:
            return None
        while self.position < len(self.subjects) and len(self.tried) < self.limit:
            if self.pending:
                return {"subject": self.subjects[self.position], "variant": self.pending[0]}
            self.position += 1
            self.pending = [0]
        return None

    def record(self, status, at, change, seen):
        variant = self.pending.pop(0)
        if change is None:  # the variant did not apply: on to the next subject, or to a call's other kinds
            if variant == 0 and seen in ("none", "context"):
                self.pending = ["no-effect", "raise"]
            else:
                self.pending = []
            return
        self.tried.append(change)
        if status == "fail" and at == "assertion":  # a crash in a changed world proves nothing
            self.caught = change
        elif isinstance(variant, int):
            self.pending.append(variant + 1)


def run_controls(items, statuses, timeout, slots, send, relay=None):
    """For each check that passed: every rival world it names must make it fail at its own assertion
    (``caught``, else ``missed``); without rivals, its written control must fail, or else changes to
    what it reads must make it fail, under the same rule (``caught``, ``missed``, or ``none`` where it
    reads nothing that can be changed). Sends ``{"index", "control", "detail", "rivals"}`` for each,
    ``rivals`` a ``[verdict, detail]`` per rival: ``ruled-out``, ``passes``, ``crashed`` or ``error``."""
    mutants = _mutants()
    passed = [index for index, item in enumerate(items) if statuses.get(index) == "pass"]
    worlds = [(index, rival) for index in passed for rival in items[index].get("rivals", [])]
    verdicts = {}

    def record_world(n, status, detail, at=None, **_):
        verdicts[n] = _rival_verdict(status, detail, at)

    runs = [{"index": n, "check": items[index]["check"], "world": rival["world"],
             "requires": items[index].get("requires", []), "timeout": items[index].get("timeout")}
            for n, (index, rival) in enumerate(worlds)]
    if runs:
        supervise(runs, timeout, record_world, slots, relay)
    by_fact = {}
    for n, (index, _) in enumerate(worlds):
        by_fact.setdefault(index, []).append(verdicts.get(n, ("error", "no result")))
    trials = {}
    for index in passed:
        item = items[index]
        if item.get("rivals"):
            found = by_fact.get(index, [])
            missed = [(item["rivals"][i].get("belief", "rival %d" % (i + 1)), verdict, detail)
                      for i, (verdict, detail) in enumerate(found) if verdict != "ruled-out"]
            if missed:
                detail = "; ".join("rival '%s' %s%s" % (belief, verdict, (": " + detail) if detail else "")
                                   for belief, verdict, detail in missed)
                send({"index": index, "control": "missed", "detail": detail, "rivals": found})
            else:
                send({"index": index, "control": "caught", "rivals": found,
                      "detail": "fails at its assertion in each of its %d rival world(s)" % len(found)})
            continue
        written = statuses.get(-1 - index)
        if written is not None:
            status, detail, at = written
            if status == "fail" and at == "assertion":
                send({"index": index, "control": "caught", "detail": "its control fails: %s" % detail})
            else:
                send({"index": index, "control": "missed",
                      "detail": "its control %s: the check cannot tell the claim from its rival" %
                                ("passes too" if status == "pass" else "gave %s (%s): %s" %
                                 (status, at or "not at its assertion", detail))})
            continue
        trials[index] = _Trials(subjects(item["check"]), mutants.MAX_TRIES)
    while True:
        batch = [(index, trial.next()) for index, trial in trials.items()]
        batch = [(index, mutate) for index, mutate in batch if mutate is not None]
        if not batch:
            break
        runs = [{"index": n, "check": items[index]["check"], "mutate": mutate,
                 "requires": items[index].get("requires", []), "timeout": items[index].get("timeout")}
                for n, (index, mutate) in enumerate(batch)]

        def record(n, status, detail, at=None, change=None, seen=None, **_):
            trials[batch[n][0]].record(status, at, change, seen)

        supervise(runs, timeout, record, slots, relay)
    for index, trial in trials.items():
        if trial.caught is not None:
            send({"index": index, "control": "caught", "detail": "fails when " + trial.caught})
        elif trial.tried:
            send({"index": index, "control": "missed",
                  "detail": "passes, or fails only by crashing, whatever changes: " + "; ".join(trial.tried)})
        else:
            send({"index": index, "control": "none", "detail": "reads nothing from torch that can be changed"})


def _rival_verdict(status, detail, at):
    """``(verdict, detail)`` of a check run in a rival's world: only a failure at the check's own
    assertion rules the rival out."""
    if status == "fail" and at == "assertion":
        return "ruled-out", detail
    if status == "fail":
        return "crashed", detail
    if status == "pass":
        return "passes", ""
    return "error", detail
