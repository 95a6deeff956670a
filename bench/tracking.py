"""Warm-started tracking of a moving target: per-frame time and joint-velocity spikes.

The 7-DOF arm's tip follows a circle, a figure-eight and a spiral (position goal). The
first frame starts from the mid-range seed pose; every later frame starts from the
previous frame's answer. A flip (the chain jumping to another branch of solutions) shows
as a large max |dtheta| between consecutive frames.
"""

from __future__ import annotations

import math
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from bench.chains import arm7, to_serial
from bench.harness import ChainCase, PeerDef
from bench.metrics import POSITION_TOLERANCE
from bench.peers.base import PeerUnavailableError

FRAMES = 240
SPIKE = 0.2
"""Radians: a frame whose largest joint step exceeds this counts as a spike."""
CENTRE = np.array([0.0, -0.45, 0.55])
RADIUS = 0.2


def paths(frames: int = FRAMES) -> dict[str, np.ndarray]:
    """(frames, 3) target positions of each path, scene units, in the arm's workspace."""
    t = np.linspace(0.0, 2.0 * np.pi, frames, endpoint=False)
    zero = np.zeros_like(t)
    circle = np.stack([np.cos(t), zero, np.sin(t)], axis=1) * RADIUS
    eight = np.stack([np.sin(t), zero, 0.5 * np.sin(2.0 * t)], axis=1) * RADIUS
    turns = 3.0 * t
    r = RADIUS * (0.25 + 0.75 * t / t[-1])
    spiral = np.stack([r * np.cos(turns), -0.15 * t / t[-1], r * np.sin(turns)], axis=1)
    return {
        "circle": CENTRE + circle,
        "figure-eight": CENTRE + eight,
        "spiral": CENTRE + spiral,
    }


@dataclass
class TrackSummary:
    """One peer on one path. Times in seconds, steps in radians, errors in scene units."""

    peer: str
    path: str
    frames: int = 0
    within: int = 0
    median_frame: float = math.nan
    p95_frame: float = math.nan
    max_frame: float = math.nan
    median_error: float = math.nan
    max_error: float = math.nan
    max_step: float | None = None
    median_step: float | None = None
    spikes: int | None = None
    seconds: np.ndarray = field(default_factory=lambda: np.zeros(0))
    unavailable: str | None = None
    notes: list[str] = field(default_factory=list)


def summarize_track(peer: str, path: str, targets: np.ndarray, track) -> TrackSummary:
    """Per-frame statistics of a :class:`bench.peers.base.Track` against ``targets``."""
    errors = np.linalg.norm(track.tips - targets, axis=1)
    s = TrackSummary(peer, path, frames=len(targets), notes=list(track.notes))
    s.within = int(np.sum(errors <= POSITION_TOLERANCE))
    s.seconds = np.asarray(track.seconds)
    s.median_frame = float(np.median(s.seconds))
    s.p95_frame = float(np.quantile(s.seconds, 0.95))
    s.max_frame = float(np.max(s.seconds))
    s.median_error = float(np.median(errors))
    s.max_error = float(np.max(errors))
    if track.angles is not None and len(track.angles) > 1:
        steps = np.abs(np.diff(track.angles, axis=0)).max(axis=1)
        s.max_step = float(steps.max())
        s.median_step = float(np.median(steps))
        s.spikes = int(np.sum(steps > SPIKE))
    return s


def tracking_case() -> ChainCase:
    """The 7-DOF arm with a position goal (no targets of its own: the paths are the targets)."""
    spec = arm7()
    return ChainCase("arm-7 tracking", to_serial(spec, "arm-7"), False, 0, spec=spec)


def run_tracking(
    peer_defs: list[PeerDef],
    frames: int = FRAMES,
    log: Callable[[str], None] = print,
) -> list[TrackSummary]:
    """Every path with every peer (peer order rotated path by path)."""
    case = tracking_case()
    built = []
    out = []
    for p in peer_defs:
        try:
            built.append((p.name, p.build(case), None))
        except PeerUnavailableError as error:
            built.append((p.name, None, str(error)))
        except Exception as error:
            built.append((p.name, None, f"{type(error).__name__}: {error}"))
    for k, (path, targets) in enumerate(paths(frames).items()):
        log(f"tracking {path}")
        shift = k % len(built)
        for name, peer, reason in built[shift:] + built[:shift]:
            if peer is None:
                out.append(TrackSummary(name, path, unavailable=reason))
                continue
            try:
                s = summarize_track(name, path, targets, peer.track(targets))
            except PeerUnavailableError as error:
                s = TrackSummary(name, path, unavailable=str(error))
            except Exception as error:  # a broken run is shown, never dropped
                detail = "".join(traceback.format_exception_only(error)).strip()
                s = TrackSummary(name, path, unavailable=f"failed: {detail}")
            out.append(s)
            if s.unavailable is None:
                log(
                    f"  {name:22s} {s.within:4d}/{s.frames} frames within tolerance, "
                    f"median {1e3 * s.median_frame:.3f} ms/frame, max step {s.max_step}"
                )
    order = {d.name: i for i, d in enumerate(peer_defs)}
    return sorted(out, key=lambda s: (list(paths(2)).index(s.path), order[s.peer]))
