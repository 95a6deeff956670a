"""The Last Solve box's conditioning line without Blender: coordinates named by their bones,
the weakest bone of a nearly straight two-bone arm, the wording of each state."""

from __future__ import annotations

import numpy as np

from tests.bridge_stubs import StubBone, StubPoseBone, bridge_module

rig_joints = bridge_module("rig.joints")
conditioning = bridge_module("measure.conditioning_readout")
solver = rig_joints.solver  # the package's own copy of the solver


def two_bone_arm(limits: bool = False) -> tuple[object, list[object]]:
    """Bones "upperarm" (at the origin) and "forearm" (1 unit up Y), each 1 unit long along
    Y, joints added as the bridge adds them (free bones: three local rotations; ``limits``:
    IK limits on the forearm, an IK segment)."""
    fig = solver.Figure()
    fig.add_segment("upperarm")
    fig.add_segment("forearm", "upperarm", translation=(0.0, 1.0, 0.0))
    upper = StubPoseBone("upperarm")
    settings = {"use_ik_limit_x": True, "ik_min_x": -2.0, "ik_max_x": 2.0} if limits else {}
    fore = StubPoseBone("forearm", bone=StubBone("forearm", StubBone("upperarm")), **settings)
    solved = [rig_joints.add_solved_bone(fig, pb, "reach", False) for pb in (upper, fore)]
    return fig, solved


def readout(bend: float, limits: bool = False) -> object:
    """The conditioning read-out of the arm reaching a target that needs an elbow bend of
    ``bend`` radians (reached from a start bent the same way, so the branch is kept)."""
    fig, solved = two_bone_arm(limits)
    target = (0.0, 1.0 + np.cos(bend), np.sin(bend))  # forearm turned about X by ``bend``
    goal = solver.Constraint(
        solver.EndEffector("forearm", (0.0, 1.0, 0.0)), solver.PositionGoal(target), name="hand"
    )
    start = np.zeros(len(fig.coordinate_names))
    start[fig.coordinate_names.index("forearm:swing[0]" if limits else "forearm:rotX")] = bend
    result = solver.solve(fig, [goal], initial=start, tolerance=1e-12)
    return conditioning.ConditioningReadout(result, tuple(solved))


def test_each_coordinate_is_named_by_its_bone() -> None:
    fig, solved = two_bone_arm(limits=True)
    bones = conditioning.coordinate_bones(solved)
    assert set(fig.coordinate_names) <= set(bones)  # joint names of grouped joints too
    assert {bones[c] for c in fig.coordinate_names if c.startswith("upperarm")} == {"upperarm"}
    assert solved[1].coordinates and all(bones[c] == "forearm" for c in solved[1].coordinates)


def test_a_nearly_straight_arm_names_the_forearm() -> None:
    line = readout(1e-3).line
    assert line.startswith("Conditioning: kappa ")
    assert line.endswith(" (ill-conditioned), weakest: forearm")
    kappa = float(line.split()[2])
    assert kappa > solver.analysis.conditioning.ILL_CONDITIONED


def test_an_ik_segment_forearm_is_named_too() -> None:
    assert readout(1e-3, limits=True).line.endswith("(ill-conditioned), weakest: forearm")


def test_a_bent_arm_is_well_conditioned_and_names_no_bone() -> None:
    line = readout(1.2).line
    assert line.startswith("Conditioning: kappa ") and line.endswith(" (well-conditioned)")
    assert float(line.split()[2]) < 10.0


def test_a_straight_arm_is_singular() -> None:
    assert readout(0.0).line == "Conditioning: kappa inf (singular: rank 2 of 3)"


def test_nothing_to_condition() -> None:
    fig, solved = two_bone_arm()
    above = solver.Constraint(
        solver.EndEffector("forearm"), solver.HalfSpaceGoal((0, 0, -5.0), (0, 0, 1)), name="up"
    )
    result = solver.solve(fig, [above])
    line = conditioning.ConditioningReadout(result, tuple(solved)).line
    assert line == "Conditioning: no goal constrains the pose here"


def test_read_once_and_kept() -> None:
    report = readout(0.5)
    assert "line" not in vars(report) and "conditioning" not in vars(report.result)
    first = report.line
    assert report.line is first and "conditioning" in vars(report.result)


def test_a_bake_labels_its_last_frame() -> None:
    report = readout(1e-3)
    line = conditioning.ConditioningReadout(report.result, report.solved, "At frame 7").line
    assert line.startswith("At frame 7: kappa ") and line.endswith("weakest: forearm")
