#!/bin/sh
# The GPU run, on a machine with an NVIDIA GPU and a python3 that has torch (nothing else needed):
#
#   here:        torchdeck ledger export --controls build/gpu/checks.pyz   (--controls: rivals' worlds too)
#   GPU machine: sh tools/gpu-run.sh build/gpu/checks.pyz OUT       (from a copy of this checkout)
#   here:        torchdeck ledger import OUT/results.jsonl
#
# It runs every exported check once, timed, and keeps what a reader of the results needs:
# results.jsonl (the worker's JSON lines, its hello naming torch, CUDA, cuDNN, driver and device),
# stderr.log, machine.txt (nvidia-smi, python, torch) and summary.txt (counts, seconds, exit code).
set -u
checks=${1:?usage: sh tools/gpu-run.sh CHECKS.py OUTDIR}
out=${2:?usage: sh tools/gpu-run.sh CHECKS.py OUTDIR}
python=${PYTHON:-python3}
mkdir -p "$out"
{
  echo "## nvidia-smi"; nvidia-smi 2>&1 || echo "(no nvidia-smi)"
  echo "## python"; "$python" -VV 2>&1
  echo "## torch"; "$python" -c 'import torch; print(torch.__version__, torch.version.cuda, torch.backends.cudnn.version(), torch.cuda.is_available())' 2>&1
  echo "## opt_einsum"; "$python" -c 'import opt_einsum; print(opt_einsum.__version__)' 2>&1 | tail -1
} > "$out/machine.txt"
start=$(date +%s)
PYTHONUNBUFFERED=1 "$python" -I "$checks" > "$out/results.jsonl" 2> "$out/stderr.log"
status=$?
seconds=$(( $(date +%s) - start ))
"$python" - "$out/results.jsonl" "$status" "$seconds" > "$out/summary.txt" <<'PY'
import collections, json, sys
counts, controls, hello, failed = collections.Counter(), collections.Counter(), {}, []
for line in open(sys.argv[1]):
    message = json.loads(line)
    if "hello" in message:
        hello = message["hello"]
    elif "control" in message:  # exported with --controls: the check in its rivals' worlds
        controls[message["control"]] += 1
        if message["control"] != "caught":
            failed.append("control %s %s: %s" % (message["control"], message.get("id"), message.get("detail", "")[:300]))
    elif "status" in message:
        counts[message["status"]] += 1
        if message["status"] in ("fail", "error"):
            failed.append("%s %s: %s" % (message["status"], message.get("id"), message.get("detail", "")[:300]))
build = hello.get("build", {})
print("torch %s, python %s, device %s, CUDA %s, cuDNN %s, driver %s" % (
    hello.get("torch"), hello.get("python"), build.get("device"), build.get("cuda"), build.get("cudnn"),
    build.get("driver")))
print("exit %s after %s s: %s" % (sys.argv[2], sys.argv[3], ", ".join("%d %s" % (n, s) for s, n in sorted(counts.items()))))
if controls:
    print("controls: " + ", ".join("%d %s" % (n, s) for s, n in sorted(controls.items())))
print("\n".join(failed))
PY
cat "$out/summary.txt"
exit "$status"
