"""The bridge's errors: what stops a solve, a bake or an edit, named so the user can fix it."""

from __future__ import annotations

from .. import solver


class RigError(solver.ReachError):
    """A problem in the scene that prevents a solve; the message names what to fix."""
