"""The README holds up on a fresh clone: its Python snippets run as written, the ``make``
targets it names exist, and every relative link of the README and of docs/ leads somewhere.

The snippets are saved as a file and run from another folder with ``reach_ik_solver``
importable the way ``pip install .`` makes it (the checkout's ``solver/`` under that name,
``pyproject.toml``'s ``package-dir``); ``tests/test_install.py`` does the real install.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
README = REPO_ROOT / "README.md"
#: The pages whose links are checked: the README, the manual, the benchmark history.
PAGES = [README, *sorted((REPO_ROOT / "docs").glob("*.md")), REPO_ROOT / "bench" / "HISTORY.md"]


def _python_blocks(page: Path) -> list[str]:
    """Every fenced ``python`` block of ``page``, in order."""
    return re.findall(r"```python\n(.*?)```", page.read_text(), re.S)


def _installed(folder: Path) -> Path:
    """A folder in which ``import reach_ik_solver`` finds the checkout's solver, as installed."""
    site = folder / "site"
    site.mkdir()
    (site / "reach_ik_solver").symlink_to(REPO_ROOT / "solver", target_is_directory=True)
    return site


def _run(script: str, folder: Path) -> str:
    path = folder / "example.py"
    path.write_text(script)
    env = {**os.environ, "PYTHONPATH": str(_installed(folder))}
    proc = subprocess.run(
        [sys.executable, str(path)], cwd=folder, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_the_readme_snippets_run_as_written(tmp_path: Path) -> None:
    """Every Python block of the README, each run after the ones before it (as a reader
    continues the example): today the arm reaching a grip pose, which reaches it."""
    blocks = _python_blocks(README)
    assert blocks, "the README has a script example"
    out = ""
    for i in range(len(blocks)):
        folder = tmp_path / f"block{i}"
        folder.mkdir()
        out = _run("".join(blocks[: i + 1]), folder)
    assert "GOAL_REACHED" in out, out


def test_the_solver_api_snippets_continue_the_readme_example(tmp_path: Path) -> None:
    """docs/solver-api.md's snippets (the conditioning read-out) continue the README's."""
    blocks = _python_blocks(REPO_ROOT / "docs" / "solver-api.md")
    assert blocks
    _run("".join(_python_blocks(README) + blocks), tmp_path)


def test_the_four_bar_script_runs_as_written(tmp_path: Path) -> None:
    """docs/solver-scripts.md's four-bar (its second block; the first, the Panda's, runs in
    tests/test_install.py): exactly constrained with the crank held, a revolution met at every
    step, one free motion with the crank free."""
    blocks = _python_blocks(REPO_ROOT / "docs" / "solver-scripts.md")
    (four_bar,) = [b for b in blocks if "four-bar" in b]
    out = _run(four_bar, tmp_path).splitlines()
    assert out == [
        "exactly constrained: 2 DOF, 2 independent of 2 equations",
        "2 True",
        "under-constrained: 3 DOF, 2 independent of 2 equations; 1 free motion: 'coupler'",
    ], out


def _make_targets() -> set[str]:
    """Every target a rule of the Makefile names (``a b: pattern: ...`` included)."""
    targets: set[str] = set()
    for line in (REPO_ROOT / "Makefile").read_text().splitlines():
        rule = re.match(r"^([^\s#:=][^:=]*):(?!=)", line)
        if rule:
            targets.update(rule.group(1).split())
    return targets


def _make_commands(text: str) -> set[str]:
    """The targets of the ``make`` commands in ``text``'s code: inline code and ``sh`` blocks
    (not prose such as "make some joints stiffer")."""
    code = re.findall(r"```sh\n(.*?)```", text, re.S)
    code += re.findall(r"`([^`]+)`", re.sub(r"```.*?```", "", text, flags=re.S))
    return {m for c in code for m in re.findall(r"(?:^|[\s;&])make\s+([a-z][a-z0-9_-]*)", c, re.M)}


def test_every_make_target_the_readme_names_exists() -> None:
    named = _make_commands(README.read_text())
    assert {"zip", "demo", "test", "bench", "bench-blender"} <= named, named
    missing = named - _make_targets()
    assert not missing, f"README names make targets the Makefile lacks: {sorted(missing)}"
    assert os.access(REPO_ROOT / ".ci" / "run", os.X_OK), "README names .ci/run"


def test_the_make_check_sees_a_missing_target_and_skips_prose() -> None:
    text = "Joints make some poses stiff.\n\n```sh\nmake demo\n```\n\nThen `make nope BLENDER=45`."
    assert _make_commands(text) == {"demo", "nope"}
    assert _make_commands(text) - _make_targets() == {"nope"}


def _without_code(text: str) -> str:
    return re.sub(r"```.*?```", "", text, flags=re.S)


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors of ``page``'s headings: lower case, punctuation dropped, spaces to
    hyphens, ``-1``, ``-2`` ... on repeats."""
    seen: dict[str, int] = {}
    for heading in re.findall(r"^#+ (.+)$", _without_code(page.read_text()), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        if count:
            seen[f"{slug}-{count}"] = 1
    return set(seen)


def _links(page: Path) -> list[str]:
    return re.findall(r"\]\(([^)\s]+)\)", _without_code(page.read_text()))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_every_relative_link_points_at_an_existing_file(page: Path) -> None:
    broken = []
    for link in _links(page):
        if re.match(r"^[a-z]+:", link):  # https:, mailto:
            continue
        path, _, anchor = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        if not target.exists():
            broken.append(f"{link}: no such file")
        elif anchor and target.suffix == ".md" and anchor not in _anchors(target):
            broken.append(f"{link}: no heading with that anchor")
    assert not broken, broken


def test_the_link_check_sees_a_broken_link(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n[ok](page.md#title) [gone](nowhere.md) [bad](#no-such)\n")
    assert _links(page) == ["page.md#title", "nowhere.md", "#no-such"]
    assert _anchors(page) == {"title"}
    with pytest.raises(AssertionError, match=r"nowhere\.md.*no-such"):
        test_every_relative_link_points_at_an_existing_file(page)


def _quoted_paths_missing(text: str) -> list[str]:
    """The extension's module paths quoted in ``text`` (``bridge/rig/build.py``,
    ``bridge.rig.build``, ``props/``) that name no file or folder of the checkout."""
    missing = []
    for m in re.finditer(r"\b(?:solver|props|bridge|operators|panels)(?:[/.][A-Za-z_]\w*)+", text):
        if re.search(r"\.(md|toml|png|json|txt|html|blend|zip)$", m.group(0)):
            continue  # a page or data file, not a module
        parts = re.split(r"[/.]", m.group(0).removesuffix(".py"))
        path = REPO_ROOT.joinpath(*parts)
        if not (path.is_dir() or path.with_suffix(".py").is_file()):
            # ``bridge.rig.build.build_rig``: a name inside a module is fine
            if not REPO_ROOT.joinpath(*parts[:-1]).with_suffix(".py").is_file():
                missing.append(m.group(0))
    return missing


def test_every_quoted_module_path_exists() -> None:
    """A module path the README or docs/ quote names a file of the checkout (pages do not go
    stale when a module moves: this fails instead)."""
    quoted = [
        f"{page.relative_to(REPO_ROOT)}: {path}"
        for page in PAGES[:-1]  # README and docs/; bench/HISTORY.md may quote old profiles
        for path in _quoted_paths_missing(page.read_text())
    ]
    assert not quoted, quoted


def test_a_stale_module_path_is_found() -> None:
    assert _quoted_paths_missing("see bridge/rig_goals.py and bridge.rig.build") == [
        "bridge/rig_goals.py"
    ]
