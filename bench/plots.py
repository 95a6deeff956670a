"""PNG plots of a run (matplotlib, Agg): time vs DOF, solve rate vs tolerance, residuals."""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from bench.harness import CaseRun
from bench.metrics import ANGLE_TOLERANCE, POSITION_TOLERANCE, solve_rate_at
from bench.tracking import TrackSummary

FAILED = 10.0
"""Residual drawn for a solve with no answer (timeout, error), scene units."""


def _peers(runs: list[CaseRun]) -> list[str]:
    names: list[str] = []
    for run in runs:
        for r in run.runs:
            if r.name not in names:
                names.append(r.name)
    return names


def _style(names: list[str]) -> dict[str, dict]:
    colours = plt.get_cmap("tab10").colors
    markers = "os^vD<>ph"
    return {
        n: {"color": colours[i % 10], "marker": markers[i % len(markers)]}
        for i, n in enumerate(names)
    }


def time_vs_dof(runs: list[CaseRun], path: Path) -> None:
    """Median solve time (all runs) against DOF on log-log axes, chain cases."""
    chains = [r for r in runs if r.case.name.startswith("chain-")]
    chains.sort(key=lambda r: r.case.chain.n)
    names = _peers(chains)
    style = _style(names)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name in names:
        xs, ys = [], []
        for run in chains:
            s = next(r for r in run.runs if r.name == name).summary()
            if s.attempted and math.isfinite(s.median_time_all):
                xs.append(run.case.chain.n)
                ys.append(1e3 * s.median_time_all)
        if xs:
            ax.plot(xs, ys, label=name, **style[name])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("degrees of freedom")
    ax.set_ylabel("median time per solve, ms (all runs)")
    ax.set_title("Solve time against chain size (full pose goal, from mid-range)")
    ax.grid(True, which="both", alpha=0.3)
    if ax.lines:
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def rate_vs_tolerance(runs: list[CaseRun], path: Path, cases: tuple[str, ...]) -> None:
    """Solve rate against position tolerance (orientation tolerance scaled alike)."""
    chosen = [r for r in runs if r.case.name in cases]
    names = _peers(chosen)
    style = _style(names)
    tolerances = np.logspace(-10, -1, 37)
    fig, axes = plt.subplots(1, len(chosen), figsize=(4.2 * len(chosen), 4), squeeze=False)
    for ax, run in zip(axes[0], chosen, strict=True):
        for name in names:
            peer_run = next(r for r in run.runs if r.name == name)
            if not peer_run.records:
                continue
            rates = [
                solve_rate_at(peer_run.records, t, ANGLE_TOLERANCE * t / POSITION_TOLERANCE)
                for t in tolerances
            ]
            ax.semilogx(tolerances, 100 * np.array(rates), label=name, color=style[name]["color"])
        ax.axvline(POSITION_TOLERANCE, color="k", lw=0.8, ls=":")
        ax.set_title(run.case.name)
        ax.set_xlabel("position tolerance (scene units)")
        ax.set_ylim(-2, 102)
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("solve rate, %")
    axes[0][-1].legend(fontsize=7, loc="lower right")
    fig.suptitle("Solve rate against tolerance (angle tolerance scaled: 1e-3 rad at 1e-5 m)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def residuals(runs: list[CaseRun], path: Path) -> None:
    """Distribution of the position residual per peer, one panel per case."""
    names = _peers(runs)
    style = _style(names)
    cols = 3
    rows = math.ceil(len(runs) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(13, 3.2 * rows), squeeze=False)
    for ax, run in zip(axes.flat, runs, strict=False):
        data, labels, colours = [], [], []
        for r in run.runs:
            if not r.records:
                continue
            values = np.array([min(x.position_error, FAILED) for x in r.records])
            data.append(np.log10(np.maximum(values, 1e-16)))
            labels.append(r.name.replace("scipy ", "").replace("Blender ", "B. "))
            colours.append(style[r.name]["color"])
        if data:
            parts = ax.violinplot(data, showmedians=True, widths=0.8)
            for body, colour in zip(parts["bodies"], colours, strict=True):
                body.set_facecolor(colour)
                body.set_alpha(0.6)
            ax.set_xticks(range(1, len(labels) + 1), labels, rotation=30, fontsize=7, ha="right")
        ax.axhline(np.log10(POSITION_TOLERANCE), color="k", lw=0.8, ls=":")
        ax.set_title(run.case.name, fontsize=9)
        ax.set_ylabel("log10 residual", fontsize=8)
    for ax in list(axes.flat)[len(runs) :]:
        ax.axis("off")
    fig.suptitle(f"Position residuals (dotted: 1e-5 tolerance; no answer drawn at {FAILED:g})")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def tracking(tracks: list[TrackSummary], path: Path, which: str = "circle") -> None:
    """Per-frame solve time along one path, every peer."""
    chosen = [t for t in tracks if t.path == which and t.unavailable is None and len(t.seconds)]
    style = _style([t.peer for t in chosen])
    fig, ax = plt.subplots(figsize=(7, 4))
    for t in chosen:
        ax.semilogy(1e3 * t.seconds, label=t.peer, color=style[t.peer]["color"], lw=0.9)
    ax.set_xlabel("frame")
    ax.set_ylabel("ms per frame")
    ax.set_title(f"Warm-started tracking, 7-DOF arm, {which}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
