"""Smoke test of the benchmark harness: correctness only, no timings.

A few targets of the 7-DOF arm and the KUKA iiwa go through every non-Blender peer; the
harness must grade every solve and compute the solve rates, and the report and the plots
must be written. Also: the pieces the grading rests on (targets, the residual vector given
to least_squares, the restart loop, the human figure's separate forward kinematics).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from bench.cases import chain_cases, peers
from bench.chains import arm7, to_serial
from bench.harness import run_case
from bench.metrics import grade, summarize
from bench.peers.base import Attempt, with_restarts
from bench.peers.reach import ReachModel
from bench.peers.scipy_peer import residuals_and_jacobian
from bench.serial import forward, quaternion, rotation_about, sample_targets


def test_targets_are_deterministic_and_within_limits():
    chain = to_serial(arm7())
    a, b = sample_targets(chain, 20), sample_targets(chain, 20)
    np.testing.assert_array_equal(a.positions, b.positions)
    assert np.all(a.angles >= chain.lower) and np.all(a.angles <= chain.upper)
    np.testing.assert_allclose(forward(chain, a.angles[3])[0], a.positions[3])


def test_least_squares_residuals_are_the_reach_objective_with_their_jacobian():
    chain = to_serial(arm7())
    model = ReachModel(chain, orientation=True)
    targets = sample_targets(chain, 3)
    problem = model.solver.problem
    rng = np.random.default_rng(2)
    for angles, position, rotation in zip(
        targets.angles, targets.positions, targets.rotations, strict=True
    ):
        model.retarget(position, rotation)
        y_star = problem.from_coordinates(angles)
        value, gradient = problem.value_and_gradient(y_star)
        assert value < 1e-20 and np.linalg.norm(gradient) < 1e-8
        y = y_star + rng.normal(scale=0.3, size=len(y_star))
        r, j = residuals_and_jacobian(problem, y)
        assert float(r @ r) == pytest.approx(problem.value(y), rel=1e-12)
        step = 1e-6
        for k in range(len(y)):
            e = np.zeros(len(y))
            e[k] = step
            central = (
                residuals_and_jacobian(problem, y + e)[0]
                - residuals_and_jacobian(problem, y - e)[0]
            ) / (2 * step)
            np.testing.assert_allclose(j[:, k], central, atol=1e-7)


def test_grading_counts_limits_timeouts_and_orientation_in_radians():
    chain = to_serial(arm7())
    targets = sample_targets(chain, 1)
    angles, position, rotation = targets.angles[0], targets.positions[0], targets.rotations[0]
    exact = grade(chain, Attempt(angles, 0.001), 0, position, rotation)
    assert exact.solved and exact.position_error < 1e-12 and exact.angle_error < 1e-9
    outside = angles.copy()
    outside[0] = chain.upper[0] + 1e-3
    over = grade(chain, Attempt(outside, 0.001), 0, *forward(chain, outside))
    assert over.outcome == "limits" and math.isclose(over.violation, 1e-3, rel_tol=1e-6)
    timeout = grade(chain, Attempt(None, 5.0, error="timeout (over)"), 0, position, rotation)
    assert timeout.outcome == "timeout" and math.isinf(timeout.position_error)
    twist = angles.copy()
    twist[-1] += 2e-3  # the last joint twists the tip about its own axis: 2e-3 rad
    turned = grade(chain, Attempt(twist, 0.001), 0, position, rotation)
    assert turned.position_error < 1e-12 and turned.outcome == "missed"
    assert turned.angle_error == pytest.approx(2e-3, rel=1e-6)
    summary = summarize("x", [exact, over, timeout, turned], planned=4)
    assert (summary.solved, summary.attempted, summary.rate) == (1, 4, 0.25)
    assert summary.outcomes["limits"] == 1 and summary.outcomes["timeout"] == 1


def test_restarts_keep_the_first_try_and_stop_at_success_or_budget():
    lower, upper = np.zeros(2), np.ones(2)
    starts = []

    def attempt(start):
        starts.append(np.array(start))
        return Attempt(np.array(start), 0.01, iterations=3)

    seed = np.full(2, 0.5)
    # Reached on the third try: two restarts, seconds and iterations summed.
    calls = iter([False, False, True])
    out = with_restarts(
        attempt, seed, lower, upper, lambda a: next(calls), 1.0, np.random.default_rng(0)
    )
    assert out.tries == 3 and out.seconds == pytest.approx(0.03) and out.iterations == 9
    np.testing.assert_array_equal(out.single.angles, seed)
    np.testing.assert_array_equal(out.angles, starts[-1])
    assert np.all((starts[1] >= 0) & (starts[1] <= 1)) and not np.allclose(starts[1], seed)
    # Never reached: stops once the summed time passes the budget.
    starts.clear()
    out = with_restarts(
        attempt, seed, lower, upper, lambda a: False, 0.045, np.random.default_rng(0)
    )
    assert out.tries == 5 and len(starts) == 5
    # Reached at once: the first try itself, no single copy.
    out = with_restarts(attempt, seed, lower, upper, lambda a: True, 1.0, np.random.default_rng(0))
    assert out.tries == 1 and out.single is None


def test_quaternion_of_an_axis_angle_rotation():
    axis = np.array([2.0, -1.0, 2.0]) / 3.0
    for angle in (0.0, 0.3, 2.0, math.pi - 1e-3, math.pi):
        q = np.array(quaternion(rotation_about(axis, angle)))
        expected = np.concatenate([math.sin(angle / 2) * axis, [math.cos(angle / 2)]])
        assert min(np.abs(q - expected).max(), np.abs(q + expected).max()) < 1e-12


def test_human_grading_kinematics_agree_with_the_figure():
    from bench.tree_fk import segment_frames
    from examples.human import build_human

    figure = build_human(grouped_spine=True).figure
    lower, upper = figure.coordinate_bounds()
    rng = np.random.default_rng(4)
    for _ in range(3):
        coords = rng.uniform(np.maximum(lower, -2.0), np.minimum(upper, 2.0))
        ours, theirs = segment_frames(figure, coords), figure.forward(coords)
        assert ours.keys() == theirs.keys()
        for name, frame in ours.items():
            np.testing.assert_allclose(frame, theirs[name], atol=1e-12)


@pytest.fixture(scope="module")
def smoke_runs():
    cases = {c.name: c for c in chain_cases(count=3, dofs=())}
    chosen = [cases["arm-7 pose"], cases["iiwa7 pose"]]
    return [
        run_case(case, peers(blender=False), budget=60.0, log=lambda _: None) for case in chosen
    ]


def test_every_non_blender_peer_returns_graded_results(smoke_runs):
    expected = {
        "Reach IK",
        "Reach IK, tolerance 1e-5",
        "TRAC-IK",
        "scipy least_squares",
        "scipy SLSQP",
        "scipy L-BFGS-B",
        "ikpy",
    }
    for case_run in smoke_runs:
        assert {r.name for r in case_run.runs} == expected
        solved_by_someone = set()
        for run in case_run.runs:
            assert run.unavailable is None
            assert [r.index for r in run.records] == [0, 1, 2]
            assert all(r.outcome != "error" for r in run.records), run.records
            s = run.summary()
            assert s.attempted == 3 and s.rate == s.solved / 3
            assert s.solved_single <= s.solved
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
    plots.rate_vs_tolerance(smoke_runs, tmp_path / "s.png", ("arm-7 pose", "iiwa7 pose"))
    run = BenchRun(chains=smoke_runs, tasks=[], tracks=[], checks=chain_checks(smoke_runs))
    write_results(run, tmp_path / "RESULTS.md")
    text = (tmp_path / "RESULTS.md").read_text()
    assert "Machine:" in text and "| iiwa7 pose |" in text and "| arm-7 pose |" in text
    for name in ("Reach IK", "TRAC-IK", "scipy least_squares", "ikpy"):
        assert f"| {name} |" in text
    assert all((tmp_path / f).stat().st_size > 1000 for f in ("t.png", "r.png", "s.png"))


def test_readme_section_is_replaced_in_place(smoke_runs, tmp_path):
    from bench.report import BenchRun, write_readme_section

    readme = tmp_path / "README.md"
    readme.write_text("# T\n\n## How it compares\n\nold figures\n\n## Layout\n\nkept\n")
    write_readme_section(BenchRun(chains=smoke_runs, tasks=[], tracks=[], checks=[]), readme)
    text = readme.read_text()
    assert "old figures" not in text and text.startswith("# T\n\n## How it compares\n")
    assert "| iiwa7 pose |" in text and text.endswith("\n## Layout\n\nkept\n")


def test_a_saved_run_is_rewritten_with_new_notes(smoke_runs, tmp_path):
    from bench.__main__ import main
    from bench.report import SAVED, BenchRun, save_run

    run = BenchRun(chains=smoke_runs, tasks=[], tracks=[], checks=[], notes="old notes")
    save_run(run, tmp_path / SAVED)
    assert main(["--rewrite", "--out", str(tmp_path)]) == 0
    text = (tmp_path / "RESULTS.md").read_text()
    assert "old notes" not in text and run.machine in text and "| iiwa7 pose |" in text


def test_a_reach_restart_makes_its_first_try_a_miss():
    from bench.peers.reach import first_run

    chain = to_serial(arm7())
    targets = sample_targets(chain, 1)
    exact = Attempt(targets.angles[0], 0.01)
    assert first_run(exact, 0) is exact
    restarted = first_run(exact, 2)
    assert restarted.tries == 3
    record = grade(chain, restarted, 0, targets.positions[0], targets.rotations[0])
    assert record.solved and not record.first.solved and record.tries == 3
    summary = summarize("x", [record], planned=1)
    assert (summary.solved, summary.solved_single) == (1, 0)
