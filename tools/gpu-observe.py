"""What each GPU check saw: runs the snippet of every fact that needs a GPU again, each in a fresh
python, and prints the values it left behind (the kernels a profiler recorded, the errors measured,
the backend chosen), so a reader can tell a check that observed the behaviour from one that passed
without looking.

    here:        python3 tools/gpu-observe.py --write build/gpu/observe.json     (needs torchdeck)
    GPU machine: python3 tools/gpu-observe.py build/gpu/observe.json > observed.jsonl   (stdlib and torch)
"""
import concurrent.futures
import json
import subprocess
import sys

NEEDS_GPU = {"cuda", "cudnn"}

# Runs in the fresh python: the check's code, then every plain value it bound, as short text.
_RUN = r"""
import json, sys, traceback, types
import torch
code = sys.stdin.read()
scope = {"torch": torch, "__name__": "__check__"}
outcome = "pass"
try:
    exec(compile(code, "<check>", "exec"), scope)
except BaseException as err:
    outcome = "raised " + "".join(traceback.format_exception_only(type(err), err)).strip()[:1500]
seen = {}
for name, value in scope.items():
    if name.startswith("__") or isinstance(value, (types.ModuleType, types.FunctionType, type)) or callable(value):
        continue
    if isinstance(value, torch.Tensor):
        value = "tensor%s %s %s" % (tuple(value.shape), value.dtype, value.device)
    text = repr(value)
    seen[name] = text if len(text) <= 600 else text[:597] + "..."
print(json.dumps({"outcome": outcome, "seen": seen}))
"""


def write(path):
    from generator.loader import load_course

    course = load_course("content")
    checks = [{"id": f.id, "check": f.check.as_dict()} for f in course.facts if NEEDS_GPU & set(f.requires)]
    with open(path, "w") as out:
        json.dump(checks, out)
    print("%d GPU checks in %s" % (len(checks), path))


def observe(item):
    check = item["check"]
    code = check.get("snippet") or "__value__ = (%s)" % check.get("expr")
    try:
        done = subprocess.run([sys.executable, "-c", _RUN], input=code, capture_output=True, text=True, timeout=180)
        found = json.loads(done.stdout.strip().splitlines()[-1]) if done.stdout.strip() else {
            "outcome": "no output (exit %s): %s" % (done.returncode, done.stderr[-1500:])}
    except (subprocess.TimeoutExpired, ValueError) as err:
        found = {"outcome": "%s: %s" % (type(err).__name__, err)}
    return {"id": item["id"], **found}


def main(argv):
    if argv[:1] == ["--write"]:
        return write(argv[1])
    items = json.load(open(argv[0]))
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        for found in pool.map(observe, items):
            print(json.dumps(found), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
