"""Independent groups of constraints: sub-problems that can be solved one at a time.

Two enabled constraints *interact* when one's chain moves a coordinate that moves the other's
end-effector or goal carrier (§10: a constraint's gradient includes every moved joint above
its end-effector, whichever chain brought it in), or when their chains move coordinates tied
by one linear row of the figure (a joint group's polygon, an equality). Interaction is made
transitive: a group is a connected component. The objective is a sum over constraints
(eq. 25), so it splits into one sum per group over disjoint variables, with no row across
groups: a group's constraints are met or missed whatever the other groups' variables do.

A reach envelope (the Blender side) uses it to solve only the group of the constraint it
moves at each sample, the others once.
"""

from __future__ import annotations

import numpy as np

from ..model.figure import coordinate_system
from ..solve import Solver


def independent_groups(solver: Solver) -> list[tuple[int, ...]]:
    """The solver's enabled constraints in independent groups (see the module doc).

    Args:
        solver: a solver; its problem is assembled if it was not yet.

    Returns:
        Groups of indices into ``solver.constraints`` (disabled constraints left out), each
        ascending, ordered by their first index.
    """
    problem = solver.problem
    figure = solver.figure
    coupling = np.asarray(figure.coupling) != 0.0  # (n_joints, n_coords)
    ancestors = figure.kinematics.ancestors  # (n_segments, n_joints)
    tied = _row_components(coordinate_system(figure).A != 0.0, coupling.shape[1])
    enabled = [k for k, c in enumerate(solver.constraints) if c.enabled]
    moved, moving, ties = [], [], []
    for k in enabled:
        c = solver.constraints[k]
        coords = coupling[problem.chain(c)].any(axis=0)
        ends = [figure.segment_index(c.effector.segment)]
        ends += [figure.segment_index(m.carrier) for m in c.goal.members() if m.carrier]
        above = ancestors[ends].any(axis=0)
        moved.append(coords)
        moving.append(coupling[above].any(axis=0))
        ties.append(set(tied[coords].tolist()))
    parent = list(range(len(enabled)))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for a in range(len(enabled)):
        for b in range(a + 1, len(enabled)):
            if (moved[a] & moving[b]).any() or (moved[b] & moving[a]).any() or ties[a] & ties[b]:
                parent[find(a)] = find(b)
    groups: dict[int, list[int]] = {}
    for a, k in enumerate(enabled):
        groups.setdefault(find(a), []).append(k)
    return sorted(tuple(g) for g in groups.values())


def _row_components(rows: np.ndarray, n: int) -> np.ndarray:
    """Component label (n,) of each coordinate, coordinates sharing a row (``rows``: (r, n)
    bool) joined."""
    label = np.arange(n)

    def find(a: int) -> int:
        while label[a] != a:
            label[a] = label[label[a]]
            a = int(label[a])
        return a

    for row in rows:
        members = np.flatnonzero(row)
        for other in members[1:]:
            label[find(int(other))] = find(int(members[0]))
    return np.array([find(a) for a in range(n)])


__all__ = ["independent_groups"]
