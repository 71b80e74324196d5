"""Controls: a check must fail when what it reads from torch is changed, or its written control must fail."""
from __future__ import annotations

import pytest
import torch
import yaml
from click.testing import CliRunner

from generator.cli import main
from generator.loader import load_course
from generator.verify import verify
from generator.worker import subjects

# a capability this machine lacks (read here, as the worker will): "not-run" requires it, so it is skipped
ABSENT = next(name for name, present in (("cuda", torch.cuda.is_available()),
                                         ("mps", torch.backends.mps.is_available()),
                                         ("cusparselt", torch.backends.cusparselt.is_available())) if not present)

CASES = {
    # id: (check, written control or None, expected control)
    "flag-default": ({"default": "torch.backends.cudnn.enabled", "equals": True}, None, "caught"),
    "exists": ({"exists": "torch.backends.xnnpack"}, None, "caught"),
    "absent": ({"absent": "torch.backends.mkl.is_enabled"}, None, "caught"),
    "type": ({"type": "torch.backends.cudnn.benchmark", "is": "bool"}, None, "caught"),
    "signature": ({"signature": "torch.backends.cuda.preferred_linalg_library", "params": ["backend"]}, None,
                  "caught"),
    "called-result": ({"expr": "torch.backends.mkldnn.is_available()"}, None, "caught"),
    "returns-a-bool": ({"expr": "isinstance(torch.backends.mkldnn.is_available(), bool)"}, None, "caught"),
    "setter-works": ({"snippet": "torch.set_num_threads(1)\nassert torch.get_num_threads() == 1"}, None, "caught"),
    "write-read-back": ({"snippet": "import torch.backends.cudnn as cudnn\ncudnn.benchmark = True\n"
                                    "assert cudnn.benchmark is True"}, None, "caught"),
    "write-refused": ({"raises": "torch.backends.cudnn.enabled = 1", "error": "RuntimeError"}, None, "caught"),
    "raising-call": ({"raises": "torch.backends.cuda.preferred_linalg_library('nope')", "error": "RuntimeError"},
                     None, "caught"),
    "hasattr": ({"expr": "hasattr(torch.backends, 'xnnpack')"}, None, "caught"),
    # the examples of checks that pass whatever torch does
    "accepts-either": ({"expr": "torch.get_num_threads() in (torch.get_num_threads(), 1)"}, None, "missed"),
    "two-runs-agree": ({"snippet": "import torch.nn.functional as F\nx = torch.randn(1, 1, 5, 5)\n"
                                   "w = torch.randn(1, 1, 3, 3)\ntorch.backends.cudnn.benchmark = True\n"
                                   "assert torch.equal(F.conv2d(x, w), F.conv2d(x, w))"}, None, "missed"),
    "whatever-hip-is": ({"expr": "torch.version.hip is None or isinstance(torch.version.hip, str) "
                                 "or torch.version.hip is not None"}, None, "missed"),
    "arithmetic": ({"expr": "2 ** 10 == 1024"}, None, "none"),
    "control-fails": ({"expr": "torch.finfo(torch.float32).eps == 2 ** -23"},
                      {"expr": "torch.finfo(torch.float32).eps == 2 ** -10"}, "caught"),
    "control-passes-too": ({"expr": "torch.finfo(torch.float32).eps < 1"},
                           {"expr": "torch.finfo(torch.float32).eps < 2"}, "missed"),
    "not-run": ({"expr": "torch.cuda.device_count() > 0"}, None, "skip"),
    # a check whose changed worlds only make it crash (flags() raising) is not caught: a crash proves nothing
    "fails-only-by-crashing": ({"snippet": "with torch.backends.cudnn.flags(enabled=False):\n    pass\n"
                                           "assert len('ab') == 2"}, None, "missed"),
}

RIVALS = {
    # id: (check, [(belief, world)], expected control, expected verdicts)
    "rival-ruled-out": ({"default": "torch.backends.cudnn.enabled", "equals": True},
                        [("cuDNN starts disabled", "torch.backends.cudnn.enabled = False")], "caught",
                        ["ruled-out"]),
    "rival-passes": ({"expr": "torch.get_num_threads() >= 1"},
                     [("torch uses one thread", "torch.set_num_threads(1)")], "missed", ["passes"]),
    "rival-crashes": ({"expr": "torch.backends.mkldnn.is_available() in (True, False)"},
                      [("oneDNN has no availability query", "torch.backends.mkldnn.is_available = None")],
                      "missed", ["crashed"]),
    "rival-world-broken": ({"default": "torch.backends.cudnn.enabled", "equals": True},
                           [("cuDNN starts disabled", "torch.backends.cudnn.enabled = False"),
                            ("a world that cannot be built", "raise ValueError('no such world')")],
                           "missed", ["ruled-out", "error"]),
    # a `default` of 'none' read as a (str, Enum) member equal to 'none', which prints as Precision.NONE
    "rival-str-enum-default": ({"default": "torch.backends.mkldnn.matmul.fp32_precision", "equals": "none"},
                               [("the precision reads as an enum member, equal to its string",
                                 "import enum\nclass Precision(str, enum.Enum):\n    NONE = 'none'\n    IEEE = 'ieee'\n"
                                 "real = torch._C._get_fp32_precision_getter\n"
                                 "torch._C._get_fp32_precision_getter = lambda b, op: Precision(real(b, op))")],
                               "caught", ["ruled-out"]),
    # inspect.signature follows __wrapped__: the wrapper a user calls is judged by its own parameters
    "rival-wrapped-signature": ({"signature": "torch.backends.cuda.is_built", "params": []},
                                [("is_built takes an optional device, behind a functools.wraps wrapper",
                                  "import functools\nreal = torch.backends.cuda.is_built\n@functools.wraps(real)\n"
                                  "def is_built(device=None):\n    return real()\ntorch.backends.cuda.is_built = is_built")],
                                "caught", ["ruled-out"]),
    # a forwarder taking (*args, **kwargs) may still drop an argument: only contextmanager's and lru_cache's are
    # pass-throughs
    "rival-forwarder-signature": ({"signature": "torch.backends.mkldnn.set_flags",
                                   "params": ["_enabled", "_deterministic", "_allow_tf32", "_fp32_precision"]},
                                  [("set_flags also takes _verbose, dropped by a decorator",
                                    "import functools\nreal = torch.backends.mkldnn.set_flags\n@functools.wraps(real)\n"
                                    "def set_flags(*args, **kwargs):\n    kwargs.pop('_verbose', None)\n"
                                    "    return real(*args, **kwargs)\ntorch.backends.mkldnn.set_flags = set_flags")],
                                  "caught", ["ruled-out"]),
    # contextmanager's pass-through, with functools.wraps on top pointing __wrapped__ at another function
    "rival-rewrapped-contextmanager": ({"signature": "torch.backends.nnpack.flags", "params": ["enabled"]},
                                       [("nnpack.flags also takes a thread count",
                                         "import contextlib, functools\nreal = torch.backends.nnpack.flags\n"
                                         "@contextlib.contextmanager\ndef flags(enabled=False, threads=1):\n"
                                         "    with real(enabled):\n        yield\n"
                                         "torch.backends.nnpack.flags = functools.wraps(real)(flags)")],
                                       "caught", ["ruled-out"]),
    # an `absent` name that the module's class defines, whose getter raises AttributeError on this build
    "rival-absent-but-defined": ({"absent": "torch.backends.miopen.enabled"},
                                 [("miopen.enabled exists, behind a hook only a ROCm build has",
                                   "def hook():\n    raise AttributeError('no _get_miopen_enabled')\n"
                                   "type(torch.backends.miopen).enabled = torch.backends.ContextProp(hook, hook)")],
                                 "caught", ["ruled-out"]),
    # a callable object whose class sets __signature__: a call runs its __call__, whatever the signature says
    "rival-callable-object-signature": ({"signature": "torch.backends.cuda.is_built", "params": []},
                                        [("is_built takes an optional device, in a callable object that shows the old signature",
                                          "import inspect\nreal = torch.backends.cuda.is_built\nclass IsBuilt:\n"
                                          "    __signature__ = inspect.signature(real)\n"
                                          "    def __call__(self, device=None):\n        return real()\n"
                                          "torch.backends.cuda.is_built = IsBuilt()")],
                                        "caught", ["ruled-out"]),
    # a default read that raises in the rival's world: the value cannot be read as claimed, the check's own failure;
    # the name gone altogether is a crash (a typo must not pass for a refutation)
    "rival-default-read-refused": ({"default": "torch.backends.cudnn.benchmark", "equals": False},
                                   [("benchmark cannot be read without a GPU",
                                     "def refuse():\n    raise RuntimeError('no GPU')\n"
                                     "type(torch.backends.cudnn).benchmark = torch.backends.ContextProp(refuse, torch._C._set_cudnn_benchmark)")],
                                   "caught", ["ruled-out"]),
    "rival-default-name-gone": ({"default": "torch.backends.cudnn.benchmark", "equals": False},
                                [("there is no benchmark flag", "del type(torch.backends.cudnn).benchmark")],
                                "missed", ["crashed"]),
    # a step the claim says works, refused in the rival's world: through succeeds() the check fails at its own
    # assertion; the same step written bare only crashes there
    "rival-refused-step": ({"snippet": "succeeds('switching benchmark on', setattr, torch.backends.cudnn, 'benchmark', True)\n"
                                       "assert torch.backends.cudnn.benchmark is True"},
                           [("benchmark cannot be switched on without a GPU",
                             "def refuse(value):\n    raise RuntimeError('no GPU')\n"
                             "type(torch.backends.cudnn).benchmark = torch.backends.ContextProp(torch._C._get_cudnn_benchmark, refuse)")],
                           "caught", ["ruled-out"]),
    "rival-refused-bare-step": ({"snippet": "torch.backends.cudnn.benchmark = True\n"
                                            "assert torch.backends.cudnn.benchmark is True"},
                                [("benchmark cannot be switched on without a GPU",
                                  "def refuse(value):\n    raise RuntimeError('no GPU')\n"
                                  "type(torch.backends.cudnn).benchmark = torch.backends.ContextProp(torch._C._get_cudnn_benchmark, refuse)")],
                                "missed", ["crashed"]),
}


def write_content(folder, cases):
    facts = []
    for fact_id, (check, control, _) in cases.items():
        fact = {"id": fact_id, "claim": f"claim {fact_id}", "check": check}
        if control:
            fact["control"] = control
        if fact_id == "not-run":
            fact["requires"] = [ABSENT]
        facts.append(fact)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "t.yaml").write_text(yaml.safe_dump({"module": "torch.backends.t", "facts": facts}, sort_keys=False))
    return folder


@pytest.fixture(scope="module")
def controlled(tmp_path_factory):
    folder = write_content(tmp_path_factory.mktemp("content"), CASES)
    return verify(load_course(folder), timeout=5, cache_dir=None, controls=True)


@pytest.mark.parametrize("fact_id", list(CASES))
def test_each_control(controlled, fact_id):
    result = controlled.results[fact_id]
    assert result.control[0] == CASES[fact_id][2], result


def test_a_control_says_what_it_changed(controlled):
    results = controlled.results
    assert results["flag-default"].control[1] == "fails when torch.backends.cudnn.enabled flipped to False"
    assert "torch.get_num_threads does nothing" not in results["setter-works"].control[1]
    assert "torch.set_num_threads does nothing" in results["setter-works"].control[1]
    assert "writes to torch.backends.cudnn.enabled are accepted" in results["write-refused"].control[1]
    assert "conv2d's result shifted" in results["two-runs-agree"].control[1]
    assert "its control passes too" in results["control-passes-too"].control[1]


def test_a_written_name_can_be_made_to_ignore_writes(monkeypatch):
    import sys
    import types

    from generator.worker import resolve
    from generator.worker.mutants import apply, variants

    module = types.ModuleType("fake_backend")
    module.flag = False
    monkeypatch.setitem(sys.modules, "fake_backend", module)
    subject = {"path": "fake_backend.flag", "mode": "value", "written": True}
    change = apply(subject, len(variants(False)), resolve)  # the last variant: writes are ignored
    assert change.described == "fake_backend.flag stays False whatever is written to it"
    module.flag = True
    assert module.flag is False
    assert apply(subject, len(variants(False)) + 1, resolve).described is None  # no such variant


def test_observing_names_are_never_changed():
    found = subjects({"snippet": "import torch.nn.functional as F\nx = torch.randn(2)\n"
                                 "m = torch.backends.cuda.matmul\nassert torch.equal(x, x) and m.allow_tf32 is False\n"
                                 "assert F.relu(x) is not None and getattr(torch.backends.mps, 'is_built')()"})
    paths = [s["path"] for s in found]
    assert "torch.randn" not in paths and "torch.equal" not in paths
    assert {"torch.backends.cuda.matmul.allow_tf32", "torch.nn.functional.relu",
            "torch.backends.mps.is_built"} <= set(paths)
    assert paths[0].startswith("torch.backends")  # the likely subject first


def test_a_control_that_negates_its_check_is_refused(tmp_path):
    folder = write_content(tmp_path / "content", {
        "negated": ({"expr": "torch.version.hip is None"}, {"expr": "torch.version.hip is not None"}, None)})
    result = CliRunner().invoke(main, ["verify", "--content", str(folder), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert "t.yaml:" in result.output and "only negates the check" in result.output


def test_verify_controls_exits_1_on_a_missed_check_and_names_it(tmp_path):
    folder = write_content(tmp_path / "content", {k: CASES[k] for k in ("flag-default", "accepts-either")})
    result = CliRunner().invoke(main, ["verify", "--controls", "--content", str(folder), "--out",
                                       str(tmp_path / "out"), "--json", str(tmp_path / "v.json")])
    assert result.exit_code == 1, result.output
    assert "missed: accepts-either" in result.output
    assert "controls: 1 caught, 1 missed, 0 none, 0 skip" in result.output
    import json

    facts = {f["id"]: f for f in json.loads((tmp_path / "v.json").read_text())["facts"]}
    assert facts["flag-default"]["control"] == "caught" and facts["accepts-either"]["control"] == "missed"


@pytest.fixture(scope="module")
def rivalled(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rivals")
    facts = [{"id": fact_id, "claim": f"claim {fact_id}", "check": check,
              "rivals": [{"belief": belief, "world": world} for belief, world in rivals]}
             for fact_id, (check, rivals, _, _) in RIVALS.items()]
    (folder / "t.yaml").write_text(yaml.safe_dump({"module": "torch.backends.t", "facts": facts}, sort_keys=False))
    return verify(load_course(folder), timeout=5, cache_dir=None, controls=True)


@pytest.mark.parametrize("fact_id", list(RIVALS))
def test_each_rival_world_is_judged_at_the_checks_assertion(rivalled, fact_id):
    result = rivalled.results[fact_id]
    assert result.control[0] == RIVALS[fact_id][2], result
    assert [verdict for _, verdict, _ in result.rivals] == RIVALS[fact_id][3], result.rivals
    assert [belief for belief, _, _ in result.rivals] == [belief for belief, _ in RIVALS[fact_id][1]]


def test_rivals_are_counted(rivalled):
    counts = rivalled.rival_counts()
    assert counts == {"facts": 14, "rivals": 15, "ruled-out": 10, "passes": 1, "crashed": 3, "error": 1}
    assert "no such world" in rivalled.results["rival-world-broken"].control[1]


def test_a_world_that_does_not_compile_is_a_content_error(tmp_path):
    folder = tmp_path / "content"
    folder.mkdir()
    (folder / "t.yaml").write_text(yaml.safe_dump({"module": "torch.backends.t", "facts": [
        {"id": "f", "claim": "c", "check": {"expr": "True"},
         "rivals": [{"belief": "a broken world", "world": "torch.x = ("}]}]}, sort_keys=False))
    result = CliRunner().invoke(main, ["verify", "--content", str(folder), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert "t.yaml:" in result.output and "world does not compile" in result.output
