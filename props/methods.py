"""The solve methods as Blender offers them: one table of labels, descriptions and numbers.

The items of every method selector (the armature's *Method*, the preferences' default, the
bake operator's ``method``) are built from the solver's registry
(:data:`solver.methods.METHODS`), so a method registered there is offered everywhere. This
table gives each name its label, its tooltip and the number Blender stores in a .blend for
it: numbers never change (a saved file keeps its method when methods are added); 0 and 1
are the values files saved before the selector was named *Method* hold (``hessian``).

Nothing here imports Blender.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..solver.methods import METHODS

#: Solver method name -> (label, description, number stored in .blend files).
METHOD_TEXT: dict[str, tuple[str, str, int]] = {
    "gauss-newton-hybrid": (
        "Gauss-Newton Hybrid",
        "Re-seed from damped Gauss-Newton after good steps (default: fewer iterations)",
        0,
    ),
    "bfgs": ("BFGS (Paper)", "The paper's Appendix as written: identity start, BFGS/DFP", 1),
    "dls": (
        "Damped Least Squares",
        "Steps damped near singular poses (Maciejewski): the damping given, or chosen from "
        "the step limit",
        2,
    ),
    "pinv": (
        "Pseudoinverse",
        "Damped least squares without damping, for comparison: steps jump near singular poses",
        3,
    ),
    "jt": ("Jacobian Transpose", "Steps along the transposed Jacobian times the error", 4),
    "ccd": (
        "Cyclic Coordinate Descent",
        "One joint at a time, from the end-effector towards the root",
        5,
    ),
    "newton": (
        "Newton-Raphson",
        "For exactly constrained setups such as closed linkages: full steps J^-1 F (least "
        "squares otherwise); fast near the answer, start it close (the previous frame)",
        6,
    ),
}

#: Number of the first method the table does not know (so one can still be chosen).
UNKNOWN_BASE = 100

#: ``(identifier, label, description, icon, number)``: an ``EnumProperty`` item.
EnumItem = tuple[str, str, str, str, int]


def method_label(name: str) -> str:
    """The label of solver method ``name`` (the name itself when the table lacks it)."""
    return METHOD_TEXT.get(name, (name, "", 0))[0]


def method_items(names: Iterable[str] = METHODS) -> tuple[EnumItem, ...]:
    """``EnumProperty`` items of the solver methods ``names``, in their order.

    A name missing from :data:`METHOD_TEXT` is still offered, under its own name and a
    number from :data:`UNKNOWN_BASE` (the tests require every registered method in the
    table, so this only bridges the time until it is added).
    """
    items = []
    for index, name in enumerate(names):
        label, description, number = METHOD_TEXT.get(
            name, (name, f"Solver method {name!r}", UNKNOWN_BASE + index)
        )
        items.append((name, label, description, "NONE", number))
    return tuple(items)


__all__ = ["METHOD_TEXT", "EnumItem", "method_items", "method_label"]
