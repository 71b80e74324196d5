"""The content model: valid files load, every kind of bad input is a clean file:line error."""
from __future__ import annotations

import copy
import os
import textwrap

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.cli import main
from generator.errors import ContentError
from generator.loader import load_course

VALID = {
    "module": "torch.backends.demo",
    "title": {"en": "Demo", "zh": "演示"},
    "order": 5,
    "lessons": [{"id": "demo-lesson", "title": "Lesson", "points": ["one"], "facts": ["demo-fact"]}],
    "facts": [{"id": "demo-fact", "claim": "cudnn exists", "check": {"exists": "torch.backends.cudnn"}}],
    "cards": [{"id": "demo-card", "kind": "basic", "front": "Q", "back": "A", "facts": ["demo-fact"]}],
    "questions": [{
        "id": "demo-q", "kind": "single", "stem": "Which?", "facts": ["demo-fact"],
        "options": [{"text": "a", "correct": True, "why": "because"}, {"text": "b", "why": "not"}],
    }],
}


def write(folder, name, data):
    path = folder / name
    path.write_text(data if isinstance(data, str) else yaml.safe_dump(data, allow_unicode=True, sort_keys=False))
    return path


def problems_for(folder):
    with pytest.raises(ContentError) as caught:
        load_course(folder)
    return caught.value.problems


def test_shipped_content_loads(course):
    assert course.modules and course.facts
    assert [m.order for m in course.modules] == sorted(m.order for m in course.modules)


def test_a_file_with_only_module_and_facts_is_valid(tmp_path):
    write(tmp_path, "x.yaml", {"module": "torch.backends.x", "facts": VALID["facts"]})
    course = load_course(tmp_path)
    assert course.facts[0].claim.get("zh") == "cudnn exists"  # falls back to English
    assert str(course.where("demo-fact", "facts")) == f"{tmp_path / 'x.yaml'}:3"


@pytest.mark.parametrize("text, line, field, message", [
    ("module: torch.backends.x\nfacts:\n  - id: a\n    claim: c\n    check: {exists: torch}\n    sorce: x\n",
     6, "facts[0].sorce", "unknown key"),
    ("module: torch.backends.x\nfacts:\n  - id: a\n    claim: c\n", 3, "facts[0].check", "required key is missing"),
    ("module: torch.backends.x\nfacts:\n  - id: a\n    claim: c\n    check: {default: torch.x}\n",
     5, "facts[0].check", "needs 'equals'"),
    ("module: torch.backends.x\nfacts:\n  - id: a\n    claim: c\n    check: {type: torch.x, is: lst}\n",
     5, "facts[0].check.is", "Input should be"),
    ("module: torch.backends.x\nfacts:\n  - id: a\n    claim: c\n    check: {exists: torch}\n    torch: '>>2'\n",
     6, "facts[0].torch", "PEP 440"),
    ("module: [1, 2]\n", 1, "module", "valid string"),
    ("module: torch.backends.x\ncards:\n  - id: c\n    kind: clozed\n    facts: [a]\n", 4, "cards[0].kind", "does not match any of the expected tags"),
    ("module: torch.backends.x\nfacts:\n  - id: a\n    claim: c\n    check: {exists: torch}\n  - id: a\n    claim: d\n"
     "    check: {exists: torch}\n", 6, "facts[1].id", "duplicate id 'a'"),
    ("module: torch.backends.x\nmodule: torch.backends.y\n", 2, "module", "duplicate key"),
    ("module: torch.backends.x\nfacts: [\n", 3, "", "invalid YAML"),
    ("module: torch.backends.x\nlessons:\n  - id: l\n    title: t\n    game: true\n    table:\n"
     "      columns: [Situation, Pick]\n      rows:\n        - ['ℹ fixed shapes', 'benchmark']\n",
     3, "lessons[0]", "a game's rows are advice by their nature"),
    ("module: torch.backends.x\nlessons:\n  - id: l\n    title: t\n    game: true\n", 3, "lessons[0]",
     "a game needs a table"),
])
def test_bad_input_names_file_line_and_field(tmp_path, text, line, field, message):
    write(tmp_path, "bad.yaml", text)
    problems = problems_for(tmp_path)
    assert any(p.line == line and p.field == field and message in p.message for p in problems), problems
    assert all(p.file.endswith("bad.yaml") for p in problems)


def test_single_choice_needs_exactly_one_correct_option(tmp_path):
    data = copy.deepcopy(VALID)
    data["questions"][0]["options"][1]["correct"] = True
    write(tmp_path, "q.yaml", data)
    messages = [f"{p.field}: {p.message}" for p in problems_for(tmp_path)]
    assert any(m.startswith("questions[0]: ") and "exactly one correct option (found 2)" in m for m in messages)


def test_every_option_needs_a_why(tmp_path):
    data = copy.deepcopy(VALID)
    data["questions"][0]["options"][1].pop("why")
    write(tmp_path, "q.yaml", data)
    messages = [f"{p.field}: {p.message}" for p in problems_for(tmp_path)]
    assert "questions[0].options[1].why: required key is missing" in messages


def test_every_error_of_every_file_is_reported_together(tmp_path):
    bad_ref = copy.deepcopy(VALID)
    bad_ref["cards"][0]["facts"] = ["no-such-fact"]
    write(tmp_path, "a.yaml", bad_ref)
    write(tmp_path, "b.yaml", "module: torch.backends.b\ntitle: {en: x, fr: y}\n")
    (tmp_path / "c.yaml").write_bytes(b"module: torch.backends.c\ntitle: \xff\xfe\n")
    problems = problems_for(tmp_path)
    assert {p.file.rsplit("/", 1)[-1] for p in problems} == {"a.yaml", "b.yaml", "c.yaml"}
    assert any("no fact has the id 'no-such-fact'" in p.message for p in problems)
    assert any(p.line == 2 and "UTF-8" in p.message for p in problems)


def test_duplicate_ids_across_files_name_the_first(tmp_path):
    write(tmp_path, "a.yaml", VALID)
    other = copy.deepcopy(VALID)
    other["module"] = "torch.backends.other"
    write(tmp_path, "b.yaml", other)
    messages = [p.message for p in problems_for(tmp_path)]
    assert any("duplicate id 'demo-fact' (first defined at" in m and "a.yaml" in m for m in messages)


def test_cli_exits_2_without_traceback_and_writes_nothing(tmp_path):
    write(tmp_path, "bad.yaml", "module: torch.backends.x\nfacts:\n  - id: A B\n")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["deck", "--content", str(tmp_path), "--out", str(out)])
    assert result.exit_code == 2
    assert "bad.yaml:3:" in result.output and "Traceback" not in result.output
    assert "problem(s)" in result.output
    assert not out.exists()


# ------------------------------------------------------------ property-based
def _paths(data, prefix=()):
    """Every (path, value) inside nested dicts and lists."""
    yield prefix, data
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _paths(value, prefix + (key,))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _paths(value, prefix + (index,))


def _set(data, path, value):
    target = data
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value


STRING_PATHS = [p for p, v in _paths(VALID) if isinstance(v, str) and p[-1] not in ("en", "zh")
                and p not in (("title",),)]
REQUIRED_PATHS = [("module",), ("facts", 0, "id"), ("facts", 0, "check"), ("cards", 0, "front"),
                  ("questions", 0, "options", 0, "why"), ("questions", 0, "stem"), ("lessons", 0, "title")]
DICT_PATHS = [p for p, v in _paths(VALID) if isinstance(v, dict)]


@st.composite
def invalid_files(draw):
    """Valid content turned invalid in one of several ways; returns the file's bytes."""
    data = copy.deepcopy(VALID)
    how = draw(st.sampled_from(["wrong-type", "missing-key", "unknown-key", "duplicate-id", "bad-bytes", "broken-yaml"]))
    if how == "wrong-type":
        path = draw(st.sampled_from(STRING_PATHS))
        _set(data, path, draw(st.sampled_from([[1, 2], {"x": {"y": 1}}, 3.5, None, True])))
    elif how == "missing-key":
        path = draw(st.sampled_from(REQUIRED_PATHS))
        target = data
        for part in path[:-1]:
            target = target[part]
        del target[path[-1]]
    elif how == "unknown-key":
        path = draw(st.sampled_from(DICT_PATHS))
        target = data
        for part in path:
            target = target[part]
        target[draw(st.sampled_from(["sorce", "Claim", "kindd", "extra_field"]))] = "x"
    elif how == "duplicate-id":
        section = draw(st.sampled_from(["facts", "cards", "questions", "lessons"]))
        data[section].append(copy.deepcopy(data[section][0]))
    text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False).encode()
    if how == "bad-bytes":
        cut = draw(st.integers(0, len(text)))
        text = text[:cut] + draw(st.sampled_from([b"\xff", b"\xc3\x28", b"\x80\x80"])) + text[cut:]
    elif how == "broken-yaml":
        lines = text.split(b"\n")
        index = draw(st.integers(0, len(lines) - 1))
        lines.insert(index, draw(st.sampled_from([b"  - [unclosed", b"\tkey: value", b"key: {a: b", b": :"])))
        text = b"\n".join(lines)
    return how, text


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(invalid_files())
def test_mutated_content_always_gives_a_clean_located_error(tmp_path, case):
    how, text = case
    (tmp_path / "m.yaml").write_bytes(text)
    with pytest.raises(ContentError) as caught:
        load_course(tmp_path)
    assert caught.value.problems, how
    for problem in caught.value.problems:
        assert problem.file.endswith("m.yaml") and problem.line >= 1, (how, problem)
        assert str(problem).startswith(f"{problem.file}:{problem.line}:{problem.col}: ")


def test_cli_reports_mutations_with_exit_code_2(tmp_path):
    (tmp_path / "m.yaml").write_text(textwrap.dedent("""\
        module: torch.backends.x
        facts:
          - id: a
            claim: 12
            check: {exists: torch, equals: 1}
    """))
    result = CliRunner().invoke(main, ["verify", "--content", str(tmp_path), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2, result.output
    assert "m.yaml:4:" in result.output and "m.yaml:5:" in result.output
    assert "2 problem(s)" in result.output


def test_parse_cache_returns_the_same_course_and_notices_edits(tmp_path):
    content, cache = tmp_path / "content", tmp_path / "cache"
    content.mkdir()
    write(content, "a.yaml", VALID)
    first = load_course(content, cache)
    assert list((cache / "parsed").iterdir())
    again = load_course(content, cache)
    assert again.modules == first.modules and again.origins == first.origins
    edited = copy.deepcopy(VALID)
    edited["facts"][0]["claim"] = "edited claim"
    write(content, "a.yaml", edited)
    assert load_course(content, cache).facts[0].claim.en == "edited claim"
    bad = copy.deepcopy(VALID)
    bad["facts"][0]["sorce"] = "x"
    write(content, "a.yaml", bad)
    entries = set((cache / "parsed").iterdir())
    for _ in range(2):  # a bad load writes nothing, and is reported every time
        with pytest.raises(ContentError) as caught:
            load_course(content, cache)
        assert [p.field for p in caught.value.problems] == ["facts[0].sorce"]
    assert set((cache / "parsed").iterdir()) == entries


def test_validated_modules_come_from_the_cache_until_the_file_or_the_code_changes(tmp_path, monkeypatch):
    from generator import loader

    content, cache = tmp_path / "content", tmp_path / "cache"
    content.mkdir()
    write(content, "a.yaml", VALID)
    first = load_course(content, cache)
    (entry,) = (cache / "validated").iterdir()
    validations = []
    real = loader.Module.model_validate
    monkeypatch.setattr(loader.Module, "model_validate", lambda data: validations.append(1) or real(data))
    again = load_course(content, cache)
    assert again.modules == first.modules and again.origins == first.origins and validations == []
    monkeypatch.setattr(loader, "_FINGERPRINT", [b"other code"])  # as after an edit to the package
    assert load_course(content, cache).modules == first.modules and validations == [1]
    assert len(list((cache / "validated").iterdir())) == 2 and entry.exists()


def test_a_cached_module_is_still_checked_against_the_other_files(tmp_path):
    content, cache = tmp_path / "content", tmp_path / "cache"
    content.mkdir()
    write(content, "a.yaml", VALID)
    load_course(content, cache)
    twin = copy.deepcopy(VALID)
    twin["module"] = "torch.backends.twin"
    write(content, "b.yaml", twin)  # the same fact ids again, in a file of its own
    with pytest.raises(ContentError) as caught:
        load_course(content, cache)
    assert any("b.yaml" in p.file and "a.yaml" in p.message for p in caught.value.problems), caught.value.problems


# ------------------------------------------------------------------ hostile content
_LAUGHS = "module: torch.backends.x\na0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 10))
_FACT = "module: torch.backends.x\nfacts:\n  - id: a\n    claim: c\n    check: {exists: torch}\n"


@pytest.mark.parametrize("text, line, message", [
    (_LAUGHS, 3, "aliases (*name) are not allowed"),                      # billion laughs
    ("module: torch.backends.x\nfacts: &a [*a]\n", 2, "aliases (*name) are not allowed"),  # a cycle
    (_FACT.replace("claim: c", "claim: &c c\n    source: *c"), 5, "aliases (*name) are not allowed"),
    ("module: !!python/name:os.system torch.backends.x\n", 1, "YAML tags such as 'tag:yaml.org,2002:python/name:"),
    ("module: torch.backends.x\nfacts: !foo []\n", 2, "YAML tags such as '!foo'"),
    ("module: torch.backends.x\n!!python/object:os.system k: v\n", 2, "YAML tags such as"),
    ("module: torch.backends.x\n<<: {facts: []}\n", 2, "YAML tags such as 'tag:yaml.org,2002:merge'"),
    ("module: torch.backends.x\nsummary: a\x00b\n", 2, "invalid YAML"),    # NUL byte, located on its line
    ("module: torch.backends.x\nsummary: [unclosed\n", 3, "invalid YAML"),
    ("- just\n- a list\n", 1, "a module file is a mapping"),
    ("\ufeffmodule: torch.backends.x\nfacts: 3\n", 2, "facts"),
    ("module: torch.backends.x\nfacts: " + "[" * 5000 + "]" * 5000 + "\n", 2, "nesting depth"),
])
def test_hostile_yaml_is_a_located_error(tmp_path, text, line, message):
    (tmp_path / "x.yaml").write_text(text, encoding="utf-8")
    problems = problems_for(tmp_path)
    assert any(message in p.message or message in str(p) for p in problems), [str(p) for p in problems]
    assert problems[0].file.endswith("x.yaml") and problems[0].line == line, [str(p) for p in problems]


def test_the_billion_laughs_load_is_quick(tmp_path):
    import time

    (tmp_path / "x.yaml").write_text(_LAUGHS * 1)
    started = time.perf_counter()
    problems_for(tmp_path)
    assert time.perf_counter() - started < 5


@pytest.mark.parametrize("make, message", [
    (lambda d: (d / "x.yaml").mkdir(), "a folder, not a module file"),
    (lambda d: (d / "x.yaml").symlink_to(d / "x.yaml"), "cannot read"),            # a symlink loop
    (lambda d: (d / "x.yaml").symlink_to(d / "nowhere.yaml"), "cannot read"),      # dangling
    (lambda d: (d / "x.yaml").write_bytes(b"module: torch.backends.x\n" + b"#" * (9 * 1024 * 1024)), "larger than"),
    (lambda d: (d / "x.yaml").write_bytes(b"module: torch.backends.x\nsummary: \xff\n"), "not UTF-8"),
    (lambda d: os.mkfifo(d / "x.yaml"), "not a regular file"),                        # would block forever
    (lambda d: (d / "x.yaml").symlink_to("/dev/zero"), "not a regular file"),         # would never end
])
def test_unreadable_paths_are_located_errors(tmp_path, make, message):
    write(tmp_path, "a.yaml", {"module": "torch.backends.a", "facts": VALID["facts"]})
    make(tmp_path)
    problems = problems_for(tmp_path)
    assert [p.file.rsplit("/", 1)[-1] for p in problems] == ["x.yaml"] and message in problems[0].message
    result = CliRunner().invoke(main, ["lint", "--content", str(tmp_path)])
    assert result.exit_code == 2 and "Traceback" not in result.output and "x.yaml:" in result.output


@pytest.mark.parametrize("text, line", [
    ("module: torch.backends.x\nsummary: " + "[" * 500 + "]" * 500 + "\n", 2),   # flow lists, 500 deep
    ("module: torch.backends.x\nsummary:\n" + "".join(" " * i + "k:\n" for i in range(1, 600)), 43),
])
def test_deep_nesting_is_a_located_error_not_a_recursion_error(tmp_path, text, line):
    (tmp_path / "x.yaml").write_text(text)
    problems = problems_for(tmp_path)
    assert len(problems) == 1 and "nested more than 40 levels deep" in problems[0].message
    assert problems[0].line == line, str(problems[0])
    result = CliRunner().invoke(main, ["lint", "--content", str(tmp_path)])
    assert result.exit_code == 2 and "Traceback" not in result.output and "x.yaml:" in result.output


def test_an_item_is_located_in_its_own_section(tmp_path):
    """A card and a fact may share an id: each is reported where it was written."""
    fact_file = "module: torch.backends.a\nfacts:\n  - id: same\n    claim: c\n    check: {exists: torch}\n"
    card_file = ("module: torch.backends.b\ncards:\n  - {id: same, kind: basic, front: f, back: b, facts: [same]}\n")
    (tmp_path / "b.yaml").write_text(card_file)
    (tmp_path / "a.yaml").write_text(fact_file)
    course = load_course(tmp_path)
    assert str(course.where("same", "facts")) == f"{tmp_path / 'a.yaml'}:3"
    assert str(course.where("same", "cards")) == f"{tmp_path / 'b.yaml'}:3"
