"""Smoke test of the benchmark harness: correctness only, no timings.

A few targets of the 3-DOF chain and the 7-DOF arm go through every non-Blender peer;
the harness must grade every solve and compute the solve rates, and the report and the
plots must be written. Also: the chain geometry means the same thing to the spec's own
forward kinematics, to the solver's Figure and to ikpy.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from bench.cases import chain_cases, peers
from bench.chains import arm7, direction_errors_degrees, forward, sample_targets, serial_chain
from bench.figures import build_figure, figure_tip
from bench.harness import ChainCase, run_case
from bench.metrics import grade, summarize
from bench.peers.base import Attempt
from bench.peers.ikpy_peer import build_ikpy_chain
from bench.peers.reach import ReachModel

SPECS = [serial_chain(3), serial_chain(7), serial_chain(30), arm7()]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: f"{s.n}-{''.join(s.axes[:3])}")
def test_forward_kinematics_agree_between_spec_figure_and_ikpy(spec):
    figure, joints = build_figure(spec)
    chain = build_ikpy_chain(spec)
    rng = np.random.default_rng(5)
    for _ in range(5):
        angles = rng.uniform(np.array(spec.lower) - 1.0, np.array(spec.upper) + 1.0)
        position, rotation = forward(spec, angles)
        coords = np.array(
            [dict(zip(joints, angles, strict=True))[c] for c in figure.coordinate_names]
        )
        tip = figure_tip(figure, spec, coords)
        ik = chain.forward_kinematics(np.concatenate([[0.0], angles, [0.0]]))
        np.testing.assert_allclose(tip[:3, 3], position, atol=1e-9)
        np.testing.assert_allclose(tip[:3, :3], rotation, atol=1e-9)
        np.testing.assert_allclose(ik[:3, 3], position, atol=1e-9)
        np.testing.assert_allclose(ik[:3, :3], rotation, atol=1e-9)


def test_rest_pose_points_up_and_link_frame_is_blender_bone_frame():
    spec = serial_chain(3)
    position, rotation = forward(spec, np.zeros(3))
    np.testing.assert_allclose(position, [0.0, 0.0, spec.reach], atol=1e-12)
    np.testing.assert_allclose(rotation @ [0, 0, 1], [0.0, -1.0, 0.0], atol=1e-12)


def test_targets_are_deterministic_and_within_limits():
    spec = serial_chain(10)
    a, b = sample_targets(spec, 20), sample_targets(spec, 20)
    np.testing.assert_array_equal(a.positions, b.positions)
    assert np.all(a.angles >= np.array(spec.lower)) and np.all(a.angles <= np.array(spec.upper))
    assert np.linalg.norm(a.positions, axis=1).max() <= spec.reach + 1e-12


def test_scipy_objective_is_the_retargeted_reach_objective():
    spec = arm7()
    model = ReachModel(spec, orientation=True)
    targets = sample_targets(spec, 3)
    problem = model.solver.problem
    for angles, position, rotation in zip(
        targets.angles, targets.positions, targets.rotations, strict=True
    ):
        model.retarget(position, rotation)
        coords = np.array(
            [dict(zip(model.joints, angles, strict=True))[c] for c in model.figure.coordinate_names]
        )
        value, gradient = problem.value_and_gradient(problem.from_coordinates(coords))
        assert value < 1e-20
        assert np.linalg.norm(gradient) < 1e-8
        assert problem.value(problem.from_coordinates(model.seed)) > 1e-6


def test_grading_counts_limits_timeouts_and_orientation():
    spec = arm7()
    targets = sample_targets(spec, 1)
    angles, position, rotation = targets.angles[0], targets.positions[0], targets.rotations[0]
    exact = grade(spec, Attempt(angles, 0.001), 0, position, rotation)
    assert exact.solved and exact.position_error < 1e-12 and exact.angle_error < 1e-9
    outside = angles.copy()
    outside[0] = spec.upper[0] + 1e-3
    over = grade(spec, Attempt(outside, 0.001), 0, *forward(spec, outside))
    assert over.outcome == "limits" and math.isclose(over.violation, 1e-3, rel_tol=1e-6)
    timeout = grade(spec, Attempt(None, 5.0, error="timeout (over)"), 0, position, rotation)
    assert timeout.outcome == "timeout" and math.isinf(timeout.position_error)
    twist = angles.copy()
    twist[-1] += np.radians(0.02)  # last joint twists the tip about its own axis
    turned = grade(spec, Attempt(twist, 0.001), 0, position, rotation)
    assert turned.position_error < 1e-12 and turned.outcome == "missed"
    assert turned.angle_error == pytest.approx(0.02, rel=1e-6)
    summary = summarize("x", [exact, over, timeout, turned], planned=4)
    assert (summary.solved, summary.attempted, summary.rate) == (1, 4, 0.25)
    assert summary.outcomes["limits"] == 1 and summary.outcomes["timeout"] == 1


def test_direction_error_is_the_angle_between_axes():
    r = forward(arm7(), np.zeros(7))[1]
    c, s = np.cos(np.radians(1.0)), np.sin(np.radians(1.0))
    turned = r @ np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    assert direction_errors_degrees(turned, r) == pytest.approx(1.0, rel=1e-9)


@pytest.fixture(scope="module")
def smoke_runs():
    cases = {c.name: c for c in chain_cases(count=3, dofs=(3,))}
    chosen = [cases["chain-3"], ChainCase("arm-7 pose", arm7(), orientation=True, count=3)]
    return [
        run_case(case, peers(blender=False), budget=60.0, log=lambda _: None) for case in chosen
    ]


def test_every_non_blender_peer_returns_graded_results(smoke_runs):
    expected = {"Reach IK", "scipy SLSQP", "scipy trust-constr", "scipy L-BFGS-B", "ikpy"}
    for case_run in smoke_runs:
        assert {r.name for r in case_run.runs} == expected
        solved_by_someone = set()
        for run in case_run.runs:
            assert run.unavailable is None
            assert [r.index for r in run.records] == [0, 1, 2]
            assert all(r.outcome != "error" for r in run.records), run.records
            s = run.summary()
            assert s.attempted == 3 and s.rate == s.solved / 3
            assert s.max_violation <= 1e-7
            solved_by_someone |= {r.index for r in run.records if r.solved}
        # The targets are reachable by construction: some peer reaches each of them.
        assert solved_by_someone == {0, 1, 2}


def test_report_and_plots_are_written(smoke_runs, tmp_path):
    from bench import plots
    from bench.acceptance import chain_checks
    from bench.report import BenchRun, write_results

    plots.time_vs_dof(smoke_runs, tmp_path / "t.png")
    plots.residuals(smoke_runs, tmp_path / "r.png")
    plots.rate_vs_tolerance(smoke_runs, tmp_path / "s.png", ("chain-3", "arm-7 pose"))
    run = BenchRun(chains=smoke_runs, tasks=[], tracks=[], checks=chain_checks(smoke_runs))
    write_results(run, tmp_path / "RESULTS.md")
    text = (tmp_path / "RESULTS.md").read_text()
    assert "Machine:" in text and "| chain-3 |" in text and "| arm-7 pose |" in text
    for name in ("Reach IK", "scipy SLSQP", "ikpy"):
        assert f"| {name} |" in text
    assert all((tmp_path / f).stat().st_size > 1000 for f in ("t.png", "r.png", "s.png"))
