"""Docstring cross-references (``:mod:`.goals```, ``:func:`..rig.build.build_rig```) name modules
that exist: a module moved or renamed without its references fails here, not in a reader's head.

A reference with leading dots is relative to the module's package, as an import is; the
Blender side (props, bridge, operators, panels) writes them that way.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = re.compile(r":(?:mod|func|class|meth|data|attr):`~?(\.+)([A-Za-z_][\w.]*)`")


def _dotted(path: Path) -> list[str]:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


MODULES = {
    ".".join(_dotted(p))
    for top in ("solver", "props", "bridge", "operators", "panels", "cli")
    for p in (ROOT / top).rglob("*.py")
}


def unresolved(path: Path, text: str) -> list[str]:
    """The relative references in ``text`` (of the module at ``path``) whose module is missing."""
    package = _dotted(path) if path.name == "__init__.py" else _dotted(path)[:-1]
    missing = []
    for m in REFERENCE.finditer(text):
        dots, names = m.group(1), m.group(2).split(".")
        base = package[: len(package) - len(dots) + 1]
        if not any(".".join(base + names[:i]) in MODULES for i in range(1, len(names) + 1)):
            missing.append(m.group(0))
    return missing


def test_every_relative_reference_names_a_module() -> None:
    stale = [
        f"{path.relative_to(ROOT)}: {ref}"
        for top in ("props", "bridge", "operators", "panels", "cli")
        for path in (ROOT / top).rglob("*.py")
        for ref in unresolved(path, path.read_text(encoding="utf-8"))
    ]
    assert stale == []


def test_a_stale_reference_is_found() -> None:
    path = ROOT / "bridge" / "rig" / "build.py"
    text = "see :mod:`.goals`, :func:`..measure.residuals.measure` and :mod:`.rig_goals`"
    assert unresolved(path, text) == [":mod:`.rig_goals`"]
