"""The human-figure cases: the tube task (22 and 70 DOF) and four limb end-effectors."""

from __future__ import annotations

import numpy as np

import solver
from bench.tasks import Task, TaskCase

TUBE_SHIFT = 0.02
"""Metres: each tube sample is the paper's tube translated by up to this much per axis."""


SPREAD = 0.5
"""Limb targets come from coordinates uniform within this fraction of each range around neutral."""


def tube_case(grouped: bool, count: int = 20) -> TaskCase:
    """Figure 3's tube task from the neutral pose; sample 0 is the nominal tube."""
    from examples.human import Tube, build_human, tube_task

    def make(k: int) -> Task:
        human = build_human(grouped_spine=grouped)
        shift = np.zeros(3)
        if k:
            shift = np.random.default_rng([7, k]).uniform(-TUBE_SHIFT, TUBE_SHIFT, size=3)
        nominal = Tube()
        tube = Tube(top=nominal.top + shift, bottom=nominal.bottom + shift)
        return human.figure, tube_task(human, tube)

    n = len(make(0)[0].coordinate_names)
    label = "grouped spine" if grouped else "17 independent vertebrae"
    return TaskCase(
        f"tube-{n}",
        make,
        count,
        f"tube task of Figure 3 ({label}, {n} DOF): both palms on the tube, elbows on side "
        f"planes, view point on the tube axis, view aimed at the bottom; tube translated by "
        f"up to {TUBE_SHIFT * 100:.0f} cm per sample; from the neutral pose",
    )


def limbs_case(count: int = 50) -> TaskCase:
    """Both hands (position + two directions) and both elbows to a random reachable pose.

    The hand goals use the goal's default orientation weight (no tuning for the bench).
    """
    from examples.human import SIDES, build_human

    def make(k: int) -> Task:
        human = build_human(grouped_spine=True)
        figure = human.figure
        lower, upper = figure.coordinate_bounds()
        neutral = figure.neutral()
        rng = np.random.default_rng([11, k])
        coords = neutral + SPREAD * (rng.uniform(lower, upper) - neutral)
        frames = figure.forward(coords)
        constraints = []
        for side in SIDES:
            hand = human.hand_effector(side)
            frame = frames[hand.segment]
            goal = solver.PositionOrientationGoal(
                frame[:3, :3] @ hand.point + frame[:3, 3],
                x=frame[:3, :3] @ hand.x,
                y=frame[:3, :3] @ hand.y,
            )
            constraints.append(solver.Constraint(hand, goal, name=f"{side} hand"))
            elbow = human.elbow_effector(side)
            point = frames[elbow.segment][:3, 3]
            constraints.append(
                solver.Constraint(elbow, solver.PositionGoal(point), name=f"{side} elbow")
            )
        return figure, constraints

    n = len(make(0)[0].coordinate_names)
    return TaskCase(
        f"limbs-{n}",
        make,
        count,
        f"four limb end-effectors ({n} DOF): both hands (position + two directions) and both "
        "elbows to the pose of random coordinates (fixed seed) uniform within half of each "
        "coordinate's range around the neutral pose, solved from the neutral pose. The "
        "procedural figure has arms, head and torso but no legs, so the four end-effectors "
        "are the hands and elbows.",
    )


def human_cases(count: int = 20) -> list[TaskCase]:
    """Tube 22, tube 70 and the four-limb case (2.5 x ``count`` samples)."""
    return [tube_case(True, count), tube_case(False, count), limbs_case(int(2.5 * count))]
