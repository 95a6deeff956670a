"""Every solver method is offered in Blender under its own label, with a stable number."""

from __future__ import annotations

import importlib
from types import ModuleType

from tests.bridge_stubs import PACKAGE, bridge_module


def _modules() -> tuple[ModuleType, ModuleType]:
    bridge_module("blender.compat")  # imports the checkout as the package PACKAGE
    return (
        importlib.import_module(f"{PACKAGE}.props.methods"),
        importlib.import_module(f"{PACKAGE}.solver.methods"),
    )


def test_every_registered_method_has_a_label_and_description() -> None:
    table, solver_methods = _modules()
    missing = [name for name in solver_methods.METHODS if name not in table.METHOD_TEXT]
    assert not missing, f"solver methods without a label in operators/methods.py: {missing}"
    for name in solver_methods.METHODS:
        label, description, _number = table.METHOD_TEXT[name]
        assert label and label != name and description


def test_items_follow_the_registry_with_unique_stable_numbers() -> None:
    table, solver_methods = _modules()
    items = table.method_items()
    assert [item[0] for item in items] == list(solver_methods.METHODS)
    numbers = [number for *_rest, number in table.METHOD_TEXT.values()]
    assert len(set(numbers)) == len(numbers)
    # Files saved before the selector was renamed hold these numbers (``hessian``).
    assert table.METHOD_TEXT["gauss-newton-hybrid"][2] == 0
    assert table.METHOD_TEXT["bfgs"][2] == 1


def test_a_method_missing_from_the_table_is_still_offered() -> None:
    table, _solver_methods = _modules()
    items = table.method_items(["bfgs", "not-in-the-table"])
    assert items[0] == ("bfgs", "BFGS (Paper)", table.METHOD_TEXT["bfgs"][1], "NONE", 1)
    assert items[1][0] == items[1][1] == "not-in-the-table"
    assert items[1][4] == table.UNKNOWN_BASE + 1
