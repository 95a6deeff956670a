"""The benchmark's cases and peers (what runs; the harness decides how)."""

from __future__ import annotations

from bench.chains import arm7, serial_chain
from bench.harness import ChainCase, PeerDef

CHAIN_DOFS = (3, 7, 10, 30, 70, 100, 300)
SOLVE_TIMEOUT = 5.0
"""Seconds one solve may take before it counts as a failure."""


def chain_cases(count: int = 100, dofs: tuple[int, ...] = CHAIN_DOFS) -> list[ChainCase]:
    """Position-only serial chains, plus the 7-DOF arm with a position+orientation goal."""
    cases = [ChainCase(f"chain-{n}", serial_chain(n), orientation=False, count=count) for n in dofs]
    cases.insert(2, ChainCase("arm-7 pose", arm7(), orientation=True, count=count))
    return cases


def _reach(spec, orientation):
    from bench.peers.reach import ReachChain

    return ReachChain(spec, orientation)


def _scipy(method: str):
    def build(spec, orientation):
        from bench.peers.scipy_peer import ScipyChain

        return ScipyChain(spec, orientation, method, timeout=SOLVE_TIMEOUT)

    return build


def _ikpy(spec, orientation):
    from bench.peers.ikpy_peer import IkpyChain

    return IkpyChain(spec, orientation, timeout=SOLVE_TIMEOUT)


def _blender(ik_solver: str):
    def build(spec, orientation):
        from bench.peers.blender_adapter import BlenderChain

        return BlenderChain(spec, orientation, ik_solver)

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
        PeerDef("Reach IK", _reach),
        PeerDef("scipy SLSQP", _scipy("SLSQP"), _cap({100: 30, 300: 10})),
        PeerDef("scipy trust-constr", _scipy("trust-constr"), _cap({70: 30, 300: 10})),
        PeerDef("scipy L-BFGS-B", _scipy("L-BFGS-B"), _cap({300: 30})),
        PeerDef("ikpy", _ikpy, _cap({70: 30, 100: 10, 300: 5})),
    ]
    if blender:
        result += [
            PeerDef("Blender Standard IK", _blender("LEGACY"), _cap({100: 30})),
            PeerDef("Blender iTaSC", _blender("ITASC"), _cap({100: 30})),
        ]
    return result
