"""What a batch is given, validated: the starts (B, n_coords) and the goal targets of every
problem, each bad input refused with an :class:`InvalidInputError` naming the argument."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .._checks import float_array
from ..errors import InvalidInputError
from ..model.figure import Figure
from .model import BatchModel


def starts_of(figure: Figure, initial: object) -> np.ndarray | None:
    """``initial`` as (B, n_coords) starts, or None."""
    if initial is None:
        return None
    n = len(figure.coordinate_names)
    array = float_array(initial, "initial")
    if array.shape == (n,):
        array = array[None, :]
    if array.ndim != 2 or array.shape[1] != n:
        raise InvalidInputError(f"initial must have shape (B, {n}) or ({n},), got {array.shape}")
    if not np.isfinite(array).all():
        raise InvalidInputError("initial contains NaN or infinity")
    return array


def targets_of(model: BatchModel, targets: Mapping[str, object] | None) -> dict[int, np.ndarray]:
    """The given targets by slot of the model's target table, each (B, 3), validated."""
    if targets is None:
        return {}
    if not isinstance(targets, Mapping):
        raise InvalidInputError(
            f"targets must map constraint names to targets, got {type(targets).__name__}"
        )
    slots = {(s.constraint, s.attribute): k for k, s in enumerate(model.slots)}
    names = {s.constraint for s in model.slots}
    out: dict[int, np.ndarray] = {}
    for name, value in targets.items():
        what = f"targets[{name!r}]"
        if name not in names:
            raise InvalidInputError(f"{what}: no enabled constraint is called {name!r}")
        attributes = [s.attribute for s in model.slots if s.constraint == name]
        if isinstance(value, Mapping):
            items = list(value.items())
        else:
            items = _pose_parts(float_array(value, what), attributes, what)
        for attribute, array in items:
            where = f"{what}[{attribute!r}]"
            if (name, attribute) not in slots:
                raise InvalidInputError(
                    f"{where}: the goal of {name!r} has no such target; it has {attributes}"
                )
            out[slots[name, attribute]] = _vectors(
                array, where, model.slots[slots[name, attribute]].unit
            )
    return out


def _pose_parts(
    poses: np.ndarray, attributes: list[str], what: str
) -> list[tuple[str, np.ndarray]]:
    """The targets of (B, 4, 4) poses (or (B, 3, 3) rotations for an orientation goal)."""
    rotations_only = "point" not in attributes
    if not (
        poses.ndim == 3
        and (poses.shape[1:] == (4, 4) or (rotations_only and poses.shape[1:] == (3, 3)))
    ):
        shape = "(B, 3, 3) or (B, 4, 4)" if rotations_only else "(B, 4, 4)"
        raise InvalidInputError(
            f"{what} must be a mapping or an array of shape {shape}, got {poses.shape}"
        )
    parts = {
        "point": poses[:, :3, 3] if poses.shape[1] == 4 else None,
        "x": poses[:, :3, 0],
        "y": poses[:, :3, 1],
    }
    return [(a, parts[a]) for a in attributes]


def _vectors(value: object, what: str, unit: bool) -> np.ndarray:
    array = float_array(value, what)
    if array.ndim != 2 or array.shape[1] != 3:
        raise InvalidInputError(f"{what} must have shape (B, 3), got {array.shape}")
    if not np.isfinite(array).all():
        raise InvalidInputError(f"{what} contains NaN or infinity")
    if unit:
        norms = np.linalg.norm(array, axis=1)
        if (norms < 1e-12).any():
            raise InvalidInputError(f"{what}: direction {int(np.argmin(norms))} has zero length")
        array = array / norms[:, None]
    return array


def batch_size(given: dict[int, np.ndarray], starts: np.ndarray | None) -> int:
    """B, from the targets and the starts; they must agree and B must be positive."""
    sizes = {len(v) for v in given.values()}
    if starts is not None and len(starts) > 1:
        sizes.add(len(starts))
    if len(sizes) > 1:
        raise InvalidInputError(
            f"targets and initial disagree on the number of problems B: {sorted(sizes)}"
        )
    if not sizes:
        if starts is None:
            raise InvalidInputError(
                "targets: give targets of shape (B, ...) or initial of shape (B, n_coords)"
            )
        sizes = {len(starts)}
    count = sizes.pop()
    if count == 0:
        raise InvalidInputError("targets: a batch needs at least one problem, got B = 0")
    return count


__all__ = ["batch_size", "starts_of", "targets_of"]
