"""A procedural human figure in the style of the paper's *Jack* bodies (§12).

The figure stands about 1.75 m tall, z up, facing -y (Blender's front view), so
its left side is +x. The pelvis is the fixed root (the paper's Figures 3 and
6-8 fix it too). Lengths are metres, joint values radians.

Degrees of freedom:

- torso: either 5 segments whose 3 revolutes each (forward flexion, lateral
  bending, axial rotation) are driven by one joint group of 3 parameters, or
  independent vertebrae with 3 DOF each (17 for the paper's 70-DOF case, 5 for
  the primitive bodies of Figures 6-8);
- per arm: a shoulder complex (2 clavicle + 3 upper-arm revolutes driven by
  one group of 3 parameters: elevation, abduction, twist), 1 at the elbow,
  3 at the wrist;
- neck 3, head 2.

Grouped: 3 + 2 * (3 + 1 + 3) + 3 + 2 = 22 coordinates; with 17 independent
vertebrae 51 + 19 = 70.
"""

from dataclasses import dataclass, field

import numpy as np

from solver import (
    AimGoal,
    Constraint,
    EndEffector,
    Figure,
    LineGoal,
    PlaneGoal,
    PositionOrientationGoal,
)

SIDES = ("left", "right")
SIDE_SIGN = {"left": 1.0, "right": -1.0}  # x sign of each side; the figure faces -y

PELVIS_HEIGHT = 1.00  # m, root origin above the floor
TORSO_BOTTOM = 0.05  # m, waist pivot above the pelvis origin
TORSO_SPAN = 0.32  # m, waist pivot to the top torso pivot
UPPER_ARM = 0.30  # m, shoulder to elbow
FOREARM = 0.26  # m, elbow to wrist
PALM = 0.08  # m, wrist to palm centre
ELBOW_REST = 0.3  # rad, elbow flexion of the neutral pose

# Whole-torso ranges (flexion, lateral bending, axial rotation), radians.
TORSO_LOWER = np.array([-0.5, -0.6, -0.8])
TORSO_UPPER = np.array([1.4, 0.6, 0.8])
TORSO_MOTIONS = ("flex", "bend", "twist")
# Eq. (8)'s d: one metre weighs like 100 degrees, i.e. 1 cm like 1 degree (Jack
# modelled in centimetres with d = 1).
DEGREES_PER_METRE = 100.0


@dataclass
class HumanFigure:
    """A built human figure and the names a task needs.

    Attributes:
        figure: the :class:`solver.Figure`.
        grouped_spine: True if the torso is driven by the ``spine`` group.
        torso: torso segment names, waist first.
        clavicles, upper_arms, forearms, hands: segment names keyed by side.
        neck, head: segment names.
        eye_point: (3,) midpoint between the eyes in the head frame, metres.
        view_direction: (3,) viewing vector in the head frame.
        palm_point: (3,) palm centre in the hand frame, metres.
    """

    figure: Figure
    grouped_spine: bool
    torso: tuple[str, ...]
    clavicles: dict[str, str]
    upper_arms: dict[str, str]
    forearms: dict[str, str]
    hands: dict[str, str]
    neck: str
    head: str
    eye_point: np.ndarray
    view_direction: np.ndarray
    palm_point: np.ndarray

    def hand_effector(self, side: str) -> EndEffector:
        """Palm centre with x = palm normal and y = finger direction."""
        return EndEffector(
            self.hands[side],
            point=self.palm_point,
            x=(-SIDE_SIGN[side], 0.0, 0.0),
            y=(0.0, 0.0, -1.0),
        )

    def elbow_effector(self, side: str) -> EndEffector:
        """The elbow joint centre (origin of the forearm)."""
        return EndEffector(self.forearms[side])

    def view_effector(self) -> EndEffector:
        """The view point (between the eyes) with x along the viewing vector."""
        return EndEffector(self.head, point=self.eye_point, x=self.view_direction)

    def torso_joints(self, motion: str | None = None) -> tuple[str, ...]:
        """Torso joint names, waist first; ``motion`` in ``TORSO_MOTIONS`` filters."""
        motions = TORSO_MOTIONS if motion is None else (motion,)
        return tuple(f"{s}.{m}" for s in self.torso for m in motions)


def build_human(grouped_spine: bool = True, vertebrae: int | None = None) -> HumanFigure:
    """Build the human figure.

    Args:
        grouped_spine: drive the torso joints by one group of 3 parameters.
        vertebrae: number of torso segments; default 5 when grouped, 17 (12
            thoracic + 5 lumbar, the paper's 70-DOF case) when not.
    Returns:
        The figure with its useful names.
    """
    n = vertebrae if vertebrae is not None else (5 if grouped_spine else 17)
    if n < 2:
        raise ValueError(f"a torso needs at least 2 segments, got {n}")
    fig = Figure()
    fig.add_segment("pelvis", translation=(0.0, 0.0, PELVIS_HEIGHT))
    torso = _add_torso(fig, n, grouped_spine)
    top = torso[-1]

    clavicles, upper_arms, forearms, hands = {}, {}, {}, {}
    for side in SIDES:
        clavicles[side], upper_arms[side], forearms[side], hands[side] = _add_arm(fig, top, side)

    fig.add_segment("neck", parent=top, translation=(0.0, 0.01, 0.10))
    fig.add_revolute("neck", (1, 0, 0), -0.9, 0.8, name="neck.flex")
    fig.add_revolute("neck", (0, 1, 0), -0.6, 0.6, name="neck.bend")
    fig.add_revolute("neck", (0, 0, 1), -1.2, 1.2, name="neck.twist")
    fig.add_segment("head", parent="neck", translation=(0.0, 0.0, 0.10))
    fig.add_revolute("head", (1, 0, 0), -0.4, 0.45, name="head.nod")
    fig.add_revolute("head", (0, 1, 0), -0.3, 0.3, name="head.tilt")

    return HumanFigure(
        figure=fig,
        grouped_spine=grouped_spine,
        torso=torso,
        clavicles=clavicles,
        upper_arms=upper_arms,
        forearms=forearms,
        hands=hands,
        neck="neck",
        head="head",
        eye_point=np.array([0.0, -0.09, 0.07]),
        view_direction=np.array([0.0, -1.0, 0.0]),
        palm_point=np.array([0.0, 0.0, -PALM]),
    )


def torso_weights(n: int) -> np.ndarray:
    """(n, 3) share of each torso joint in the whole-torso flexion, bending, rotation.

    Lumbar joints take more flexion and thoracic joints more axial rotation
    (after Monheit and Badler 1991); each column sums to 1.
    """
    k = np.arange(n) / (n - 1)  # 0 at the waist, 1 at the top
    weights = np.stack([2.0 - k, np.ones(n), 1.0 + k], axis=1)
    return weights / weights.sum(axis=0)


def _add_torso(fig: Figure, n: int, grouped: bool) -> tuple[str, ...]:
    """Add ``n`` torso segments above the pelvis, each with 3 revolutes."""
    if n == 17:
        names = [f"L{i}" for i in range(5, 0, -1)] + [f"T{i}" for i in range(12, 0, -1)]
    else:
        names = [f"torso{i + 1}" for i in range(n)]
    weights = torso_weights(n)
    # A grouped joint's own limits are implied by the group's (never active);
    # independent joints share the whole-torso range by the same weights.
    slack = 1.25 if grouped else 1.0
    parent = "pelvis"
    step = TORSO_SPAN / (n - 1)
    for k, name in enumerate(names):
        offset = TORSO_BOTTOM if k == 0 else step
        fig.add_segment(name, parent=parent, translation=(0.0, 0.0, offset))
        for m, (motion, axis) in enumerate(zip(TORSO_MOTIONS, np.eye(3), strict=True)):
            lo, hi = slack * weights[k, m] * TORSO_LOWER[m], slack * weights[k, m] * TORSO_UPPER[m]
            fig.add_revolute(name, axis, lo, hi, name=f"{name}.{motion}")
        parent = name
    if grouped:
        matrix = np.zeros((3 * n, 3))
        for k in range(n):
            for m in range(3):
                matrix[3 * k + m, m] = weights[k, m]
        joints = [f"{s}.{m}" for s in names for m in TORSO_MOTIONS]
        fig.add_group("spine", joints, matrix, TORSO_LOWER, TORSO_UPPER)
    return tuple(names)


def _rot_x(angle: float) -> np.ndarray:
    """(3, 3) rotation by ``angle`` radians about x."""
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def _add_arm(fig: Figure, top: str, side: str) -> tuple[str, str, str, str]:
    """Add clavicle, upper arm, forearm and hand on ``side``; return their names."""
    s = SIDE_SIGN[side]
    clavicle, upper, fore, hand = (
        f"{part}_{side}" for part in ("clavicle", "upper_arm", "forearm", "hand")
    )
    # Signs make positive values mean the same anatomical motion on both sides.
    fig.add_segment(clavicle, parent=top, translation=(0.02 * s, -0.03, 0.05))
    fig.add_revolute(clavicle, (0, -s, 0), -0.2, 0.8, name=f"{clavicle}.elevate")
    fig.add_revolute(clavicle, (0, 0, -s), -0.3, 0.5, name=f"{clavicle}.protract")
    fig.add_segment(upper, parent=clavicle, translation=(0.16 * s, 0.03, 0.0))
    fig.add_revolute(upper, (-1, 0, 0), -0.9, 3.0, name=f"{upper}.flex")
    fig.add_revolute(upper, (0, -s, 0), -0.3, 2.9, name=f"{upper}.abduct")
    fig.add_revolute(upper, (0, 0, -s), -1.4, 1.2, name=f"{upper}.twist")
    # Shoulder complex (§12): elevation, abduction and twist move clavicle and
    # upper arm together.
    matrix = [
        [0.0, 0.25, 0.0],  # clavicle elevation follows abduction
        [0.15, 0.0, 0.0],  # clavicle protraction follows flexion
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
    ]
    joints = [f"{clavicle}.elevate", f"{clavicle}.protract"]
    joints += [f"{upper}.flex", f"{upper}.abduct", f"{upper}.twist"]
    fig.add_group(f"shoulder_{side}", joints, matrix, (-0.9, -0.3, -1.4), (3.0, 2.9, 1.2))

    # The elbow rests slightly bent (as a relaxed arm hangs), so a reach does
    # not start at the straight-arm singularity; ELBOW_REST below it is straight.
    fig.add_segment(
        fore, parent=upper, translation=(0.0, 0.0, -UPPER_ARM), rotation=_rot_x(-ELBOW_REST)
    )
    fig.add_revolute(fore, (-1, 0, 0), -ELBOW_REST, 2.5 - ELBOW_REST, name=f"{fore}.flex")
    fig.add_segment(hand, parent=fore, translation=(0.0, 0.0, -FOREARM))
    fig.add_revolute(hand, (0, 0, -s), -1.3, 1.3, name=f"{hand}.pronate")
    fig.add_revolute(hand, (0, s, 0), -1.2, 1.3, name=f"{hand}.flex")
    fig.add_revolute(hand, (-1, 0, 0), -0.6, 0.35, name=f"{hand}.deviate")
    return clavicle, upper, fore, hand


# ---------------------------------------------------------------------- tube task
@dataclass(frozen=True)
class Tube:
    """A tube held in front of the figure (Figure 3), metres, world frame."""

    # A 45 cm tube tilted 31 degrees forward from vertical, held at chest
    # height; every joint of the solved pose stays >10% of its range inside
    # its limits, and shifting the tube by up to 3 cm keeps it solvable.
    top: np.ndarray = field(default_factory=lambda: np.array([0.0, -0.42, 1.28]))
    bottom: np.ndarray = field(default_factory=lambda: np.array([0.0, -0.6515, 0.8941]))
    radius: float = 0.035
    grip: float = 0.16  # distance of the hands below the top along the axis
    elbow_plane: float = 0.24  # |x| of the side planes that take the elbows

    @property
    def axis(self) -> np.ndarray:
        """(3,) unit vector from the top to the bottom."""
        d = self.bottom - self.top
        return d / np.linalg.norm(d)

    def grip_point(self, side: str) -> np.ndarray:
        """(3,) where the palm of ``side`` touches the tube."""
        side_axis = np.array([SIDE_SIGN[side], 0.0, 0.0])  # perpendicular to the axis
        return self.top + self.grip * self.axis + self.radius * side_axis


def tube_task(human: HumanFigure, tube: Tube | None = None) -> list[Constraint]:
    """The six constraints of Figure 3: hold the tube and look down it.

    Both palms on the tube with their normals towards its axis (finger
    direction free), both elbows on side planes, the view point on the tube
    axis and the viewing vector aimed at the tube bottom.
    """
    tube = tube or Tube()
    constraints = []
    for side in SIDES:
        palm_normal = np.array([-SIDE_SIGN[side], 0.0, 0.0])  # towards the axis
        goal = PositionOrientationGoal(
            tube.grip_point(side), x=palm_normal, y=None, degrees=DEGREES_PER_METRE
        )
        constraints.append(Constraint(human.hand_effector(side), goal, name=f"{side} hand"))
    for side in SIDES:
        plane = PlaneGoal((SIDE_SIGN[side] * tube.elbow_plane, 0.0, 0.0), (1.0, 0.0, 0.0))
        constraints.append(Constraint(human.elbow_effector(side), plane, name=f"{side} elbow"))
    view = human.view_effector()
    constraints.append(Constraint(view, LineGoal(tube.top, tube.axis), name="view line"))
    constraints.append(
        Constraint(view, AimGoal(tube.bottom, degrees=DEGREES_PER_METRE), name="view aim")
    )
    return constraints


# --------------------------------------------------------------------- reach task
# Figures 6-8: the right palm pressed on the near face of a box in front of the
# figure, out of reach of the shoulder chain alone.
BOX_FACE_POINT = np.array([-0.32, -0.62, 1.02])  # m, world
BOX_FACE_NORMAL = np.array([0.0, 1.0, 0.0])  # the face looks at the figure


def reach_task(human: HumanFigure, from_waist: bool = True) -> list[Constraint]:
    """The right-hand reach of Figures 6-8 (position plus palm normal).

    The paper's bodies there have 5 independent torso segments:
    ``build_human(grouped_spine=False, vertebrae=5)`` gives 15 torso + 3
    shoulder + 1 elbow + 3 wrist = 22 DOF on the chain from the waist (the
    shoulder complex stays grouped here).

    Args:
        human: a figure from :func:`build_human`.
        from_waist: start the joint chain at the waist (Figures 7-8) rather
            than at the right clavicle (Figure 6).
    """
    goal = PositionOrientationGoal(
        BOX_FACE_POINT, x=-BOX_FACE_NORMAL, y=None, degrees=DEGREES_PER_METRE
    )
    root = human.torso[0] if from_waist else human.clavicles["right"]
    return [Constraint(human.hand_effector("right"), goal, chain_root=root, name="right hand")]


def set_torso_rigidity(human: HumanFigure, value: float) -> None:
    """Set the rigidity of every torso lateral-bending and axial-rotation joint (Fig. 8)."""
    if human.grouped_spine:
        for k in (1, 2):
            human.figure.set_rigidity(f"spine[{k}]", value)
        return
    for name in human.torso_joints("bend") + human.torso_joints("twist"):
        human.figure.set_rigidity(name, value)


def torso_motion(human: HumanFigure, values: dict[str, float]) -> dict[str, float]:
    """Total absolute torso joint displacement (radians) per motion, from joint values.

    Args:
        human: the figure.
        values: joint name -> value (``IKResult.values()``); the neutral pose is zero.
    """
    return {m: sum(abs(values[j]) for j in human.torso_joints(m)) for m in TORSO_MOTIONS}
