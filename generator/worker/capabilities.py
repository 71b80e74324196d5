"""What this torch build and machine can do (``requires``/``unless``), and what it is (CUDA, driver)."""
import re

from .kinds import resolve

# ------------------------------------------------------------- capabilities
# The one list of capabilities a fact may name in ``requires`` or ``unless``: name -> how it is
# detected (what the outputs call it: ``wording.CAPABILITY_NAMES``).
# "X-built" says what the torch build was compiled with; the bare name says X is usable here.
CAPABILITIES = {
    "cuda": "torch.cuda.is_available()",
    "cuda-built": "torch.backends.cuda.is_built()",
    "rocm-built": "torch.version.hip is not None",
    "cudnn": "torch.cuda.is_available() and torch.backends.cudnn.is_available()",
    "cudnn-built": "torch._C._has_cudnn",
    "mps": "torch.backends.mps.is_available()",
    "mps-built": "torch.backends.mps.is_built()",
    "mkl": "torch.backends.mkl.is_available()",
    "mkldnn": "torch.backends.mkldnn.is_available()",
    "openmp": "torch.backends.openmp.is_available()",
    "opt_einsum": "torch.backends.opt_einsum.is_available() and torch.backends.opt_einsum.enabled",
    "cusparselt": "torch.backends.cusparselt.is_available()",
    "kleidiai": "torch.backends.kleidiai.is_available()",
    "nnpack": "torch.backends.nnpack.is_available()",
    "xnnpack": "torch.backends.xnnpack.enabled",
    "triton": "__import__('importlib.util').util.find_spec('triton') is not None",
}


def detect_capabilities():
    """Every capability's value here; a detector that raises counts as absent."""
    import torch

    for name in ("cuda", "cudnn", "mps", "mkl", "mkldnn", "openmp", "opt_einsum", "cusparselt",
                 "kleidiai", "nnpack", "xnnpack"):
        try:
            resolve("torch.backends." + name)  # property modules such as cudnn load on first use
        except Exception:
            pass
    found = {}
    for name, expression in CAPABILITIES.items():
        try:
            found[name] = bool(eval(expression, {"torch": torch}))
        except Exception:
            found[name] = False
    return found


def describe_build():
    """What this torch was built with and which device it sees: the provenance of a run."""
    import platform

    import torch

    def attempt(fn):
        try:
            return fn()
        except Exception:
            return None

    device = attempt(lambda: torch.cuda.get_device_name(0) if torch.cuda.is_available() else None)
    if device is None and attempt(lambda: torch.backends.mps.is_available()):
        device = "Apple MPS"
    found = {"cuda": torch.version.cuda, "hip": getattr(torch.version, "hip", None),
             "cudnn": attempt(lambda: torch.backends.cudnn.version()) if torch.version.cuda else None,
             "device": device, "machine": platform.machine(), "system": platform.system()}
    driver = _nvidia_driver()
    if driver:  # only where an NVIDIA driver is loaded: runs without one record what they always did
        found["driver"] = driver
    return found


def _nvidia_driver():
    """The loaded NVIDIA kernel driver's version (Linux), read without starting CUDA; None elsewhere."""
    try:
        with open("/proc/driver/nvidia/version") as version:
            match = re.search(r"Kernel Module\s+(?:for \S+\s+)?([0-9][0-9.]*)", version.readline())
    except OSError:
        return None
    return match.group(1) if match else None


def skip_reason(item, capabilities):
    """Why a check is not run here, or None: a capability it requires is missing, or one it excludes is present."""
    missing = [c for c in item.get("requires", []) if not capabilities.get(c)]
    if missing:
        return "needs %s (not available here)" % ", ".join(missing)
    present = [c for c in item.get("unless", []) if capabilities.get(c)]
    if present:
        return "holds only without %s (this torch has it)" % ", ".join(present)
    return None
