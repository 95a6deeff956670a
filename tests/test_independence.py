"""Independent groups of constraints (:mod:`solver.analysis.independence`): chains that share
nothing split, chains that move each other's end-effectors or share a row do not, and a group solved
alone leaves every other group's end-effectors and carriers where they were (fuzzed)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import Constraint, EndEffector, Figure, PositionGoal, Solver
from solver.analysis.independence import independent_groups
from tests.solver_checks import figure_cases, random_effector, random_goal


def _two_arms() -> Figure:
    """A torso with two three-segment arms, every segment one revolute joint about Z."""
    fig = Figure()
    fig.add_segment("torso")
    fig.add_revolute("torso", (0.0, 0.0, 1.0), name="torso")
    for side, x in (("L", 1.0), ("R", -1.0)):
        parent = "torso"
        for k in range(3):
            name = f"{side}{k}"
            fig.add_segment(name, parent=parent, translation=(x if k == 0 else 1.0, 0.0, 0.0))
            fig.add_revolute(name, (0.0, 0.0, 1.0), name=name)
            parent = name
    return fig


def _hand(side: str, root: str | None) -> Constraint:
    return Constraint(EndEffector(f"{side}2", (1.0, 0.0, 0.0)), PositionGoal((0, 2, 0)),
                      chain_root=root, name=f"hand {side}")  # fmt: skip


def test_arms_below_a_held_torso_are_independent() -> None:
    solver = Solver(_two_arms(), [_hand("L", "L0"), _hand("R", "R0")])
    assert independent_groups(solver) == [(0,), (1,)]


def test_a_shared_torso_joins_the_arms() -> None:
    solver = Solver(_two_arms(), [_hand("L", None), _hand("R", "R0")])
    assert independent_groups(solver) == [(0, 1)]


def test_a_chain_that_moves_another_end_effector_joins_it() -> None:
    finger = Constraint(EndEffector("L2"), PositionGoal((0, 1, 0)), chain_root="L2", name="f")
    solver = Solver(_two_arms(), [_hand("L", "L0"), finger, _hand("R", "R0")])
    assert independent_groups(solver) == [(0, 1), (2,)]


def test_a_row_across_chains_joins_them() -> None:
    fig = _two_arms()
    fig.add_linear_constraint({"L1": 1.0, "R1": -1.0}, -0.1, 0.1, label="mirror")
    solver = Solver(fig, [_hand("L", "L0"), _hand("R", "R0")])
    assert independent_groups(solver) == [(0, 1)]


def test_disabled_constraints_are_left_out() -> None:
    right = _hand("R", "R0")
    right.enabled = False
    solver = Solver(_two_arms(), [_hand("L", "L0"), right])
    assert independent_groups(solver) == [(0,)]


KINDS = ("position", "orientation", "position_orientation", "aim", "line", "plane")


@settings(max_examples=40, deadline=None)
@given(case=figure_cases(max_segments=6, limits=True), seed=st.integers(0, 2**32 - 1),
       count=st.integers(2, 4))  # fmt: skip
def test_a_group_solved_alone_moves_nothing_of_the_others(case, seed: int, count: int) -> None:
    rng = np.random.default_rng(seed)
    fig = case.figure
    names = list(fig.segment_names)
    start = np.zeros(len(fig.coordinate_names))
    constraints = []
    for k in range(count):
        segment = names[int(rng.integers(len(names)))]
        root = names[int(rng.integers(len(names)))] if rng.random() < 0.5 else None
        while root is not None and not _is_ancestor(case.parents, root, segment):
            root = case.parents[root]
        effector = random_effector(rng, segment)
        kind = KINDS[int(rng.integers(len(KINDS)))]
        goal = random_goal(rng, kind, case, effector, start, None)
        constraints.append(Constraint(effector, goal, chain_root=root, name=f"c{k}"))
    groups = independent_groups(Solver(fig, constraints))
    assert sorted(k for g in groups for k in g) == list(range(count))
    for group in groups:
        alone = Solver(fig, [constraints[k] for k in group], max_iterations=20, restarts=0)
        moved = fig.forward(alone.solve(start).x)
        still = fig.forward(start)
        for k in set(range(count)) - set(group):
            segment = constraints[k].effector.segment
            assert np.allclose(moved[segment], still[segment], atol=1e-12), (group, k)


def _is_ancestor(parents: dict[str, str | None], a: str, s: str | None) -> bool:
    while s is not None:
        if s == a:
            return True
        s = parents[s]
    return False
