"""Baked channel values picked out of a solved pose (:mod:`bridge.write.keys`): the flat vector and
its rows give every key the value :func:`keys.channel_value` reads one key at a time."""

from __future__ import annotations

import numpy as np

from tests.bridge_stubs import bridge_module

keys = bridge_module("write.keys")
rig = bridge_module("rig.build")


def _pose(seed: int) -> dict[str, object]:
    """Three bones: quaternion, Euler and axis-angle rotations, random channel values."""
    rng = np.random.default_rng(seed)
    return {
        name: rig.BoneChannels(rng.normal(size=size), rng.normal(size=3), rng.normal(size=3))
        for name, size in (("upper.L", 4), ('odd"name.location', 3), ("hand", 4))
    }


def test_rows_pick_the_value_of_every_key() -> None:
    channel_keys = [
        (keys.bone_path("upper.L", "rotation_quaternion"), k, "upper.L") for k in range(4)
    ]
    channel_keys += [(keys.bone_path("upper.L", "location"), k, "upper.L") for k in (0, 2)]
    channel_keys += [(keys.bone_path('odd"name.location', "rotation_euler"), k,
                      'odd"name.location') for k in (2, 0)]  # fmt: skip
    channel_keys += [(keys.bone_path("hand", "scale"), k, "hand") for k in range(3)]
    channel_keys += [(keys.bone_path("hand", "rotation_axis_angle"), 3, "hand")]
    rows = keys.channel_rows(_pose(0), channel_keys)
    for seed in (1, 2):  # the rows hold for every pose of the same rig
        pose = _pose(seed)
        picked = keys.flat_channels(pose)[rows]
        expected = [keys.channel_value(pose, *key) for key in channel_keys]
        assert picked.tolist() == expected
