"""Smoke test of the method tables of ``python -m bench.jt_ccd`` and ``python -m bench.dls``."""

from bench.jt_ccd import VARIANTS
from bench.optimizer_strategies import method_rows


def test_method_rows_measure_every_case_and_variant() -> None:
    lines = method_rows([("transpose", "jt", {"step_limit": 0.5})], count=1)
    assert lines[0].startswith("| case | method | solved |")
    rows = [line.split(" | ") for line in lines[2:]]
    assert [(r[0], r[1]) for r in rows] == [
        ("| chain-3", "transpose"),
        ("| chain-7", "transpose"),
        ("| chain-10", "transpose"),
        ("| arm-7 pose", "transpose"),
    ]
    assert all(r[2] in ("0%", "100%") for r in rows)  # one target per case
    assert [method for _, method, _ in VARIANTS] == ["gauss-newton-hybrid", "jt", "ccd"]
