"""The batch's step under joint limits (issue 21): the guessed active set gives the single
solve's bounded step, problem by problem."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.batch.box import _active_set, _free_step, box_step
from solver.methods.dls import bounded_step


def _case(seed: int, count: int = 40, m: int = 6, n: int = 7):
    rng = np.random.default_rng(seed)
    jacobian = rng.normal(0.0, 1.0, (count, m, n))
    error = rng.normal(0.0, 1.0, (count, m))
    damping = rng.uniform(0.05, 2.0, count)
    sides = rng.choice([-1.0, 0.0, 0.0, 1.0], (count, n))
    return jacobian, error, damping, sides


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_box_step_is_the_single_solves_bounded_step(seed):
    """Each problem's step equals :func:`bounded_step` with its bounds as rows (the single
    solve's active set on the same quadratic programme): the guesses find the unique
    minimiser."""
    jacobian, error, damping, sides = _case(seed)
    fixed = np.zeros(sides.shape[1], dtype=bool)
    steps = box_step(jacobian, error, damping, sides, fixed)
    for b in range(len(sides)):
        on = np.flatnonzero(sides[b])
        rows = np.zeros((len(on), sides.shape[1]))
        rows[np.arange(len(on)), on] = sides[b, on]  # A dz <= 0: no step past the bound
        single = bounded_step(jacobian[b], error[b], damping[b], rows, np.zeros(len(on), bool))
        assert np.allclose(steps[b], single, atol=1e-9), b
        assert (sides[b] * steps[b] <= 1e-12).all()


def test_the_guesses_agree_with_the_batch_active_set_passes():
    """Where the free step leaves a bound, the guessed step is the step of the active set's
    passes from ``dz = 0`` (the batch's own fallback), within rounding."""
    jacobian, error, damping, sides = _case(7, count=200)
    fixed = np.zeros(sides.shape[1], dtype=bool)
    normal = jacobian.swapaxes(1, 2) @ jacobian
    gradient = (error[:, None, :] @ jacobian)[:, 0]
    lam2 = damping * damping
    free = _free_step(normal, gradient, lam2, fixed)
    pushing = (sides * free > 0.0).any(axis=1)
    assert pushing.sum() >= 100  # most cases run the guesses
    passes = _active_set(normal, gradient, lam2, sides, fixed, free)
    guessed = box_step(jacobian, error, damping, sides, fixed)
    assert np.allclose(guessed, passes, atol=1e-10)
