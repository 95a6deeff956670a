"""docs/operators.md names every Reach operator and every option, as the code declares them.

Read without Blender: every ``operators/**/*.py`` is parsed with :mod:`ast`; an operator is a
class whose ``bl_idname`` is ``"<category>.<name>"``, its options the ``bpy.props`` calls
annotated on it or on a base class defined there (a mixin's options count). The page must have
one ``## `bpy.ops.<bl_idname>``` section per operator and, in it, one table row per option
``| `name` | type | `default` | what it does |`` with the code's type and default (and every
value of an enum whose items are a literal table); it must document nothing the code lacks.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
PAGE = REPO_ROOT / "docs" / "operators.md"
OPERATOR_ID = re.compile(r"^[a-z0-9_]+\.[a-z0-9_]+$")  # Menus ("REACH_MT_pose") have no dot.
#: How the page names each ``bpy.props`` type, and Blender's default when none is given.
TYPES = {
    "BoolProperty": ("bool", False),
    "IntProperty": ("int", 0),
    "FloatProperty": ("float", 0.0),
    "StringProperty": ("string", ""),
    "EnumProperty": ("enum", None),  # Blender's default: the first item
}
UNRESOLVED = object()


@dataclass
class Option:
    """One ``bpy.props`` annotation of an operator class."""

    name: str
    kind: str  # the ``bpy.props`` function, e.g. "BoolProperty"
    call: ast.Call
    module: Path


@dataclass
class OperatorClass:
    """A class of ``operators/`` with its own ``bl_idname``, options and base names."""

    name: str
    idname: str | None
    bases: list[str]
    options: list[Option] = field(default_factory=list)


def _python_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


@functools.cache
def _constants() -> dict[str, list[object]]:
    """Module-level ``NAME = <literal>`` of the add-on's Python files, by name: what an
    option's default or enum items may refer to (``bake.TIME_LIMIT``, ``GOAL_TYPES``)."""
    found: dict[str, list[object]] = {}
    files = [REPO_ROOT / "__init__.py"]
    for folder in REPO_ROOT.iterdir():
        if folder.is_dir() and (folder / "__init__.py").exists():
            if folder.name not in {"tests", "bench", "examples"}:
                files += _python_files(folder)
    for path in files:
        for node in ast.parse(path.read_text()).body:
            targets = (
                node.targets
                if isinstance(node, ast.Assign)
                else [node.target]
                if isinstance(node, ast.AnnAssign) and node.value is not None
                else []
            )
            for target in targets:
                if isinstance(target, ast.Name):
                    try:
                        value = ast.literal_eval(node.value)  # type: ignore[arg-type]
                    except ValueError:
                        continue
                    found.setdefault(target.id, []).append(value)
    return found


def _resolve(node: ast.expr, constants: dict[str, list[object]]) -> object:
    """The literal value of ``node``: a literal, or a name (``X``, ``module.X``) bound to one
    literal value in the add-on; UNRESOLVED otherwise."""
    try:
        return ast.literal_eval(node)
    except ValueError:
        pass
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
    values = constants.get(name, []) if name else []
    if values and all(v == values[0] for v in values):
        return values[0]
    return UNRESOLVED


def _classes() -> dict[str, OperatorClass]:
    """Every class of ``operators/`` (nested folders included), by class name."""
    classes: dict[str, OperatorClass] = {}
    for path in _python_files(REPO_ROOT / "operators"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ClassDef):
                continue
            bases = [
                b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases
            ]
            cls = OperatorClass(node.name, None, bases)
            for stmt in node.body:
                if isinstance(stmt, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "bl_idname" for t in stmt.targets
                ):
                    if isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
                        cls.idname = stmt.value.value
                elif (
                    isinstance(stmt, ast.AnnAssign)
                    and isinstance(stmt.target, ast.Name)
                    and isinstance(stmt.annotation, ast.Call)
                ):
                    func = stmt.annotation.func
                    kind = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                    if kind.endswith("Property"):
                        cls.options.append(Option(stmt.target.id, kind, stmt.annotation, path))
            classes[node.name] = cls
    return classes


def _options(cls: OperatorClass, classes: dict[str, OperatorClass]) -> dict[str, Option]:
    """The options of ``cls``, those of its bases (defined in operators/) first."""
    options: dict[str, Option] = {}
    for base in cls.bases:
        if base in classes:
            options.update(_options(classes[base], classes))
    options.update({option.name: option for option in cls.options})
    return options


@functools.cache
def operators() -> dict[str, dict[str, Option]]:
    """``bl_idname`` -> option name -> option, for every operator class."""
    classes = _classes()
    return {
        cls.idname: _options(cls, classes)
        for cls in classes.values()
        if cls.idname is not None and OPERATOR_ID.match(cls.idname)
    }


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _shown(value: object) -> str:
    """A value as the page writes it, the way Python passes it: ``True``, ``10.0``, ``"UP"``."""
    return f'"{value}"' if isinstance(value, str) else repr(value)


def expected_row(option: Option, constants: dict[str, list[object]]) -> tuple[str, str, list[str]]:
    """(type, default, enum values) the page must show for ``option``; a default the code
    gives as an expression no literal resolves is left unchecked ("")."""
    type_name, blender_default = TYPES.get(
        option.kind, (option.kind.removesuffix("Property"), None)
    )
    items = _keyword(option.call, "items")
    values: list[str] = []
    if items is not None:
        table = _resolve(items, constants)
        if isinstance(table, tuple | list):
            values = [item[0] for item in table]
    default_node = _keyword(option.call, "default")
    if default_node is None:
        default = values[0] if option.kind == "EnumProperty" and values else blender_default
        default = UNRESOLVED if default is None else default
    else:
        default = _resolve(default_node, constants)
    return type_name, "" if default is UNRESOLVED else _shown(default), values


def page_sections(text: str) -> dict[str, list[str]]:
    """``## `bpy.ops.X``` section -> its lines, for every such section of the page."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        heading = re.fullmatch(r"## `bpy\.ops\.([a-z0-9_.]+)`", line.strip())
        if heading:
            current = sections.setdefault(heading.group(1), [])
        elif line.startswith("## "):
            current = None
        elif current is not None:
            current.append(line)
    return sections


def option_rows(lines: list[str]) -> dict[str, list[str]]:
    """Table rows ``| `name` | ... |`` of a section: option name -> its cells."""
    rows: dict[str, list[str]] = {}
    for line in lines:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        match = re.fullmatch(r"`([a-z0-9_]+)`", cells[0]) if len(cells) >= 4 else None
        if match:
            rows[match.group(1)] = cells
    return rows


def problems(text: str) -> list[str]:
    """What the page ``text`` gets wrong or leaves out, one line each."""
    constants = _constants()
    code = operators()
    sections = page_sections(text)
    found: list[str] = []
    for idname in sorted(set(sections) - set(code)):
        found.append(f"documents bpy.ops.{idname}, which no operator class declares")
    for idname, options in sorted(code.items()):
        if idname not in sections:
            found.append(f"no '## `bpy.ops.{idname}`' section")
            continue
        rows = option_rows(sections[idname])
        for name in sorted(set(rows) - set(options)):
            found.append(f"bpy.ops.{idname}: documents option '{name}', which the code lacks")
        for name, option in options.items():
            if name not in rows:
                found.append(f"bpy.ops.{idname}: no row for option '{name}'")
                continue
            type_name, default, values = expected_row(option, constants)
            cells = rows[name]
            if cells[1] != type_name:
                found.append(f"bpy.ops.{idname}.{name}: type '{cells[1]}', code: {type_name}")
            if default and cells[2] != f"`{default}`":
                found.append(f"bpy.ops.{idname}.{name}: default {cells[2]}, code: `{default}`")
            if not cells[3]:
                found.append(f"bpy.ops.{idname}.{name}: says nothing about what it does")
            for value in values:
                if f'`"{value}"`' not in cells[3]:
                    found.append(f'bpy.ops.{idname}.{name}: enum value "{value}" not named')
    return found


def test_the_code_declares_the_operators_the_page_is_checked_against() -> None:
    """The parse finds the operators and options a reader knows (so an empty parse, e.g. after
    operators/ moved, cannot make the page check pass vacuously)."""
    code = operators()
    assert {"reach.solve", "reach.bake", "reach.constraint_add"} <= set(code), sorted(code)
    assert {"insert_keys"} <= set(code["reach.solve"])
    assert {"mode", "target", "method", "time_limit"} <= set(code["reach.bake"])
    type_name, default, values = expected_row(code["reach.bake"]["mode"], _constants())
    assert (type_name, default, values) == ("enum", '"REPLACE"', ["REPLACE", "LAYER"])


def test_every_operator_and_option_is_on_the_page() -> None:
    assert problems(PAGE.read_text()) == []


def test_deleting_any_line_of_an_operator_section_is_noticed() -> None:
    """Every heading and table row of the page is load-bearing: without it, the check fails."""
    lines = PAGE.read_text().splitlines()
    checked = 0
    for i, line in enumerate(lines):
        if line.startswith("## `bpy.ops.") or re.match(r"\| `[a-z0-9_]+` \|", line):
            damaged = "\n".join(lines[:i] + lines[i + 1 :])
            assert problems(damaged), f"deleting line {i + 1} goes unnoticed: {line}"
            checked += 1
    assert checked >= 8 + 20, checked  # 8 operators, 20+ options today


def test_a_wrong_default_or_type_or_a_stale_option_is_noticed() -> None:
    text = PAGE.read_text()
    assert problems(
        text.replace("| `insert_keys` | bool | `False` |", "| `insert_keys` | bool | `True` |")
    )
    assert problems(text.replace("| `frame_step` | int |", "| `frame_step` | float |"))
    assert problems(text.replace('`"NEW_STRIP"` a new action', "a new action"))
    stale = text.replace(
        "## `bpy.ops.reach.pin`", "## `bpy.ops.reach.pin`\n\n| `gone` | bool | `False` | x |"
    )
    assert problems(stale)
