"""The options of a solve as one frozen, validated value: :class:`Options`.

:class:`~solver.Solver` builds one from its keyword options (``Solver(figure, constraints,
max_iterations=50)``) and keeps it as :attr:`~solver.Solver.options`; a per-solve change is
a new value passed to :meth:`~solver.Solver.solve`::

    result = ik.solve(start, options=ik.options.replace(time_limit=0.05, restarts=0))

Nothing is assigned on a solver after construction (it refuses an option assigned as an
attribute): an option either is the solver's, or is this solve's argument.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ._checks import count, flag, non_negative_number, optional, positive_number
from .assembly.step_bound import MaxChange, checked
from .errors import InvalidInputError
from .methods import METHODS, Method, MethodOptions

#: Default wall-time budget of one solve, seconds (restarts included).
DEFAULT_TIME_LIMIT = 1.0
#: Default number of restarts after a run that misses a goal (the time limit usually ends
#: the search first).
DEFAULT_RESTARTS = 100


@dataclass(frozen=True, eq=False)
class Options:
    """How a :class:`~solver.Solver` solves; validated on construction and on :meth:`replace`.

    Attributes:
        tolerance: distance (scene units) within which a goal counts as reached;
            None (the default) = ``1e-6 L`` with ``L`` the figure's
            characteristic length (:func:`solver.assembly.scale.characteristic_length`).
        angle_tolerance: angle (degrees) within which a goal counts as reached.
        max_iterations: iteration limit of one run (each restart is a run).
        time_limit: wall-time budget of one solve in seconds, restarts
            included; the optimiser checks it every iteration, so it always
            stops the solve (status ``TIME_LIMIT`` if it cut the first run).
            None: no limit.
        restarts: when a run ends without meeting every goal (a local minimum,
            the iteration limit), start again up to this many times while the
            time limit allows (:mod:`solver.search.restarts`): first near the start
            (small perturbations, so an animation keeps its branch and a
            singular start is left), then uniformly within the limits. The
            search stops at the first start that meets every goal, or, when a
            goal is out of reach whatever the pose (``solver.search.reach_bound``), once
            the restarts agree: ``solver.search.restarts.AGREEING`` (5) restarts in a row
            that end at a Kuhn-Tucker point no better than the best (``G`` lower by
            less than ``solver.search.restarts.AGREEMENT``, 1e-6, of it; a lower one starts
            the count again). None runs when the answer is the only feasible point.
            Otherwise the best answer is kept, weighted towards continuity. The first
            restart after a Kuhn-Tucker stop that misses is a tiny nudge of
            the stopping point (it leaves saddles and maxima such as a
            straight, singular chain). 0: one local run, never moving away
            from the start's basin.
        seed: seed of the restart sampler; the starts tried depend only on it,
            so results are repeatable unless the time limit cuts the search.
        method: how one run minimises the objective (:mod:`solver.methods`), by name
            or as a :class:`~solver.methods.Method` object (its own ``run``; then
            ``max_iterations``, ``damping``, ``dls_damping`` and ``step_limit`` are
            the object's business). The names: the projected quasi-Newton optimiser
            of the Appendix with one of two strategies for its inverse Hessian ``H``:
            ``"gauss-newton-hybrid"`` (the default) seeds ``H`` from the
            inverse of the damped Gauss-Newton matrix and re-seeds it after
            every step the Gauss-Newton model predicts well (in effect a
            projected Levenberg-Marquardt method with BFGS/DFP updates in
            between); ``"bfgs"`` is the paper's Appendix as written
            (``H_0 = I``, updates (30), (32), (33)/(34) only, never re-seeded).
            The hybrid is the default because it needs 1.8-5.4x fewer iterations
            at the same or a higher solve rate (bench/OPTIMIZER_SCALING.md:
            mean 17.9 vs 56.8 iterations and 98 % vs 96 % solved on a 7-DOF
            full-pose task, 6.3 vs 34.2 iterations on a 3-link chain).
            ``"dls"``: damped least squares from the SVD of the stacked weighted
            task Jacobian (seed 001, eqs. 15-18), limits by an active set;
            ``"pinv"``: the same undamped, the pseudoinverse (eq. 11), for
            comparison (:mod:`solver.methods.dls`); ``"jt"``: the Jacobian
            transpose; ``"ccd"``: cyclic coordinate descent; ``"newton"``:
            Newton-Raphson (seed 003, eq. 3: ``J^-1 F`` for an exactly-constrained
            system such as a closed linkage, the least-norm least-squares step otherwise;
            :mod:`solver.methods.newton`).
        damping: Levenberg damping of the Gauss-Newton seed relative to its
            mean diagonal (``"gauss-newton-hybrid"`` only).
        dls_damping: damping factor ``lambda`` of ``"dls"`` (eq. 15, in the
            scaled variables); None: chosen every iteration from the run's step
            limit ``s`` (eq. 18: ``lambda = |e| / (2 s)``, which bounds the step's
            length by ``s``), ``s`` widening from a quarter of ``step_limit`` up to it
            while the linear model predicts the steps well (:mod:`solver.methods.dls`).
        step_limit: largest change of any variable in one iteration of the
            Jacobian methods (radians; scene units / ``L`` for prismatic
            variables); None: each method's default (``"dls"`` with eq. 18's damping
            2.0, reached by widening from 0.5; otherwise 0.5).
        max_change: largest change of any coordinate over one whole solve, from
            its (feasible) start: radians, scene units for a coordinate that moves
            only prismatic joints (smooth tracking: a bake bounds each frame's joint
            step); one number, or an (n_coords,) array of one per coordinate
            (:func:`solver.assembly.step_bound.per_kind`). Rows of the solve like the joint
            limits, so every method and every restart's start stays within them;
            the restarts are skipped when a bound row holds the answer (the miss is
            the bound's, not a local minimum's). See :mod:`solver.assembly.step_bound`.
            None: unbounded.
        analytic_start: start each constraint whose chain is two hinge or ball
            bones reaching for a point from the limb's analytic solution
            (:mod:`solver.methods.analytic_start`), when that lowers ``G`` (the
            start is never worse). Off by default: measured on a ball-shoulder,
            hinge-elbow arm (bench/TWO_BONE.md) it makes cold starts from the rest
            pose cheaper (0 iterations instead of 10.7, median CPU time 0.9 ms
            instead of 2.7; with limits and ``restarts=0`` 100 % solved instead of
            93.8 %), but each frame of a warm-started track dearer (1.4 ms instead
            of 0.86 ms for the 2 iterations it saves), with the same smoothness.

    Raises:
        InvalidInputError: an option of the wrong type or out of range, named.
    """

    tolerance: float | None = None
    angle_tolerance: float = 0.01
    max_iterations: int = 200
    time_limit: float | None = DEFAULT_TIME_LIMIT
    restarts: int = DEFAULT_RESTARTS
    seed: int = 0
    method: str | Method = "gauss-newton-hybrid"
    damping: float = 1e-6
    dls_damping: float | None = None
    step_limit: float | None = None
    max_change: MaxChange | None = None
    analytic_start: bool = False

    def __post_init__(self) -> None:
        method = self.method
        if isinstance(method, str):
            if method not in METHODS:
                raise InvalidInputError(
                    f"method must be one of {METHODS} or a solver.methods.Method, got {method!r}"
                )
        elif not callable(getattr(method, "run", None)):
            raise InvalidInputError(
                f"method must be one of {METHODS} or a solver.methods.Method, got {method!r}"
            )
        valid = {
            "tolerance": optional(positive_number, self.tolerance, "tolerance"),
            "angle_tolerance": positive_number(self.angle_tolerance, "angle_tolerance"),
            "max_iterations": count(self.max_iterations, "max_iterations"),
            "damping": non_negative_number(self.damping, "damping"),
            "time_limit": optional(positive_number, self.time_limit, "time_limit"),
            "restarts": count(self.restarts, "restarts"),
            "seed": count(self.seed, "seed"),
            "dls_damping": optional(non_negative_number, self.dls_damping, "dls_damping"),
            "step_limit": optional(positive_number, self.step_limit, "step_limit"),
            "max_change": checked(self.max_change),
            "analytic_start": flag(self.analytic_start, "analytic_start"),
        }
        for name, value in valid.items():  # frozen: the validated forms set once, here
            object.__setattr__(self, name, value)

    def replace(self, **changes: Any) -> Options:
        """A copy with ``changes`` (keywords named as the fields), validated again.

        Raises:
            TypeError: a keyword that is no option.
            InvalidInputError: a bad value, named.
        """
        unknown = sorted(set(changes) - set(NAMES))
        if unknown:
            raise TypeError(f"unknown solver option(s) {unknown}; the options are {NAMES}")
        return dataclasses.replace(self, **changes)

    @property
    def method_name(self) -> str:
        """The method's name: the name given, or the class name of a Method object."""
        return self.method if isinstance(self.method, str) else type(self.method).__name__

    def method_options(self) -> MethodOptions:
        """The options a named method is built with (:func:`~solver.methods.make_method`)."""
        return MethodOptions(
            max_iterations=self.max_iterations,
            damping=self.damping,
            dls_damping=self.dls_damping,
            step_limit=self.step_limit,
        )


#: Every option's name, in declaration order.
NAMES = tuple(f.name for f in dataclasses.fields(Options))


def given_options(options: object, changes: dict[str, Any], default: Options) -> Options:
    """The options a solver is given: ``options`` (``default`` when None) with ``changes``
    (options by name) applied.

    Raises:
        InvalidInputError: ``options`` is not an :class:`Options`, or a change is not valid.
        TypeError: a keyword that is no option.
    """
    if options is None:
        options = default
    elif not isinstance(options, Options):
        raise InvalidInputError(f"options must be a solver.Options, got {options!r}")
    return options.replace(**changes) if changes else options
