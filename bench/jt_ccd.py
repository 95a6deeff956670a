"""The Jacobian transpose and cyclic coordinate descent beside the default method.

``python -m bench.jt_ccd [--quick]`` writes ``bench/JT_CCD.md``: on the bench's chains
(position goal) and the 7-DOF arm (full pose), the protocol of
:mod:`bench.optimizer_strategies` (targets from random in-limit angles, each solved once
from the mid-range pose, no restarts, no time limit, iteration limit 1000), the solve rate,
iterations (``"ccd"``: sweeps), evaluations of ``G`` and time per solve of
``"gauss-newton-hybrid"`` (the default), ``"jt"`` and ``"ccd"``.

Times are wall-clock medians on this machine; they are measurements, not targets.
"""

from __future__ import annotations

from pathlib import Path

from bench.optimizer_strategies import header, method_rows, target_count

HERE = Path(__file__).resolve().parent

#: The methods compared (row label, method, options), the default first.
VARIANTS: tuple[tuple[str, str, dict[str, object]], ...] = (
    ("gauss-newton-hybrid", "gauss-newton-hybrid", {}),
    ("jt", "jt", {}),
    ("ccd", "ccd", {}),
)


def main() -> None:
    count = target_count(__doc__.splitlines()[0])
    title = "The Jacobian transpose and cyclic coordinate descent"
    lines = [*header(title, "bench.jt_ccd", count), *method_rows(VARIANTS, count)]
    (HERE / "JT_CCD.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
