"""A planar four-bar linkage in solver terms (seed 003's Figure 1), and its closed form.

Links AB (crank, turning about the fixed pivot A), BC (coupler), CD (rocker) and DA (the
fixed base, along x); every hinge turns about z. The loop is closed by a carried goal, in
one of two ways (``closure``):

- ``"ground"``: an open chain ground -> crank -> coupler -> rocker pinned back to the base:
  the rocker's far end is held on the hinge axis at D (a :class:`~solver.LineGoal` along z
  carried by the base segment). Joints ``crank`` (at A), ``coupler`` (at B), ``rocker``
  (at C, relative to the coupler).
- ``"rocker"``: two branches from the base, ground -> crank -> coupler and ground -> rocker
  (hinged at D); the coupler's end C is held on the hinge axis at the rocker's far end (a
  line carried by the rocker segment): both sides of the loop move. Joint ``rocker`` is
  the rocker's angle at D, from the x axis.

A hinge pin is a point on a line (two equations in the plane), not a point on a point (three,
one of which no planar motion changes), so the closure adds exactly two independent
equations. Used by the four-bar bench section (:mod:`bench.four_bar`) and the solver tests
(``tests/test_four_bar.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from solver import Constraint, EndEffector, Figure, LineGoal

#: Grashof crank-rocker (shortest link the crank, next to the base; s + l < p + q):
#: crank, coupler, rocker, base lengths in scene units.
CRANK_ROCKER = (0.4, 1.2, 1.0, 1.2)
Z = (0.0, 0.0, 1.0)


@dataclass(frozen=True)
class FourBar:
    """A four-bar figure, its loop closure and its dimensions.

    Attributes:
        figure: the figure (segments ``ground``, ``crank``, ``coupler``, ``rocker``).
        closure: the constraint closing the loop (named ``"closure"``).
        lengths: (crank, coupler, rocker, base) in scene units.
        kind: ``"ground"`` or ``"rocker"`` (see the module).
        joint_c: an end-effector at the hinge C between coupler and rocker.
    """

    figure: Figure
    closure: Constraint
    lengths: tuple[float, float, float, float]
    kind: str
    joint_c: EndEffector

    @property
    def size(self) -> float:
        """The linkage's size: its longest link (scene units)."""
        return max(self.lengths)

    def coords(self, crank: float, branch: int = 1) -> np.ndarray:
        """Closed-form coordinates (crank, coupler, rocker) of crank angle ``crank`` (rad).

        ``branch`` +1 puts C to the left of the diagonal B -> D (the "open" assembly
        of the default linkage), -1 the mirror assembly.
        """
        a, b, c, d = self.lengths
        pivot = np.array([d, 0.0])
        crank_end = a * np.array([math.cos(crank), math.sin(crank)])
        diagonal = pivot - crank_end
        f = float(np.linalg.norm(diagonal))
        along = (b * b - c * c + f * f) / (2.0 * f)
        across = math.sqrt(max(b * b - along * along, 0.0))
        unit = diagonal / f
        normal = np.array([-unit[1], unit[0]])
        joint = crank_end + along * unit + branch * across * normal  # C
        coupler = math.atan2(*(joint - crank_end)[::-1])
        rocker = math.atan2(*(pivot - joint)[::-1])  # direction C -> D
        names = self.figure.coordinate_names
        values = {"crank": crank, "coupler": coupler - crank}
        if self.kind == "ground":
            values["rocker"] = rocker - coupler
        else:
            values["rocker"] = math.atan2(*(joint - pivot)[::-1])  # direction D -> C
        return np.array([_wrap(values[n]) for n in names])

    def point(self, effector: EndEffector, coords: np.ndarray) -> np.ndarray:
        """(3,) world position of ``effector``'s point at ``coords``."""
        frame = np.array(self.figure.forward(coords)[effector.segment])
        return (frame @ np.append(effector.point, 1.0))[:3]

    def closure_residual(self, coords: np.ndarray) -> float:
        """Distance (scene units) of the loop's open end from its hinge axis at ``coords``."""
        end = self.point(self.closure.effector, coords)
        goal = self.closure.goal
        assert isinstance(goal, LineGoal) and goal.carrier is not None
        on_axis = self.point(EndEffector(goal.carrier, goal.point), coords)
        return float(np.linalg.norm((end - on_axis)[:2]))  # the axis is along z


def _wrap(angle: float) -> float:
    """``angle`` in (-pi, pi]."""
    return math.atan2(math.sin(angle), math.cos(angle))


def four_bar(
    lengths: tuple[float, float, float, float] = CRANK_ROCKER,
    closure: str = "ground",
    crank_rigidity: float = 0.0,
) -> FourBar:
    """A four-bar linkage (see the module); ``crank_rigidity`` 1 holds the crank (a driven
    input: the solve leaves it where the start puts it)."""
    a, b, c, d = lengths
    fig = Figure()
    fig.add_segment("ground")
    fig.add_segment("crank", parent="ground")
    fig.add_revolute("crank", Z, rigidity=crank_rigidity, name="crank")
    fig.add_segment("coupler", parent="crank", translation=(a, 0.0, 0.0))
    fig.add_revolute("coupler", Z, name="coupler")
    if closure == "ground":
        fig.add_segment("rocker", parent="coupler", translation=(b, 0.0, 0.0))
        fig.add_revolute("rocker", Z, name="rocker")
        effector = EndEffector("rocker", (c, 0.0, 0.0))
        pin = LineGoal((d, 0.0, 0.0), Z, carrier="ground")
        joint_c = EndEffector("rocker")
    elif closure == "rocker":
        fig.add_segment("rocker", parent="ground", translation=(d, 0.0, 0.0))
        fig.add_revolute("rocker", Z, name="rocker")
        effector = EndEffector("coupler", (b, 0.0, 0.0))
        pin = LineGoal((c, 0.0, 0.0), Z, carrier="rocker")
        joint_c = effector
    else:
        raise ValueError(f"closure must be 'ground' or 'rocker', got {closure!r}")
    return FourBar(fig, Constraint(effector, pin, name="closure"), lengths, closure, joint_c)


def transmission(linkage: FourBar, samples: int = 7200) -> float:
    """Largest ``|d q_j / d crank|`` over one revolution and every joint, from the closed
    form (central differences on ``samples`` crank angles, branch +1)."""
    angles = np.linspace(0.0, 2.0 * math.pi, samples, endpoint=False)
    h = 1e-6
    ratios = [
        np.abs(
            np.angle(
                np.exp(1j * (linkage.coords(t + h) - linkage.coords(t - h)))  # wrap-safe
            )
        ).max()
        / (2.0 * h)
        for t in angles
    ]
    return float(max(ratios))


__all__ = ["CRANK_ROCKER", "FourBar", "four_bar", "transmission"]
