"""What live posing remembers about one armature, and when it continues an unfinished solve.

Plain data and one rule, no Blender: :mod:`.posing` keeps a :class:`LiveState` per armature
(runtime only, keyed by ``session_uid``) and calls :func:`plan_next` after every live solve.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .inputs import Fingerprint

#: A solve that cannot move within its budget is retried with up to this many times the budget.
MAX_BUDGET_SCALE = 64


@dataclass
class LiveState:
    """What live posing remembers about one armature (runtime only)."""

    seen: Fingerprint | None = None  # inputs after the last solve (or the last accepted state)
    releases: int = 0  # busy.releases() then: a change means a Reach job wrote the armature
    bones: tuple[str, ...] | None = None  # the last solve's figure bones
    # the last solve stopped at its budget or iteration limit, or a change waits for the
    # timer (seen in an update that rebuilt Blender's dependency graph)
    unfinished: bool = False
    solves: int = 0  # live solves so far (tests count them per update)
    seconds: list[float] = field(default_factory=list)  # wall time of each live solve
    error: str = ""  # why live posing was last switched off, "" if it was not
    accept_next: bool = False  # the next update takes the inputs as they are (undo, load)
    budget_scale: int = 1  # the next live solve's budget, in budgets (see plan_next)


def plan_next(state: LiveState, stopped: bool, moved: bool) -> None:
    """After a solve: whether to continue it (:attr:`LiveState.unfinished`) and with which
    budget. Stopped early but moved: more of the same helps. Stopped without moving (the
    budget ran out before the first step, e.g. on a loaded machine): the next try gets twice
    the budget, up to :data:`MAX_BUDGET_SCALE` times; then it waits for the next edit."""
    if not stopped:
        state.unfinished, state.budget_scale = False, 1
    elif moved:
        state.unfinished = True
    elif state.budget_scale < MAX_BUDGET_SCALE:
        state.unfinished, state.budget_scale = True, 2 * state.budget_scale
    else:
        state.unfinished, state.budget_scale = False, 1
