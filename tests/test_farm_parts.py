"""The parts of the farm commands that need no Blender: command lines, chunk files, how chunks
join and blend (the commands themselves: tests/blender/test_farm_*.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.bridge_stubs import bridge_module, package_module

_chunk_module = bridge_module("bake.chunk")
ChunkKeys, join, solve_range = (
    _chunk_module.ChunkKeys,
    _chunk_module.join,
    _chunk_module.solve_range,
)
blend, weights = bridge_module("bake.stitch").blend, bridge_module("bake.stitch").weights
RigError = bridge_module("errors").RigError
split = package_module("cli.__main__").split
_options = package_module("cli.options")
UsageError, frame_range = _options.UsageError, _options.frame_range
parse_bake, parse_merge = _options.parse_bake, _options.parse_merge

CHANNELS = (
    ('pose.bones["b0"].rotation_quaternion', 0, "b0"),
    ('pose.bones["b0"].rotation_quaternion', 1, "b0"),
    ('pose.bones["b0"].rotation_quaternion', 2, "b0"),
    ('pose.bones["b0"].rotation_quaternion', 3, "b0"),
    ('pose.bones["b1"].rotation_euler', 0, "b1"),
)


def _chunk(first: int, last: int, solved_from: int | None = None, value: float = 0.0,
           channels: tuple = CHANNELS) -> object:  # fmt: skip
    start = first if solved_from is None else solved_from
    n = len(channels)
    return ChunkKeys("Rig", (first, last), channels, np.full((n, last - first + 1), value),
                     start, np.full((n, first - start), value))  # fmt: skip


def test_frame_ranges() -> None:
    assert frame_range("1-250") == (1, 250)
    assert frame_range("7") == (7, 7)
    assert frame_range("-5-10") == (-5, 10)
    assert frame_range("3..9") == (3, 9)
    for bad in ("10-2", "a-b", "1-", ""):
        with pytest.raises(UsageError):
            frame_range(bad)


def test_bake_command_lines() -> None:
    options = parse_bake(["--armature", "A", "--armature", "B", "--frames", "1-24",
                          "--to", "NEW_STRIP", "--save", "--report", "r.json"])  # fmt: skip
    assert options.armatures == ("A", "B") and options.frames == (1, 24)
    assert options.target == "NEW_STRIP" and options.save and options.report == "r.json"
    chunk = parse_bake(["--chunk", "c.json", "--frames", "13-24", "--shot", "1-24"])
    assert chunk.chunk == "c.json" and chunk.shot == (1, 24) and chunk.lead_in == 10
    bad_lines = (["--chunk", "c.json", "--save"], ["--shot", "1-24"], ["--save", "--output", "x"],
                 ["--lead-in", "-1"], ["--to", "ELSEWHERE"], ["--unknown"])  # fmt: skip
    for bad in bad_lines:
        with pytest.raises(UsageError):
            parse_bake(bad)
    merge = parse_merge(["a.json", "b.json", "--to", "NEW_ACTION", "--output", "o.blend"])
    assert merge.chunks == ("a.json", "b.json") and merge.target == "NEW_ACTION"
    with pytest.raises(UsageError):
        parse_merge(["--save"])  # no chunk


def test_python_m_splits_like_blender() -> None:
    assert split(["shot.blend", "--command", "reach_bake", "--save"]) == (
        "shot.blend", "reach_bake", ["--save"])  # fmt: skip
    assert split(["-c", "reach_check"]) == (None, "reach_check", [])
    for bad in ([], ["shot.blend"], ["a.blend", "b.blend", "-c", "x"], ["--command"]):
        with pytest.raises(ValueError):
            split(bad)


def test_a_chunk_solves_its_lead_in_inside_the_shot() -> None:
    assert solve_range((13, 24), (1, 24), 10) == list(range(3, 25))
    assert solve_range((5, 8), (1, 24), 10) == list(range(1, 9))  # not before the shot
    assert solve_range((1, 12), (1, 24), 10) == list(range(1, 13))
    with pytest.raises(RigError, match="not inside the shot"):
        solve_range((20, 30), (1, 24), 10)


def test_a_chunk_file_round_trips_exactly() -> None:
    chunk = _chunk(13, 16, 10)
    values = np.float32(np.random.default_rng(1).normal(size=chunk.values.shape))
    chunk = ChunkKeys(chunk.armature, chunk.frames, chunk.channels, values.astype(float),
                      chunk.solved_from, chunk.lead, "DLS")  # fmt: skip
    again = ChunkKeys.from_json(json.loads(json.dumps(chunk.to_json())))
    assert again.frames == (13, 16) and again.channels == CHANNELS and again.method == "DLS"
    np.testing.assert_array_equal(again.values, chunk.values)
    assert again.lead.shape == (5, 3)
    broken = chunk.to_json()
    broken["values"] = [row[:2] for row in broken["values"]]
    with pytest.raises(RigError, match="2 keys per channel for 4 frames"):
        ChunkKeys.from_json(broken)


def test_chunks_join_in_order_and_refuse_gaps_overlaps_and_other_channels() -> None:
    joined = join([_chunk(13, 24, 3, 2.0), _chunk(1, 12, value=1.0)])
    assert joined.frames == (1, 24)
    assert np.all(joined.values[:, :12] == 1.0) and np.all(joined.values[:, 12:] == 2.0)
    with pytest.raises(RigError, match="leave a gap"):
        join([_chunk(1, 10), _chunk(12, 24)])
    with pytest.raises(RigError, match="overlap"):
        join([_chunk(1, 12), _chunk(12, 24)])
    with pytest.raises(RigError, match="other channels"):
        join([_chunk(1, 12), _chunk(13, 24, channels=CHANNELS[:4])])


def test_the_blend_rises_smoothly_and_keeps_quaternions_on_one_side() -> None:
    w = weights(10)
    assert np.all(np.diff(w) > 0) and 0.0 < w[0] < 0.05 and 0.95 < w[-1] < 1.0
    before = np.zeros((5, 4))
    before[0] = 1.0  # identity quaternion, Euler 0
    after = before.copy()
    after[:4] *= -1.0  # the same rotation, the other sign
    after[4] = 1.0
    mixed = blend(CHANNELS, before, after)
    np.testing.assert_allclose(mixed[:4], before[:4])  # no detour through a zero quaternion
    np.testing.assert_allclose(mixed[4], weights(4))
