"""The extension's layers, and the imports between its modules: only downward, never in a circle.

The order, from the bottom: ``solver`` (pure numpy) <- ``props`` (Blender's data model of
Reach: property groups, preferences, typed access) <- ``bridge`` (by concept, each folder one
step of the data flow, listed below in their order) <- ``panels`` <- ``operators`` <- ``cli``
(the command-line commands) <- the package's ``__init__``. A module may import from its own
folder or from any folder below it.

Every ``import`` statement of every module counts: at module level, inside a function, and
under ``if TYPE_CHECKING:`` (a type-only import still ties the two modules' meaning together).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOP = ("solver", "props", "bridge", "panels", "operators", "cli")

#: Bottom to top; a module's layer is the longest entry its dotted name starts with.
LAYERS = (
    "solver",
    "props",
    "bridge",  # the package's docstring only
    "bridge.errors",
    "bridge.blender",
    "bridge.blender_ik",
    "bridge.loops",
    "bridge.rig",
    "bridge.measure",
    "bridge.write",
    "bridge.edit",
    "bridge.solve",
    "bridge.bake",
    "bridge.session",
    "bridge.joined",  # several armatures as one system: above the sessions it joins
    "bridge.envelope",
    "bridge.live",
    "bridge.overlay",
    "panels",
    "operators",
    "cli",  # the command-line commands (blender --command reach_bake ...)
    "",  # the extension's __init__: registers everything
)


def _name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    found = {"": ROOT / "__init__.py"}
    for top in TOP:
        for path in (ROOT / top).rglob("*.py"):
            found[_name(path)] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """The extension's modules that ``name`` imports, by any statement anywhere in it."""
    package = name.split(".") if name else []
    if path.name != "__init__.py":
        package = package[:-1]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name in MODULES and a.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                base += node.module.split(".") if node.module else []
            else:
                base = node.module.split(".") if node.module else []
                if base[0] not in TOP:
                    continue  # numpy, bpy, the standard library
            prefix = ".".join(base)
            for alias in node.names:
                sub = f"{prefix}.{alias.name}" if prefix else alias.name
                out.add(sub if sub in MODULES else prefix)
    out.discard(name)
    return out


IMPORTS = {name: _imports(name, path) for name, path in MODULES.items()}


def layer(name: str) -> int:
    """The index in :data:`LAYERS` of the layer ``name`` belongs to."""
    best = max(
        (entry for entry in LAYERS if name == entry or name.startswith(entry + ".") or not entry),
        key=len,
    )
    return LAYERS.index(best)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_modules_are_found() -> None:
    """The walk sees the whole extension (a wrong root would pass every check below)."""
    assert {"solver.solve", "props.groups", "bridge.rig.build", "operators.solve_ops"} <= set(
        MODULES
    )
    assert "bridge.rig.joints" in IMPORTS["bridge.rig.build"]


def test_no_import_circles() -> None:
    assert cycles(IMPORTS) == []


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_only_go_down(name: str) -> None:
    upward = sorted(other for other in IMPORTS[name] if layer(other) > layer(name))
    assert upward == [], f"{name} (layer {LAYERS[layer(name)]!r}) imports from above it"


def test_the_cycle_check_finds_a_circle() -> None:
    """The checks can fail: a two-module circle is found, and so is an upward import."""
    assert cycles({"a": {"b"}, "b": {"a"}, "c": set()}) == [["a", "b"]]
    assert layer("bridge.live.posing") > layer("bridge.rig.build")


def test_folders_stay_small() -> None:
    """One concept per folder: no folder of the bridge or the solver (the solver's own top
    level included) holds more than 12 modules."""
    folders = [ROOT / "solver"]
    for top in ("bridge", "solver"):
        folders += [f for f in (ROOT / top).iterdir() if f.is_dir() and f.name != "__pycache__"]
    for folder in folders:
        modules = [p for p in folder.glob("*.py") if p.name != "__init__.py"]
        assert len(modules) <= 12, folder.relative_to(ROOT)


def test_solver_never_imports_blender() -> None:
    for name, path in MODULES.items():
        if layer(name) == 0:
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    assert all(a.name.split(".")[0] not in {"bpy", "mathutils"} for a in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    assert node.module.split(".")[0] not in {"bpy", "mathutils"}, name
