"""The benchmark's cases and peers (what runs; the harness decides how)."""

from __future__ import annotations

from bench.chains import arm7, serial_chain, to_serial
from bench.harness import ChainCase, PeerDef
from bench.metrics import POSITION_TOLERANCE

CHAIN_DOFS = (7, 30, 100)
"""Procedural X/Z chains (full pose goals), besides the robots and the 7-DOF arm."""
ROBOT_NAMES = ("iiwa7", "xarm6")
SOLVE_TIMEOUT = 5.0
"""Seconds one solve may take before it counts as a failure."""
RESTART_BUDGET = 0.1
"""Seconds of solving per target: TRAC-IK's timeout, and the budget within which the bench
restarts the peers that have no restarts of their own (scipy, ikpy) from random starts."""


def chain_cases(count: int = 100, dofs: tuple[int, ...] = CHAIN_DOFS) -> list[ChainCase]:
    """Robot arms, the 7-DOF procedural arm and X/Z chains; all with full pose goals."""
    from bench.robots import ROBOTS, robot_chain

    cases = []
    for robot in ROBOT_NAMES:
        file, base, tip = ROBOTS[robot]
        source = f"pybullet_data/{file}, {base} to {tip}"
        cases.append(ChainCase(f"{robot} pose", robot_chain(robot), True, count, source=source))
    spec = arm7()
    cases.append(ChainCase("arm-7 pose", to_serial(spec, "arm-7"), True, count, spec=spec))
    for n in dofs:
        spec = serial_chain(n)
        chain = to_serial(spec, f"chain-{n}")
        cases.append(ChainCase(f"chain-{n} pose", chain, True, count, spec=spec))
    return cases


def _reach(tolerance: float | None):
    def build(case):
        from bench.peers.reach import ReachChain

        return ReachChain(case.chain, case.orientation, tolerance)

    return build


def _tracik(case):
    from bench.peers.tracik_peer import TracIKChain

    return TracIKChain(case.chain, case.orientation, timeout=RESTART_BUDGET)


def _scipy(method: str):
    def build(case):
        from bench.peers.scipy_peer import ScipyChain

        return ScipyChain(
            case.chain, case.orientation, method, timeout=SOLVE_TIMEOUT, budget=RESTART_BUDGET
        )

    return build


def _ikpy(case):
    from bench.peers.ikpy_peer import IkpyChain

    return IkpyChain(case.chain, case.orientation, timeout=SOLVE_TIMEOUT, budget=RESTART_BUDGET)


def _blender(ik_solver: str):
    def build(case):
        from bench.peers.blender_adapter import BlenderChain

        return BlenderChain(case.chain, case.spec, case.orientation, ik_solver)

    return build


def _cap(limits: dict[int, int]):
    """Targets allowed at n DOF: the cap of the largest listed DOF <= n, else no cap."""

    def cap(n: int) -> int | None:
        listed = [d for d in limits if d <= n]
        return limits[max(listed)] if listed else None

    return cap


def peers(blender: bool = True) -> list[PeerDef]:
    """Every peer, Reach IK first. ``blender=False`` leaves out the bpy peers."""
    result = [
        PeerDef("Reach IK", _reach(None), restarts="internal"),
        PeerDef("Reach IK, tolerance 1e-5", _reach(POSITION_TOLERANCE), restarts="internal"),
        PeerDef("TRAC-IK", _tracik, restarts="internal"),
        PeerDef("scipy least_squares", _scipy("least_squares"), _cap({100: 30}), "bench"),
        PeerDef("scipy SLSQP", _scipy("SLSQP"), _cap({100: 30}), "bench"),
        PeerDef("scipy L-BFGS-B", _scipy("L-BFGS-B"), _cap({100: 30}), "bench"),
        PeerDef("ikpy", _ikpy, _cap({1: 50, 30: 20, 100: 10}), "bench"),
    ]
    if blender:
        result += [
            PeerDef("Blender Standard IK", _blender("LEGACY"), _cap({100: 30})),
            PeerDef("Blender iTaSC", _blender("ITASC"), _cap({100: 30})),
        ]
    return result
