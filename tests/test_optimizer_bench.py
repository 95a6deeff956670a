"""Smoke test of ``bench.optimizer_strategies``: both strategies run on tiny cases.

Counts only (how many targets ran, iterations recorded); never timings.
"""

import math

import pytest

from bench.chains import serial_chain, to_serial
from bench.optimizer_strategies import per_iteration, run_case
from solver.optimizer import HESSIANS


@pytest.mark.parametrize("hessian", HESSIANS)
def test_strategy_comparison_and_per_iteration_run(hessian: str) -> None:
    run = run_case(to_serial(serial_chain(3)), False, hessian, 3)
    assert len(run.solved) == len(run.nit) == len(run.nfev) == 3
    assert all(nfev >= nit for nit, nfev in zip(run.nit, run.nfev, strict=True))
    total, evaluations, optimiser = per_iteration(10, hessian, 2, repeats=1)
    assert math.isclose(total, evaluations + optimiser, rel_tol=1e-9)
    assert evaluations > 0.0
