"""Bad input raises the named exception, and the message names the culprit."""

import numpy as np
import pytest

from solver import (
    AimGoal,
    Constraint,
    Disjunction,
    EndEffector,
    Figure,
    HalfSpaceGoal,
    InfeasibleError,
    InvalidInputError,
    LineGoal,
    OrientationGoal,
    PlaneGoal,
    PositionGoal,
    PositionOrientationGoal,
    ReachError,
    Solver,
    UnknownNameError,
    solve,
)


def arm() -> Figure:
    """Shoulder hinge ``hinge`` and elbow hinge ``elbow``, unit links."""
    fig = Figure()
    fig.add_segment("upper")
    fig.add_revolute("upper", (0, 0, 1), -1.0, 1.0, name="hinge")
    fig.add_segment("lower", parent="upper", translation=(1.0, 0.0, 0.0))
    fig.add_revolute("lower", (0, 0, 1), -2.0, 2.0, name="elbow")
    return fig


def tip(goal: object = None, **kwargs: object) -> Constraint:
    goal = goal if goal is not None else PositionGoal((1.0, 1.0, 0.0))
    return Constraint(EndEffector("lower", (1, 0, 0), x=(1, 0, 0)), goal, **kwargs)


# -------------------------------------------------------------- NaN and inf
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize(
    ("make", "fragment"),
    [
        (lambda v: PositionGoal((v, 0.0, 0.0)), "PositionGoal point"),
        (lambda v: AimGoal((0.0, v, 0.0)), "AimGoal point"),
        (lambda v: LineGoal((0.0, 0.0, 0.0), (1.0, v, 0.0)), "LineGoal direction"),
        (lambda v: PlaneGoal((0.0, 0.0, v), (0.0, 0.0, 1.0)), "PlaneGoal point"),
        (lambda v: HalfSpaceGoal((0.0, 0.0, 0.0), (v, 0.0, 1.0)), "HalfSpaceGoal normal"),
        (lambda v: OrientationGoal(x=(1.0, 0.0, v)), "OrientationGoal x"),
        (lambda v: PositionOrientationGoal((v, 0, 0), x=(1, 0, 0)), "PositionOrientationGoal"),
        (lambda v: EndEffector("lower", point=(0.0, v, 0.0)), "lower"),
    ],
)
def test_non_finite_values_are_rejected(make, fragment: str, bad: float) -> None:
    with pytest.raises(InvalidInputError, match=fragment):
        make(bad)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_retargeting_to_nan_is_rejected_and_keeps_the_old_target(bad: float) -> None:
    goal = PositionGoal((1.0, 2.0, 3.0))
    with pytest.raises(InvalidInputError, match="point"):
        goal.point = (0.0, bad, 0.0)
    assert np.array_equal(goal.point, (1.0, 2.0, 3.0))


def test_nan_start_is_rejected() -> None:
    with pytest.raises(InvalidInputError, match="NaN"):
        solve(arm(), [tip()], initial=np.array([np.nan, 0.0]))


def test_nan_joint_limit_is_rejected() -> None:
    fig = arm()
    with pytest.raises(InvalidInputError, match="wrist"):
        fig.add_revolute("lower", (1, 0, 0), np.nan, 1.0, name="wrist")


# ------------------------------------------------------- zero-length vectors
@pytest.mark.parametrize(
    ("make", "fragment"),
    [
        (lambda: LineGoal((0, 0, 0), (0, 0, 0)), "LineGoal direction"),
        (lambda: PlaneGoal((0, 0, 0), (0, 0, 0)), "PlaneGoal normal"),
        (lambda: HalfSpaceGoal((0, 0, 0), (0, 0, 0)), "HalfSpaceGoal normal"),
        (lambda: OrientationGoal(x=(0, 0, 0)), "OrientationGoal x"),
        (lambda: OrientationGoal(x=(1, 0, 0), y=(0, 0, 0)), "OrientationGoal y"),
        (lambda: EndEffector("lower", x=(0, 0, 0)), "lower"),
        (lambda: arm().add_revolute("lower", (0, 0, 0), name="twist"), "twist"),
        (lambda: arm().add_prismatic("lower", (0, 0, 0), name="slide"), "slide"),
    ],
)
def test_zero_length_directions_are_rejected(make, fragment: str) -> None:
    with pytest.raises(InvalidInputError, match=fragment):
        make()


def test_huge_directions_are_normalised_not_zeroed() -> None:
    """|v|^2 overflows for components near 1e200; the direction is still (1, 0, 0)."""
    assert np.allclose(LineGoal((0, 0, 0), (1e200, 0.0, 0.0)).direction, (1.0, 0.0, 0.0))


def test_aim_from_the_target_itself_is_rejected_by_name() -> None:
    """An aim goal whose target sits on the effector point has no direction."""
    fig = arm()
    c = Constraint(EndEffector("lower", (1, 0, 0), x=(1, 0, 0)), AimGoal((2, 0, 0)), name="gaze")
    with pytest.raises(InvalidInputError, match="gaze"):
        solve(fig, [c])


def test_goal_checks_run_inside_disjunctions_and_for_goals_with_their_own_check() -> None:
    """Only goals with a geometry check of their own are checked at the start: one inside a
    disjunction, next to a solved position goal and a goal subclass that adds a check, is
    still checked (the checked goals are found by their class, not by a list)."""
    fig = arm()
    effector = EndEffector("lower", (1, 0, 0), x=(1, 0, 0))
    either = Disjunction([PositionGoal((1.0, 1.0, 0.0)), AimGoal((2, 0, 0))])
    plain = Constraint(effector, PositionGoal((0.5, 1.0, 0.0)), name="plain")
    with pytest.raises(InvalidInputError, match="either"):
        solve(fig, [plain, Constraint(effector, either, name="either")])

    class Fussy(PositionGoal):
        def check_geometry(self, e: dict, g: dict, label: str) -> None:
            raise InvalidInputError(f"{label}: fussy")

    with pytest.raises(InvalidInputError, match="'picky': fussy"):
        solve(fig, [plain, Constraint(effector, Fussy((1.0, 1.0, 0.0)), name="picky")])


# -------------------------------------------------------------- unknown names
@pytest.mark.parametrize(
    "action",
    [
        lambda fig: fig.add_revolute("nosuch", (0, 0, 1)),
        lambda fig: fig.add_segment("child", parent="nosuch"),
        lambda fig: fig.set_rest("nosuch", translation=(0, 0, 0)),
        lambda fig: fig.set_rigidity("nosuch", 0.5),
        lambda fig: fig.add_linear_constraint({"nosuch": 1.0}, upper=1.0),
        lambda fig: fig.add_group("g", ["hinge", "nosuch"], [[1.0], [1.0]]),
        lambda fig: solve(fig, [Constraint(EndEffector("nosuch"), PositionGoal((0, 0, 0)))]),
        lambda fig: solve(fig, [tip(chain_root="nosuch")]),
        lambda fig: solve(fig, [tip(PositionGoal((0, 0, 0), carrier="nosuch"))]),
    ],
)
def test_unknown_names_raise_unknown_name_error(action) -> None:
    with pytest.raises(UnknownNameError, match="nosuch"):
        action(arm())


def test_unknown_effector_segment_names_the_constraint() -> None:
    c = Constraint(EndEffector("nosuch"), PositionGoal((0, 0, 0)), name="left hand")
    with pytest.raises(UnknownNameError, match="left hand"):
        Solver(arm(), [c]).solve()


def test_unknown_name_error_is_a_key_error_and_a_reach_error() -> None:
    with pytest.raises(KeyError):
        arm().add_revolute("nosuch", (0, 0, 1))
    with pytest.raises(ReachError):
        arm().add_revolute("nosuch", (0, 0, 1))


def test_chain_root_off_the_path_is_rejected() -> None:
    fig = arm()
    fig.add_segment("other", parent="upper", translation=(0, 1, 0))
    with pytest.raises(InvalidInputError, match="other"):
        solve(fig, [tip(chain_root="other", name="reach")])


def test_duplicate_names_are_rejected() -> None:
    fig = arm()
    with pytest.raises(InvalidInputError, match="upper"):
        fig.add_segment("upper")
    with pytest.raises(InvalidInputError, match="hinge"):
        fig.add_revolute("lower", (1, 0, 0), name="hinge")


@pytest.mark.parametrize("name", ["g[x]", "g[1]", "g[01]", "g[]", "g[-0]"])
def test_a_bad_group_index_is_an_unknown_name(name: str) -> None:
    """Not a raw ``ValueError: invalid literal for int()``: the name and the group's range."""
    fig = arm()
    fig.add_group("g", ["hinge", "elbow"], [[1.0], [1.0]])
    message = r"no group parameter 'g\[.*'g' has g\[0\] only"
    with pytest.raises(UnknownNameError, match=message):
        fig.set_limits(name, -1.0, 1.0)
    with pytest.raises(UnknownNameError, match=message):
        fig.set_rigidity(name, 0.5)


def test_a_group_name_is_given_once() -> None:
    """Two groups named alike would give two coordinates named alike."""
    fig = arm()
    fig.add_group("g", ["hinge"], [[1.0]])
    with pytest.raises(InvalidInputError, match="group 'g' already exists"):
        fig.add_group("g", ["elbow"], [[1.0]])
    assert fig.coordinate_names == ("elbow", "g[0]")


def test_groups_and_joints_are_not_named_alike() -> None:
    """``set_limits(name)`` names one thing: a group named like a joint, a parameter named
    like a joint, or a joint named like a group or parameter is refused."""
    fig = arm()
    with pytest.raises(InvalidInputError, match="group 'hinge': a joint has that name"):
        fig.add_group("hinge", ["elbow"], [[1.0]])
    fig.add_segment("hand", parent="lower", translation=(1.0, 0.0, 0.0))
    fig.add_revolute("hand", (0, 0, 1), name="w[0]")
    with pytest.raises(InvalidInputError, match=r"parameter w\[0\] is named like a joint"):
        fig.add_group("w", ["elbow"], [[1.0]])
    fig.add_group("g", ["elbow"], [[1.0]])
    for name in ("g", "g[0]"):
        with pytest.raises(InvalidInputError, match="a group or group parameter has that name"):
            fig.add_revolute("hand", (0, 1, 0), name=name)
    assert fig.coordinate_names == ("hinge", "w[0]", "g[0]")


@pytest.mark.parametrize("y", [(2.0, 0.0, 0.0), (-1.0, 0.0, 0.0), (1.0, 1e-10, 0.0)])
def test_an_effector_with_parallel_axes_is_rejected(y: tuple[float, float, float]) -> None:
    """Two parallel directions fix no orientation (as on an orientation goal)."""
    with pytest.raises(InvalidInputError, match="EndEffector on 'lower': x and y are parallel"):
        EndEffector("lower", (1, 0, 0), x=(1, 0, 0), y=y)


@pytest.mark.parametrize("bad", [0, 1, "no", None, np.array([False])])
def test_inherit_rotation_must_be_a_bool_and_nothing_is_added(bad: object) -> None:
    fig = arm()
    with pytest.raises(InvalidInputError, match=r"'hand'.*inherit_rotation"):
        fig.add_segment("hand", parent="lower", inherit_rotation=bad)  # type: ignore[arg-type]
    assert fig.segment_names == ("upper", "lower")


# ---------------------------------------------------------- weights, limits
@pytest.mark.parametrize("weight", [-1.0, -1e-12, np.nan, np.inf])
def test_bad_weight_names_the_constraint(weight: float) -> None:
    with pytest.raises(InvalidInputError, match="grip"):
        tip(weight=weight, name="grip")


@pytest.mark.parametrize("degrees", [0.0, -1.0, np.nan])
def test_bad_degrees_are_rejected(degrees: float) -> None:
    with pytest.raises(InvalidInputError, match="degrees"):
        OrientationGoal(x=(1, 0, 0), degrees=degrees)


def test_lower_above_upper_names_the_joint() -> None:
    fig = arm()
    with pytest.raises(InvalidInputError, match="knee"):
        fig.add_revolute("lower", (1, 0, 0), 1.0, -1.0, name="knee")
    with pytest.raises(InvalidInputError, match="spine"):
        fig.add_group("spine", ["hinge", "elbow"], [[1.0], [0.5]], lower=1.0, upper=0.0)
    with pytest.raises(InvalidInputError, match="lower limit"):
        fig.add_linear_constraint({"hinge": 1.0}, lower=0.5, upper=0.1)


@pytest.mark.parametrize("rigidity", [-0.1, 1.5, np.nan])
def test_rigidity_outside_unit_interval_is_rejected(rigidity: float) -> None:
    with pytest.raises(InvalidInputError, match="hinge"):
        arm().set_rigidity("hinge", rigidity)


def test_group_matrix_of_wrong_shape_is_rejected() -> None:
    with pytest.raises(InvalidInputError, match="spine"):
        arm().add_group("spine", ["hinge", "elbow"], [[1.0, 0.0]])


def test_effector_without_the_direction_a_goal_needs() -> None:
    effector = EndEffector("lower", (1, 0, 0))  # no x
    with pytest.raises(InvalidInputError, match="look"):
        Constraint(effector, AimGoal((5, 5, 0)), name="look")


# ------------------------------------------------------- empty constraint lists
def test_empty_constraint_list_is_rejected() -> None:
    with pytest.raises(InvalidInputError, match="constraint"):
        solve(arm(), [])


def test_all_constraints_disabled_is_rejected() -> None:
    with pytest.raises(InvalidInputError, match="enabled"):
        solve(arm(), [tip(enabled=False)])


def test_empty_disjunction_is_rejected() -> None:
    with pytest.raises(InvalidInputError, match="Disjunction"):
        Disjunction([])


# ------------------------------------------------------------- infeasibility
def test_infeasible_linear_constraint_raises_infeasible_error() -> None:
    """hinge in [-1, 1] and hinge >= 2 cannot both hold."""
    fig = arm()
    fig.add_linear_constraint({"hinge": 1.0}, lower=2.0, label="reach forward")
    with pytest.raises(InfeasibleError, match=r"reach forward|hinge"):
        solve(fig, [tip()])
    with pytest.raises(InfeasibleError):
        fig.neutral()


def test_conflicting_equalities_raise_infeasible_error() -> None:
    fig = arm()
    fig.add_equality({"hinge": 1.0, "elbow": 1.0}, 0.5, label="sum")
    fig.add_equality({"hinge": 1.0, "elbow": 1.0}, -0.5, label="other sum")
    with pytest.raises(InfeasibleError, match="sum"):
        solve(fig, [tip()])


def test_infeasible_error_is_a_value_error() -> None:
    fig = arm()
    fig.add_linear_constraint({"hinge": 1.0, "elbow": 1.0}, lower=5.0)
    with pytest.raises(ValueError):
        fig.neutral()


# ------------------------------------------------------ start outside the set
def test_start_outside_the_limits_is_projected() -> None:
    """Documented behaviour: an infeasible start moves to the nearest feasible point."""
    fig = arm()
    fig.add_linear_constraint({"hinge": 1.0, "elbow": 1.0}, upper=1.5, label="sum")
    starts = []
    solve(fig, [tip()], initial=np.array([3.0, 1.8]), callback=lambda x, f: starts.append(x))
    first = starts[0]
    # Nearest point of {|hinge| <= 1, |elbow| <= 2, hinge + elbow <= 1.5} to (3, 1.8).
    assert np.allclose(first, (1.0, 0.5), atol=1e-6)


def test_wrong_start_shape_is_rejected() -> None:
    with pytest.raises(InvalidInputError, match="shape"):
        solve(arm(), [tip()], initial=np.zeros(5))


def test_bad_solver_options_are_rejected() -> None:
    with pytest.raises(InvalidInputError, match="tolerance"):
        Solver(arm(), [tip()], tolerance=-1.0)
    with pytest.raises(InvalidInputError, match="method"):
        Solver(arm(), [tip()], method="no-such-method")


def test_empty_figure_raises_a_reach_error() -> None:
    """A figure without segments or joints is reported, not a numpy traceback."""
    c = Constraint(EndEffector("a"), PositionGoal((0, 1, 0)), name="lonely")
    with pytest.raises(ReachError):
        solve(Figure(), [c])
    with pytest.raises(ReachError):
        Figure().neutral()


# ------------------------------------------- wrong types at every public entry
#: Values no numeric argument accepts: a string, None, a wrong shape, a mapping.
NOT_A_NUMBER = ["heavy", None, [1.0, 2.0, 3.0], {"a": 1.0}]


def _pose_goal(**kwargs: object) -> PositionOrientationGoal:
    return PositionOrientationGoal((1.0, 1.0, 0.0), x=(1, 0, 0), **kwargs)


def _set_weight(value: object) -> None:
    tip(name="grip").weight = value


def _set_position_weight(value: object) -> None:
    _pose_goal().position_weight = value


NUMBER_ENTRIES = [
    (lambda v: tip(weight=v, name="grip"), "grip.*weight"),
    (_set_weight, "grip.*weight"),
    (lambda v: arm().add_revolute("lower", "x", v, 1.0, name="knee"), "knee.*lower"),
    (lambda v: arm().add_revolute("lower", "x", -1.0, v, name="knee"), "knee.*upper"),
    (lambda v: arm().add_prismatic("lower", "x", rigidity=v, name="slide"), "slide.*rigidity"),
    (lambda v: arm().set_limits("hinge", v, 1.0), "hinge.*lower"),
    (lambda v: arm().set_rigidity("hinge", v), "hinge.*rigidity"),
    (lambda v: arm().add_linear_constraint({"hinge": v}, upper=1.0), "coefficient of 'hinge'"),
    (lambda v: arm().add_linear_constraint({"hinge": 1.0}, upper=v), "upper"),
    (lambda v: arm().add_equality({"hinge": 1.0}, v), "equality value"),
    (lambda v: _pose_goal(position_weight=v), "position_weight"),
    (_set_position_weight, "position_weight"),
    (lambda v: Solver(arm(), [tip()], angle_tolerance=v), "angle_tolerance"),
    (lambda v: Solver(arm(), [tip()], damping=v), "damping"),
    (lambda v: Solver(arm(), [tip()], max_iterations=v), "max_iterations"),
    (lambda v: Solver(arm(), [tip()], restarts=v), "restarts"),
    (lambda v: Solver(arm(), [tip()], seed=v), "seed"),
]


@pytest.mark.parametrize("bad", NOT_A_NUMBER, ids=repr)
@pytest.mark.parametrize(("entry", "fragment"), NUMBER_ENTRIES)
def test_numeric_arguments_of_the_wrong_type_are_named(entry, fragment: str, bad: object) -> None:
    with pytest.raises(InvalidInputError, match=fragment):
        entry(bad)


#: Numeric arguments where None selects the scale-free default (solver.assembly.scale).
OPTIONAL_NUMBER_ENTRIES = [
    (lambda v: OrientationGoal(x=(1, 0, 0), degrees=v), "OrientationGoal degrees"),
    (lambda v: AimGoal((1, 0, 0), degrees=v), "AimGoal degrees"),
    (lambda v: _pose_goal(degrees=v), "PositionOrientationGoal degrees"),
    (lambda v: Solver(arm(), [tip()], tolerance=v), "tolerance"),
]


@pytest.mark.parametrize("bad", [v for v in NOT_A_NUMBER if v is not None], ids=repr)
@pytest.mark.parametrize(("entry", "fragment"), OPTIONAL_NUMBER_ENTRIES)
def test_optional_numeric_arguments_of_the_wrong_type_are_named(
    entry, fragment: str, bad: object
) -> None:
    with pytest.raises(InvalidInputError, match=fragment):
        entry(bad)
    entry(None)  # the default


ARRAY_ENTRIES = [
    (lambda v: arm().add_ball("lower", lower=v), "ball joint of 'lower' lower"),
    (lambda v: arm().add_ball("lower", rigidity=v), "ball joint of 'lower' rigidity"),
    (lambda v: arm().add_group("spine", ["hinge", "elbow"], v), "spine.*matrix"),
    (lambda v: arm().add_group("spine", ["hinge", "elbow"], [[1.0], [1.0]], lower=v), "spine"),
    (lambda v: solve(arm(), [tip()], initial=v), "initial"),
]


@pytest.mark.parametrize("bad", ["heavy", [1.0, "x"], {"a": 1.0}, object()], ids=repr)
@pytest.mark.parametrize(("entry", "fragment"), ARRAY_ENTRIES)
def test_array_arguments_of_the_wrong_type_are_named(entry, fragment: str, bad: object) -> None:
    with pytest.raises(InvalidInputError, match=fragment):
        entry(bad)


@pytest.mark.parametrize(
    ("entry", "fragment"),
    [
        (lambda: arm().add_group("spine", None, [[1.0]]), "spine.*joints"),
        (lambda: arm().add_group("spine", "hinge", [[1.0]]), "spine.*joints"),
        (lambda: arm().add_linear_constraint(["hinge"], upper=1.0), "coefficients"),
        (lambda: arm().add_linear_constraint(None, upper=1.0), "coefficients"),
        (lambda: arm().set_limits(None, -1.0, 1.0), "set_limits name"),
        (lambda: arm().set_rigidity(3, 0.5), "set_rigidity name"),
        (lambda: arm().add_segment("ring", translation=[[0, 0, 1]]), "ring.*translation"),
        (lambda: arm().add_revolute("lower", "z", name=5), "joint name"),
        (
            lambda: Constraint(EndEffector("lower"), PositionGoal((0, 0, 0)), chain_root=3),
            "chain_root",
        ),
        (
            lambda: Constraint(EndEffector("lower"), PositionGoal((0, 0, 0)), enabled="no"),
            "enabled",
        ),
        (lambda: Constraint(EndEffector("lower"), PositionGoal((0, 0, 0)), name=7), "name"),
        (lambda: Disjunction(PositionGoal((0, 0, 0))), "Disjunction"),
    ],
)
def test_malformed_structural_arguments_are_named(entry, fragment: str) -> None:
    with pytest.raises(InvalidInputError, match=fragment):
        entry()


@pytest.mark.parametrize("constraints", [None, "tip", 3, tip()], ids=repr)
def test_constraints_that_are_not_a_list_of_constraints(constraints: object) -> None:
    with pytest.raises(InvalidInputError, match="constraints"):
        solve(arm(), constraints)


@pytest.mark.parametrize("callback", ["print", 3, [print]], ids=repr)
def test_a_callback_that_cannot_be_called_is_rejected(callback: object) -> None:
    with pytest.raises(InvalidInputError, match="callback"):
        solve(arm(), [tip()], callback=callback)


def test_a_non_constraint_in_the_list_is_named_by_position() -> None:
    with pytest.raises(InvalidInputError, match=r"constraints\[1\]"):
        solve(arm(), [tip(), "tip"])


# --------------------------------------------- mutation after construction
@pytest.mark.parametrize("weight", [np.nan, -5.0, np.inf, "heavy", None])
def test_constraint_weight_assignment_is_validated(weight: object) -> None:
    """A bad weight once silently dropped the constraint and reported success."""
    c = tip(name="grip", weight=2.0)
    with pytest.raises(InvalidInputError, match=r"grip.*weight"):
        c.weight = weight
    assert c.weight == 2.0


@pytest.mark.parametrize("value", [2, 0.0, 1, "yes", None])
def test_enabled_must_be_a_bool(value: object) -> None:
    c = tip(name="grip")
    with pytest.raises(InvalidInputError, match=r"grip.*enabled"):
        c.enabled = value
    assert c.enabled is True


@pytest.mark.parametrize("w", [np.nan, -0.5, 1.5])
def test_position_weight_assignment_is_validated(w: float) -> None:
    goal = _pose_goal(position_weight=0.3)
    with pytest.raises(InvalidInputError, match="position_weight"):
        goal.position_weight = w
    assert goal.position_weight == 0.3


@pytest.mark.parametrize(("lower", "upper"), [(np.inf, np.inf), (-np.inf, -np.inf)])
def test_limits_that_admit_no_value_name_the_joint(lower: float, upper: float) -> None:
    with pytest.raises(InvalidInputError, match="knee"):
        arm().add_revolute("lower", "x", lower, upper, name="knee")
    with pytest.raises(InvalidInputError, match="hinge"):
        arm().set_limits("hinge", lower, upper)


def test_nan_damping_is_rejected() -> None:
    with pytest.raises(InvalidInputError, match="damping"):
        solve(arm(), [tip()], damping=np.nan)


def test_a_figure_without_joints_is_rejected_by_name() -> None:
    """Not a raw numpy reshape error: the figure has segments but nothing can move."""
    fig = Figure()
    fig.add_segment("a")
    fig.add_segment("b", parent="a", translation=(1, 0, 0))
    c = Constraint(EndEffector("b"), PositionGoal((0, 1, 0)))
    with pytest.raises(InvalidInputError, match="no joints"):
        solve(fig, [c])
    with pytest.raises(InvalidInputError, match="no joints"):
        Solver(fig, [c]).solve()
