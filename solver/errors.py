"""The solver's exception hierarchy: one base class, specific subclasses.

Every message names the offending constraint, segment, joint or goal so a
user can find what to fix.
"""


class ReachError(Exception):
    """Base class of every error the solver raises on purpose."""


class InvalidInputError(ReachError, ValueError):
    """A value is malformed: NaN/inf, zero-length direction, negative weight,
    lower limit above upper limit, an empty constraint list, a wrong shape."""


class FrozenError(InvalidInputError, AttributeError):
    """An attribute that is fixed after construction was assigned (a constraint's
    effector, goal or chain, an end-effector's geometry, a goal's carrier); build
    a new object instead. Goal targets stay assignable."""


class UnknownNameError(ReachError, KeyError):
    """A segment, joint or group name that the figure does not have."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class InfeasibleError(ReachError, ValueError):
    """The joint limits and linear constraints admit no joint values at all."""
