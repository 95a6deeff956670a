"""The measuring pass of a batched bake (:mod:`bridge.measure.bulk`) refuses a target matrix
its reading would refuse (not finite, or of zero scale), naming the constraint and target."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from tests.bridge_stubs import bridge_module

bulk = bridge_module("measure.bulk")


class RefusedError(Exception):
    pass


def _bindings() -> list[SimpleNamespace]:
    return [
        SimpleNamespace(
            name=name, target=SimpleNamespace(name=f"{name} target"), error=RefusedError
        )
        for name in ("Hand", "Foot")
    ]


def _matrices() -> np.ndarray:
    out = np.tile(np.eye(4), (5, 2, 1, 1))
    out[:, :, :3, 3] = np.arange(5)[:, None, None]
    return out


def test_finite_matrices_of_some_scale_pass() -> None:
    bulk.check_matrices(_bindings(), _matrices())


@pytest.mark.parametrize("what", ["nan", "zero scale"])
def test_a_refused_matrix_names_its_constraint_target_and_frame(what: str) -> None:
    matrices = _matrices()
    if what == "nan":
        matrices[3, 1, 0, 3] = np.nan
    else:
        matrices[3, 1, :3, 0] = 0.0
    with pytest.raises(
        RefusedError, match=r"Constraint 'Foot': target 'Foot target' .* 4-th measured"
    ):
        bulk.check_matrices(_bindings(), matrices)
