"""The joined figure (``bridge/joined/figure.py``) without Blender: every rig's figure copied
into one, faithfully (forward kinematics, bounds, rigidity, linear rows at random coordinates),
names kept apart, and a joined result split back into each rig's coordinates and residuals."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from tests.bridge_stubs import bridge_module, package_module

solver = package_module("solver")
figure_module = bridge_module("joined.figure")


def _figure(offset: float) -> solver.Figure:
    """A figure with what a rig may hold: two roots' worth of chain, a hinge-like segment that
    does not inherit rotation, limits, rigidity, a joint group and a linear constraint."""
    f = solver.Figure()
    f.add_segment("b0", None, (offset, 0.0, 0.0), rpy=(0.1, 0.2, 0.3))
    f.add_ball("b0", lower=-1.0, upper=1.2, rigidity=0.2)
    f.add_segment("b1", "b0", (0.0, 1.0, 0.0), rpy=(0.0, 0.0, 0.4))
    f.add_revolute("b1", (1.0, 0.0, 0.0), -0.5, 2.0, name="b1.x")
    f.add_prismatic("b1", (0.0, 1.0, 0.0), name="b1.slide")
    f.add_segment("b2", "b1", (0.0, 1.0, 0.0), inherit_rotation=False)
    f.add_revolute("b2", (0.0, 0.0, 1.0), name="b2.z")
    f.add_revolute("b2", (1.0, 0.0, 0.0), name="b2.x")
    f.add_group("b2.spread", ["b2.z", "b2.x"], [[1.0], [0.5]], -0.7, 0.7)
    f.add_linear_constraint({"b0.x": 1.0, "b0.y": 1.0}, -1.5, 1.5, label="b0.swing")
    return f


def _rig(name: str, offset: float) -> SimpleNamespace:
    """A stand-in rig: its figure, one world Position goal on b2's tip, no Reach items."""
    fig = _figure(offset)
    goal = solver.PositionGoal((offset, 2.0, 1.0))
    effector = solver.EndEffector("b2", (0.0, 1.0, 0.0))
    constraint = solver.Constraint(effector, goal, 1.0, None, "tip")
    binding = SimpleNamespace(name="tip", target=None, target_bone="", carrier=None, carry=None,
                              solver_goal=lambda: goal)  # fmt: skip
    obj = SimpleNamespace(name=name, matrix_world=np.eye(4), as_pointer=lambda: id(fig),
                          reach_ik=SimpleNamespace(constraints=[]))  # fmt: skip
    n = len(fig.coordinate_names)
    return SimpleNamespace(
        obj=obj, figure=fig, constraints=(constraint,), bones=("b0", "b1", "b2"),
        specs=(SimpleNamespace(bindings=[binding]),), initial=lambda: np.full(n, 0.1),
    )  # fmt: skip


def test_the_copy_moves_like_each_rig_and_keeps_its_bounds_and_rows() -> None:
    a, b = _rig("A", 0.0), _rig("B", 3.0)  # the same bone names in both
    join = figure_module.JoinedFigure([a, b])
    rng = np.random.default_rng(7)
    lower, upper = join.figure.coordinate_bounds()
    for _ in range(5):
        x = rng.uniform(-0.6, 0.6, len(join.figure.coordinate_names))
        frames = join.figure.forward(x)
        for member in join.members:
            own = member.rig.figure.forward(x[member.coordinates])
            for seg, matrix in own.items():
                joined = frames[figure_module.joined_name(member.rig.obj, seg)]
                np.testing.assert_allclose(joined, matrix, atol=1e-12)
    for member in join.members:
        rig_lower, rig_upper = member.rig.figure.coordinate_bounds()
        np.testing.assert_array_equal(lower[member.coordinates], rig_lower)
        np.testing.assert_array_equal(upper[member.coordinates], rig_upper)
        np.testing.assert_array_equal(
            join.figure.coordinate_rigidity()[member.coordinates],
            member.rig.figure.coordinate_rigidity(),
        )
    rows = {c.label: c for c in join.figure.linear_constraints}
    assert list(rows) == ["A/b0.swing", "B/b0.swing"]
    names = join.figure.joint_names
    for member in join.members:
        own_names = member.rig.figure.joint_names
        for own in member.rig.figure.linear_constraints:
            row = rows[figure_module.joined_name(member.rig.obj, own.label)]
            assert (row.lower, row.upper) == (own.lower, own.upper)
            assert {names[j]: c for j, c in row.coefficients.items()} == {
                figure_module.joined_name(member.rig.obj, own_names[j]): c
                for j, c in own.coefficients.items()
            }
    assert [c.name for c in join.constraints] == ["A/tip", "B/tip"]
    assert join.constraints[0].goal is a.constraints[0].goal  # a world goal is the rig's own


def test_a_solve_of_the_join_splits_into_each_rigs_result() -> None:
    a, b = _rig("A", 0.0), _rig("B", 3.0)
    join = figure_module.JoinedFigure([a, b])
    join.sync()
    start = join.start()
    for member in join.members:
        np.testing.assert_array_equal(start[member.coordinates], member.rig.initial())
    result = solver.Solver(join.figure, join.constraints).solve(start)
    parts = join.split(result)
    for member, part in zip(join.members, parts, strict=True):
        np.testing.assert_array_equal(part.x, result.x[member.coordinates])
        assert part.joint_names == member.rig.figure.joint_names
        assert [r.name for r in part.residuals] == ["tip"]
        tip = member.rig.figure.forward(part.x)["b2"] @ np.array([0.0, 1.0, 0.0, 1.0])
        goal = member.rig.constraints[0].goal.point
        assert np.linalg.norm(tip[:3] - goal) == pytest.approx(part.residuals[0].distance)


def test_a_mirrored_member_is_refused_naming_it() -> None:
    a, b = _rig("A", 0.0), _rig("B", 3.0)
    b.obj.matrix_world = np.diag([-1.0, 1.0, 1.0, 1.0])
    with pytest.raises(package_module("bridge.errors").RigError, match="Armature 'B' has a neg"):
        figure_module.JoinedFigure([a, b])
