"""Load ``content/*.yaml`` into a validated :class:`Course`.

YAML is parsed with libyaml (fast) into a node tree, so every value keeps its
line and column; pydantic's error locations are mapped back onto them. All
problems of a run are collected and raised together as one ContentError.
"""
from __future__ import annotations

import hashlib
import keyword
import pickle
import sys
from pathlib import Path
from typing import Optional, TypeVar, Union

import yaml
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from .atomic import atomic_write_bytes, read_regular
from .code_text import difference
from .defaults import asserted_default
from .diagrams import DIAGRAM_NAMES
from .errors import ContentError, Problem
from .model import ITEM_SECTIONS, SECTIONS, Course, Fact, FlagRow, Module, Origin, Workshop, WorkshopFile

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
Key = Union[str, int, float]  # a mapping key or a list index (YAML's bool keys are ints)
NodePath = tuple[Key, ...]  # the keys and indices from a file's top to one value
Positions = dict[NodePath, tuple[int, int]]  # each value's line and column
Parsed = tuple[object, Positions]  # a file's plain data and where each value is written
Loaded = tuple[str, Module, Positions]  # a module file's name, its validated module and positions
ModelT = TypeVar("ModelT", bound=BaseModel)


def load_course(content_dir: str | Path, cache_dir: Optional[Path] = None) -> Course:
    """Every module file of ``content_dir``, validated and cross-checked.

    With ``cache_dir``, a file's parsed YAML (data and positions) is kept there under
    the hash of its bytes, so an unchanged file is not parsed again; a module file's validated
    module too, under the hash of its bytes and of this package's code, so an unchanged file is
    not validated again by unchanged code (both only after a load without problems).
    """
    folder = Path(content_dir)
    if not folder.is_dir():
        raise ContentError([Problem(str(folder), 0, 0, "", "no such content folder")])
    files = sorted(folder.glob("*.yaml"))  # a directory or dangling link named x.yaml is reported when read
    workshop_file = folder / WORKSHOPS_FILE
    files = [path for path in files if path.name != WORKSHOPS_FILE]
    if not files:
        raise ContentError([Problem(str(folder), 0, 0, "", "no *.yaml module files in this folder")])
    problems: list[Problem] = []
    loaded: list[Loaded] = []
    to_cache: dict[Path, object] = {}
    checked: set[str] = set()  # files whose module came validated from the cache: code problems checked then
    for path in files:
        result = _load_module_file(path, problems, cache_dir, to_cache, checked)
        if result is not None:
            loaded.append(result)
    origins = _cross_check(loaded, problems)
    problems += [problem for name, module, positions in loaded if name not in checked
                 for problem in _code_problems(name, module, positions)]
    workshops = _load_workshops(workshop_file, problems, cache_dir, to_cache, loaded) \
        if workshop_file.exists() or workshop_file.is_symlink() else ()
    if problems:
        raise ContentError(problems)
    _store_cached(to_cache)  # only a clean load writes anything
    modules = tuple(m for _, m, _ in sorted(loaded, key=lambda t: (t[1].order, t[1].module)))
    return Course(modules, origins, workshops=workshops)


WORKSHOPS_FILE = "workshops.yaml"  # the one content file that is not a module: named selections for a slot


MAX_FILE_BYTES = 8 * 1024 * 1024  # a module file is tens of kilobytes: bound what a load may read
MODULE_SHAPE = "a module file is a mapping with at least 'module'"


def _load_module_file(path: Path, problems: list[Problem], cache_dir: Optional[Path], to_cache: dict[Path, object],
                      checked: set[str]) -> Optional[Loaded]:
    """A module file loaded as ``_load_file`` loads it, or its validated module from the cache (its name
    then added to ``checked``); a fresh one is added to ``to_cache`` for the caller to store."""
    raw = _read_checked(path, problems)
    if raw is None:
        return None
    entry = None
    if cache_dir is not None:
        entry = Path(cache_dir) / "validated" / (hashlib.sha256(_code_fingerprint() + raw).hexdigest()[:32] + ".pickle")
        cached = _read_cached(entry, _is_validated)
        if isinstance(cached, tuple):  # _is_validated checked its shape: (module, positions)
            checked.add(str(path))
            return str(path), cached[0], cached[1]
    result = _load_file(path, problems, cache_dir, to_cache, Module, MODULE_SHAPE, raw)
    if result is not None and entry is not None:
        to_cache[entry] = result[1:]
    return result


def _is_validated(cached: object) -> bool:
    return (isinstance(cached, tuple) and len(cached) == 2 and isinstance(cached[0], Module)
            and isinstance(cached[1], dict))


_FINGERPRINT: list[bytes] = []


def _code_fingerprint() -> bytes:
    """What a validated module depends on besides its file: this package's code (every ``.py`` file of it,
    a few milliseconds to read), the Python, pydantic and Pygments (it reads code samples) that ran it."""
    if not _FINGERPRINT:
        import pydantic
        import pygments

        digest = hashlib.sha256(f"torchdeck-validated-1 {sys.version} {pydantic.VERSION} {pygments.__version__}".encode())
        package = Path(__file__).resolve().parent
        for source in sorted(package.rglob("*.py")):
            digest.update(source.relative_to(package).as_posix().encode() + b"\0" + source.read_bytes() + b"\0")
        _FINGERPRINT.append(digest.digest())
    return _FINGERPRINT[0]


def _read_checked(path: Path, problems: list[Problem]) -> Optional[bytes]:
    """A content file's bytes; None (with the problem recorded) where it cannot be read or is too large."""
    name = str(path)
    try:
        raw = _read_regular(path)
    except OSError as err:
        problems.append(Problem(name, 1, 1, "", f"cannot read: {err.strerror or err}"))
        return None
    if len(raw) > MAX_FILE_BYTES:
        problems.append(Problem(name, 1, 1, "", f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB: not a module file"))
        return None
    return raw


def _load_file(path: Path, problems: list[Problem], cache_dir: Optional[Path], to_cache: dict[Path, object],
               model: type[ModelT], shape: str, raw: Optional[bytes] = None) -> Optional[tuple[str, ModelT, Positions]]:
    """``(file name, validated model, positions)``; None (with problems recorded) where it does not load;
    ``shape`` says what the file should be where its top is no mapping; ``raw``: its bytes, if read already."""
    name = str(path)
    raw = raw if raw is not None else _read_checked(path, problems)
    if raw is None:
        return None
    parsed = _parse_cached(name, raw, problems, cache_dir, to_cache)
    if parsed is None:
        return None
    data, positions = parsed
    if not isinstance(data, dict):
        problems.append(Problem(name, 1, 1, "", shape))
        return None
    try:
        validated = model.model_validate(data)
    except ValidationError as err:
        problems.extend(_problem_from(e, data, positions, name) for e in err.errors())
        return None
    return name, validated, positions


def _read_regular(path: Path) -> bytes:
    return read_regular(path, MAX_FILE_BYTES + 1)


_PARSE_VERSION = b"torchdeck-parse-2"


def _parse_cached(name: str, raw: bytes, problems: list[Problem], cache_dir: Optional[Path],
                  to_cache: dict[Path, object]) -> Optional[Parsed]:
    """``(data, positions)`` of a file's bytes; None (with problems recorded) when it does not parse.

    A fresh parse is added to ``to_cache`` (entry path -> parse) for the caller to store.
    """
    entry = None
    if cache_dir is not None:
        entry = Path(cache_dir) / "parsed" / (hashlib.sha256(_PARSE_VERSION + raw).hexdigest()[:32] + ".pickle")
        cached = _read_cached(entry, _is_parse)
        if cached is not None:
            return cached  # type: ignore[return-value]  # _is_parse checked its shape
    parsed = _parse(name, raw, problems)
    if parsed is not None and entry is not None:
        to_cache[entry] = parsed
    return parsed


def _is_parse(cached: object) -> bool:
    return isinstance(cached, tuple) and len(cached) == 2 and isinstance(cached[0], dict) and isinstance(cached[1], dict)


def _read_cached(entry: Path, valid) -> Optional[object]:
    """A cached value of the shape ``valid`` accepts, or None where there is none; a corrupt entry is
    reported and ignored (the file is loaded again and the entry rewritten), never trusted."""
    try:
        raw = entry.read_bytes()
    except OSError:
        return None
    try:
        cached = pickle.loads(raw)
    except Exception:  # a truncated or foreign pickle raises almost anything
        cached = None
    if valid(cached):
        return cached
    print(f"warning: {entry}: corrupt cache entry ignored; the file is loaded again", file=sys.stderr)
    return None


def _store_cached(to_cache: dict[Path, object]) -> None:
    for entry, value in to_cache.items():
        try:
            atomic_write_bytes(entry, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        except OSError:
            pass  # a read-only build folder only costs speed


def _parse(name: str, raw: bytes, problems: list[Problem]) -> Optional[Parsed]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        problems.append(Problem(name, line, 1, "", f"not UTF-8 text (byte {err.object[err.start]:#x})"))
        return None
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
        line, col = (mark.line + 1, mark.column + 1) if mark else _position_of(text, getattr(err, "position", None))
        message = " ".join(str(getattr(err, "problem", None) or err).split())
        problems.append(Problem(name, line, col, "", f"invalid YAML: {message}"))
        return None
    positions: Positions = {}
    errors_before = len(problems)
    seen: set[object] = set()
    data = _to_python(node, (), positions, name, problems, seen) if node is not None else None
    if _ALIASED in seen:  # located where each alias is used, which the composed nodes do not tell
        problems.extend(Problem(name, event.start_mark.line + 1, event.start_mark.column + 1, "",
                                "aliases (*name) are not allowed in content: write the value out")
                        for event in yaml.parse(text, Loader=_Loader) if isinstance(event, yaml.AliasEvent))
    if len(problems) > errors_before:
        return None
    return data, positions


def _position_of(text: str, offset: object) -> tuple[int, int]:
    """Line and column of a character offset (a reader error, such as a NUL byte, gives only that)."""
    if not isinstance(offset, int):
        return 1, 1
    before = text[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1


# Tags the content's plain YAML resolves to by itself; any other (!foo, !!python/...) is refused.
_PLAIN_TAGS = {f"tag:yaml.org,2002:{name}" for name in ("str", "int", "float", "bool", "null", "map", "seq")}


_ALIASED = "alias met"  # marks ``seen`` when a node was met twice
_TOO_DEEP = "too deep"  # marks ``seen`` once a node deeper than MAX_DEPTH was reported
MAX_DEPTH = 40  # levels of mappings and lists; the course's deepest value is under 10


def _to_python(node: yaml.Node, path: NodePath, positions: Positions, name: str, problems: list[Problem],
               seen: set[object]) -> object:
    """Plain Python data from a YAML node, recording each value's line and column.

    Aliases are refused (YAML composes one node for an anchor and every ``*alias`` of it, so a
    node met twice is an alias): they would let a small file expand without bound, or into a
    cycle. Tags are refused too: content is plain data.
    """
    line, col = node.start_mark.line + 1, node.start_mark.column + 1
    if len(path) > MAX_DEPTH:
        if _TOO_DEEP not in seen:  # once per file: the nodes below are not looked at
            seen.add(_TOO_DEEP)
            problems.append(Problem(name, line, col, _dotted(path[:MAX_DEPTH]),
                                    f"nested more than {MAX_DEPTH} levels deep: content is never that deep"))
        return None
    if id(node) in seen:
        seen.add(_ALIASED)
        return None
    seen.add(id(node))
    if node.tag not in _PLAIN_TAGS:
        problems.append(Problem(name, line, col, _dotted(path), f"YAML tags such as '{node.tag}' are not allowed"))
        return None
    positions[path] = (line, col)
    if isinstance(node, yaml.MappingNode):
        result: dict[Key, object] = {}
        for key_node, value_node in node.value:
            if key_node.tag not in _PLAIN_TAGS:
                problems.append(Problem(name, key_node.start_mark.line + 1, key_node.start_mark.column + 1,
                                        _dotted(path), f"YAML tags such as '{key_node.tag}' are not allowed"))
                continue
            key = _scalar(key_node)
            if not isinstance(key, (str, int, float, bool)) or key is None:
                problems.append(Problem(name, key_node.start_mark.line + 1, key_node.start_mark.column + 1,
                                        _dotted(path), "keys must be plain words"))
                continue
            if key in result:
                problems.append(Problem(name, key_node.start_mark.line + 1, key_node.start_mark.column + 1,
                                        _dotted(path + (key,)), "duplicate key"))
                continue
            result[key] = _to_python(value_node, path + (key,), positions, name, problems, seen)
        return result
    if isinstance(node, yaml.SequenceNode):
        return [_to_python(item, path + (i,), positions, name, problems, seen) for i, item in enumerate(node.value)]
    return _scalar(node)


_constructor = yaml.constructor.SafeConstructor()


def _scalar(node: yaml.Node) -> object:
    if not isinstance(node, yaml.ScalarNode):
        return node
    if node.tag == "tag:yaml.org,2002:str":
        return node.value
    return _constructor.construct_object(node, deep=True)


def _problem_from(error: ErrorDetails, data: object, positions: Positions, name: str) -> Problem:
    """A pydantic error located on the deepest YAML node its ``loc`` reaches."""
    path: NodePath = ()
    node = data
    for part in error["loc"]:
        if isinstance(node, dict) and part in node:
            node, path = node[part], path + (part,)
        elif isinstance(node, list) and isinstance(part, int) and part < len(node):
            node, path = node[part], path + (part,)
        elif isinstance(part, str) and isinstance(node, dict) and _yaml_key(part) in node:
            node, path = node[_yaml_key(part)], path + (_yaml_key(part),)
    if error["type"] == "union_tag_invalid" and isinstance(node, dict) and "kind" in node:
        path += ("kind",)
    line, col = positions.get(path, (1, 1))
    missing_key = error["loc"][-1] if error["type"] == "missing" and error["loc"] else None
    field = _dotted(path + ((missing_key,) if isinstance(missing_key, str) else ()))
    return Problem(name, line, col, field, _message(error))


def _message(error: ErrorDetails) -> str:
    message = error["msg"].removeprefix("Value error, ")
    if error["type"] == "extra_forbidden":
        return "unknown key (a typo?)"
    if error["type"] == "missing":
        return "required key is missing"
    return message


def _yaml_key(name: str) -> str:
    """The YAML key of a model field: ``is_`` is written ``is`` (``model.field_name``)."""
    return name[:-1] if name.endswith("_") and keyword.iskeyword(name[:-1]) else name


def _dotted(path: NodePath) -> str:
    out = ""
    for part in path:
        part = _yaml_key(part) if isinstance(part, str) else part
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _cross_check(loaded: list[Loaded], problems: list[Problem]) -> dict[tuple[str, str], Origin]:
    """Ids unique per kind across files, every reference resolved; returns each item's origin."""
    origins: dict[tuple[str, str], Origin] = {}
    seen: dict[tuple[str, str], Origin] = {}
    modules_seen: dict[str, str] = {}
    for name, module, positions in loaded:
        if module.module in modules_seen:
            problems.append(Problem(name, *positions[("module",)], "module",
                                    f"{module.module} is already defined in {modules_seen[module.module]}"))
        modules_seen[module.module] = name
        for section in SECTIONS:
            for index, item in enumerate(getattr(module, section)):
                line, col = positions[(section, index)]
                origin = Origin(name, line)
                first = seen.get((section, item.id))
                if first:
                    problems.append(Problem(name, line, col, f"{section}[{index}].id",
                                            f"duplicate id '{item.id}' (first defined at {first})"))
                else:
                    seen[(section, item.id)] = origin
                    origins[(section, item.id)] = origin
    fact_ids = {item_id for section, item_id in seen if section == "facts"}
    for name, module, positions in loaded:
        for section in ITEM_SECTIONS:
            for index, item in enumerate(getattr(module, section)):
                for ref_index, ref in enumerate(item.facts):
                    if ref not in fact_ids:
                        line, col = positions[(section, index, "facts", ref_index)]
                        problems.append(Problem(name, line, col, f"{section}[{index}].facts[{ref_index}]",
                                                f"no fact has the id '{ref}'"))
        named: list[tuple[NodePath, str]] = [(("lessons", index, "diagrams", d_index), diagram)
                                             for index, lesson in enumerate(module.lessons)
                                             for d_index, diagram in enumerate(lesson.diagrams)]
        named += [(("cards", index, "diagram"), card.diagram) for index, card in enumerate(module.cards) if card.diagram]
        for path, diagram in named:
            if diagram not in DIAGRAM_NAMES:
                line, col = positions[path]
                where = f"{path[0]}[{path[1]}]." + (f"diagrams[{path[3]}]" if len(path) == 4 else "diagram")
                problems.append(Problem(name, line, col, where,
                                        f"unknown diagram '{diagram}' (known: {', '.join(DIAGRAM_NAMES)})"))
    facts = {fact.id: fact for _, module, _ in loaded for fact in module.facts}
    for name, module, positions in loaded:
        for index, lesson in enumerate(module.lessons):
            for f_index, row in enumerate(lesson.flags):
                problems += _flag_row_problems(row, facts, name, positions, ("lessons", index, "flags", f_index))
    return origins


def _code_problems(name: str, module: Module, positions: Positions) -> list[Problem]:
    """Each code sample written per language whose Chinese version is another program than its English
    one (``code_text.difference``), located on the zh line that differs."""
    found = []
    for section, index, number, holder in module.code_samples():
        at: NodePath = (section, index, "code") + ((number - 1, "code") if section == "lessons" else ())
        differs = difference(holder.code, holder.language)
        if differs is not None:
            zh_line, message = differs
            line, col = positions[at + ("zh",)]
            found.append(Problem(name, _text_line(name, line, col) + zh_line, col, _dotted(at + ("zh",)), message))
    return found


def _text_line(name: str, line: int, col: int) -> int:
    """The line a scalar's text starts on: the next one for a block scalar (``|``, ``>``), whose node starts
    at its indicator."""
    try:
        written = Path(name).read_text(encoding="utf-8").splitlines()[line - 1]
    except (OSError, IndexError, UnicodeDecodeError):
        return line
    return line + 1 if written[col - 1:col] in ("|", ">") else line


def _flag_row_problems(row: FlagRow, facts: dict[str, Fact], name: str, positions: Positions,
                       at: NodePath) -> list[Problem]:
    """A cheat-table row's facts resolved, and its ``default`` fact one whose check asserts the flag's default."""
    field = f"lessons[{at[1]}].flags[{at[3]}]"
    found = []
    for ref_index, ref in enumerate(row.facts):
        if ref not in facts:
            found.append(Problem(name, *positions[at + ("facts", ref_index)], f"{field}.facts[{ref_index}]",
                                 f"no fact has the id '{ref}'"))
    if row.default not in facts:
        found.append(Problem(name, *positions[at + ("default",)], f"{field}.default",
                             f"no fact has the id '{row.default}'"))
    elif asserted_default(facts[row.default].check, row.flag) is None:
        found.append(Problem(name, *positions[at + ("default",)], f"{field}.default",
                             f"fact '{row.default}' does not assert the default of {row.flag}: cite one whose check "
                             f"is 'default: {row.flag}', or asserts its value before anything changes torch"))
    return found


def _load_workshops(path: Path, problems: list[Problem], cache_dir: Optional[Path], to_cache: dict[Path, object],
                    loaded: list[Loaded]) -> tuple[Workshop, ...]:
    """The workshops of ``workshops.yaml``, each lesson and question it names resolved, ids unique, and
    a break in every workshop of two hours or more (``workshops.schedule`` is the one timing)."""
    from .workshops import BREAK_FROM, total_minutes

    result = _load_file(path, problems, cache_dir, to_cache, WorkshopFile,
                        "a workshops file is a mapping with 'workshops': a list of workshops")
    if result is None:
        return ()
    name, parsed, positions = result
    lessons = {lesson.id: lesson for _, module, _ in loaded for lesson in module.lessons}
    questions = {q.id for _, module, _ in loaded for q in module.questions}
    before = len(problems)
    seen: dict[str, int] = {}
    for index, workshop in enumerate(parsed.workshops):
        where = ("workshops", index)
        if workshop.id in seen:
            problems.append(Problem(name, *positions[where + ("id",)], f"workshops[{index}].id",
                                    f"duplicate id '{workshop.id}' (first defined at {name}:{seen[workshop.id]})"))
        seen.setdefault(workshop.id, positions[where][0])
        for s_index, step in enumerate(workshop.agenda):
            at = where + ("agenda", s_index)
            field = f"workshops[{index}].agenda[{s_index}]"
            if step.lesson is not None and step.lesson not in lessons:
                problems.append(Problem(name, *positions[at + ("lesson",)], f"{field}.lesson",
                                        f"no lesson has the id '{step.lesson}'"))
            for q_index, question in enumerate(step.questions):
                if question not in questions:
                    problems.append(Problem(name, *positions[at + ("questions", q_index)],
                                            f"{field}.questions[{q_index}]", f"no question has the id '{question}'"))
        repeated = sorted({x for x in workshop.lesson_ids if workshop.lesson_ids.count(x) > 1})
        if repeated:
            problems.append(Problem(name, *positions[where + ("agenda",)], f"workshops[{index}].agenda",
                                    f"lesson {', '.join(repeated)} comes more than once"))
    if len(problems) > before:
        return ()
    course = Course(tuple(module for _, module, _ in loaded))
    for index, workshop in enumerate(parsed.workshops):
        minutes = total_minutes(workshop, course)
        if minutes >= BREAK_FROM and not any(step.break_ for step in workshop.agenda):
            problems.append(Problem(name, *positions[("workshops", index, "agenda")], f"workshops[{index}].agenda",
                                    f"a workshop of {minutes} minutes (from {BREAK_FROM}) needs a 'break: MINUTES' step"))
    return tuple(parsed.workshops)
