"""The solver is pure numpy, and the extension's root package imports without Blender."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOLVER = ROOT / "solver"
BLENDER_MODULES = {"bpy", "mathutils", "bmesh", "bpy_extras", "gpu", "bgl", "blf", "aud"}

# A meta-path finder that makes any Blender import fail loudly in the child process.
BLOCK_BLENDER = f"""
import sys
class _NoBlender:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {sorted(BLENDER_MODULES)!r}:
            raise ImportError(f"Blender module {{name!r}} imported")
        return None
sys.meta_path.insert(0, _NoBlender())
"""


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module":
            if node.args and isinstance(node.args[0], ast.Constant):
                names.add(str(node.args[0].value).split(".")[0])
    return names


def test_solver_sources_exist() -> None:
    assert len(list(SOLVER.rglob("*.py"))) >= 3


@pytest.mark.parametrize(
    "path", sorted(SOLVER.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT))
)
def test_solver_never_imports_blender(path: Path) -> None:
    found = _imported_modules(path) & BLENDER_MODULES
    assert not found, f"{path.relative_to(ROOT)} imports {sorted(found)}"


def test_solver_uses_relative_imports_only() -> None:
    """Inside Blender the solver lives under ``bl_ext.<repo>.<id>``: no absolute self-imports."""
    offenders = [
        str(p.relative_to(ROOT)) for p in SOLVER.rglob("*.py") if "solver" in _imported_modules(p)
    ]
    assert not offenders, f"absolute 'solver' imports in {offenders}"


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", BLOCK_BLENDER + code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_root_package_imports_without_blender() -> None:
    """The extension's ``__init__.py`` loads by path with every Blender module blocked."""
    code = f"""
import importlib.util
spec = importlib.util.spec_from_file_location(
    "reach_ik_root", {str(ROOT / "__init__.py")!r},
    submodule_search_locations=[{str(ROOT)!r}])
module = importlib.util.module_from_spec(spec)
sys.modules["reach_ik_root"] = module
spec.loader.exec_module(module)
assert callable(module.register) and callable(module.unregister)
print("ok")
"""
    done = _run(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_solver_imports_and_solves_without_blender() -> None:
    code = """
import solver
fig = solver.Figure()
fig.add_segment("a")
fig.add_revolute("a", (0, 0, 1))
goal = solver.PositionGoal((0.0, 1.0, 0.0))
result = solver.solve(fig, [solver.Constraint(solver.EndEffector("a", (1, 0, 0)), goal)])
assert result.success, result
loaded = {m.split(".")[0] for m in sys.modules}
assert not loaded & {"bpy", "mathutils", "bmesh"}, loaded
print("ok")
"""
    done = _run(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
