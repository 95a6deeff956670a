"""Target Track (``reach.target_track``) in real Blender: the keyed location F-curves evaluate
onto the requested curve at every frame and between frames, nothing else changes, undo takes
the keys back, bad input is reported with the object's name, and a Reach chain follows."""

from __future__ import annotations

import math
from types import SimpleNamespace

import bpy
import numpy as np
import pytest

from tests.blender.conftest import load_empty_file, run_op, world_bone_tail
from tests.blender.panel_draw import Recorder, draw_panels
from tests.blender.reach_scenes import (
    activate,
    add_constraint,
    add_empty,
    fcurves,
    keys_of,
    make_chain,
)

#: Largest distance (scene units) of the keyed F-curves from the curve between keys, Size 1,
#: one key a frame, 48 frames a turn: measured 8.4e-7 (circle) and 9.5e-7 (spiral) on bpy
#: 5.0.1 and 4.2 with handles along the path; 1.2e-3 and 1.6e-3 with Blender's Auto Clamped
#: handles (flat on the end keys and on a key both of whose neighbours lie to one side).
SUBFRAME_TOLERANCE = 1e-5


def _location_curves(obj: bpy.types.Object) -> list[bpy.types.FCurve]:
    by_index = {f.array_index: f for f in fcurves(obj) if f.data_path == "location"}
    assert sorted(by_index) == [0, 1, 2], by_index
    return [by_index[i] for i in range(3)]


def _evaluated(obj: bpy.types.Object, frames: np.ndarray) -> np.ndarray:
    """The object's keyed location (n, 3) at ``frames``, read off its F-curves."""
    curves = _location_curves(obj)
    return np.array([[c.evaluate(float(f)) for c in curves] for f in frames])


def _track(empty: bpy.types.Object, **options: object) -> None:
    activate(empty)
    options = {"use_scene_range": False, "frame_start": 1, "frame_end": 49} | options
    run_op(bpy.ops.reach.target_track, **options)


def test_circle_keys_lie_on_the_circle_at_every_frame_and_between(
    clean_scene: bpy.types.Scene,
) -> None:
    empty = add_empty("T", (0.5, -1.0, 2.0))
    _track(empty, shape="CIRCLE", size=1.0, turns=1.0, plane="XZ")
    frames = np.arange(1, 50)
    keyed = _evaluated(empty, frames)
    angle = 2 * np.pi * (frames - 1) / 48
    expected = np.column_stack((0.5 + np.cos(angle), np.full(49, -1.0), 2.0 + np.sin(angle)))
    np.testing.assert_allclose(keyed, expected, atol=1e-6)  # float32 keys
    np.testing.assert_allclose(keyed[-1], keyed[0], atol=1e-6)  # closed
    between = _evaluated(empty, np.arange(1.0, 49.0, 0.1))
    radius = np.hypot(between[:, 0] - 0.5, between[:, 2] - 2.0)
    assert np.abs(radius - 1.0).max() < SUBFRAME_TOLERANCE
    np.testing.assert_allclose(between[:, 1], -1.0, atol=1e-6)
    bpy.context.scene.frame_set(13)  # a quarter turn: the top of the circle
    assert tuple(empty.matrix_world.translation) == pytest.approx((0.5, -1.0, 3.0), abs=1e-6)


def test_a_spiral_stays_on_course_between_keys(clean_scene: bpy.types.Scene) -> None:
    """Between keys the F-curves follow the growing spiral too (its channels' extremes fall
    between keys, where Auto Clamped handles would flatten them)."""
    empty = add_empty("T", (0.0, 0.0, 0.0))
    _track(empty, shape="SPIRAL", size=1.0, turns=1.0, plane="XY")
    frames = np.arange(1.0, 49.0, 0.05)
    s = (frames - 1) / 48
    expected = s[:, None] * np.column_stack((np.cos(2 * np.pi * s), np.sin(2 * np.pi * s)))
    deviation = np.linalg.norm(_evaluated(empty, frames)[:, :2] - expected, axis=1)
    assert deviation.max() < SUBFRAME_TOLERANCE


@pytest.mark.parametrize(
    ("shape", "check"),
    [
        ("FIGURE_EIGHT", lambda x, y: np.abs(x**4 - 0.64 * (x**2 - y**2)).max() < 1e-6),
        ("SPIRAL", lambda x, y: np.allclose(np.hypot(x, y), np.linspace(0, 0.8, 49), atol=1e-6)),
        ("LINE", lambda x, y: np.allclose(y, 0) and math.isclose(x.max(), 0.8, abs_tol=1e-6)
         and math.isclose(x.min(), -0.8, abs_tol=1e-6)),
    ],
)  # fmt: skip
def test_other_shapes_lie_on_their_curve_in_the_chosen_plane(
    clean_scene: bpy.types.Scene, shape: str, check: object
) -> None:
    """Figure-eight: Gerono's x⁴ = a²(x² − y²); spiral: radius 0 → size; line: ±size."""
    empty = add_empty("T", (0.0, 0.0, 0.0))
    bpy.context.scene.cursor.location = (1.0, 2.0, 3.0)
    _track(empty, shape=shape, size=0.8, turns=2.0, plane="YZ", center_from="CURSOR")
    keyed = _evaluated(empty, np.arange(1, 50)) - np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(keyed[:, 0], 0.0, atol=1e-6)  # in the YZ plane through the cursor
    assert check(keyed[:, 1], keyed[:, 2])  # type: ignore[operator]


def test_the_view_plane_faces_the_3d_view(clean_scene: bpy.types.Scene) -> None:
    """Plane VIEW: the circle lies across the 3D view's line of sight, starting to its right."""
    from mathutils import Quaternion

    area = next(a for a in bpy.context.screen.areas if a.type == "VIEW_3D")
    view = area.spaces.active.region_3d
    view.view_rotation = Quaternion((0.3, -0.2, 0.8), 0.9)
    rotation = np.array(view.view_rotation.to_matrix())
    empty = add_empty("T", (1.0, 1.0, 1.0))
    _track(empty, shape="CIRCLE", size=2.0, plane="VIEW")
    rel = _evaluated(empty, np.arange(1, 50)) - 1.0
    np.testing.assert_allclose(rel @ rotation[:, 2], 0.0, atol=1e-5)  # across the line of sight
    np.testing.assert_allclose(np.linalg.norm(rel, axis=1), 2.0, atol=1e-5)
    np.testing.assert_allclose(rel[0], 2.0 * rotation[:, 0], atol=1e-5)  # starts on the right


def test_a_parented_target_lands_on_the_world_curve(clean_scene: bpy.types.Scene) -> None:
    parent = add_empty("P", (1.0, 2.0, 0.5), rotation=(0.3, -0.4, 1.1))
    parent.scale = (2.0, 2.0, 2.0)
    empty = add_empty("T", (0.0, 0.0, 0.0))
    empty.parent = parent
    empty.delta_location = (0.1, 0.0, -0.2)
    _track(empty, shape="CIRCLE", size=0.5, plane="XY", center_from="VALUE", center=(3, 0, 1))
    scene = bpy.context.scene
    for frame in range(1, 50):
        scene.frame_set(frame)
        x, y, z = empty.matrix_world.translation
        assert math.hypot(x - 3.0, y) == pytest.approx(0.5, abs=1e-5), frame
        assert z == pytest.approx(1.0, abs=1e-5), frame


def test_only_the_location_keys_in_the_range_change_and_undo_takes_them_back(
    clean_scene: bpy.types.Scene,
) -> None:
    empty = add_empty("T", (0.0, 0.0, 0.0))
    for frame, x in ((-5, 4.0), (20, 7.0), (80, 9.0)):
        empty.location.x = x
        empty.keyframe_insert("location", frame=frame)
    empty.keyframe_insert("rotation_euler", frame=20)
    chain = make_chain()
    chain.keyframe_insert("location", frame=20)
    before, chain_before = keys_of(empty), keys_of(chain)
    run_op(bpy.ops.ed.undo_push, message="before the track")
    activate(bpy.data.objects["T"])
    # undo=True (the third positional argument): an undo step, as a button or menu entry makes
    run_op(bpy.ops.reach.target_track, "EXEC_DEFAULT", True, shape="CIRCLE", size=1.0,
           use_scene_range=False, frame_start=10, frame_end=30)  # fmt: skip
    empty = bpy.data.objects["T"]
    after = keys_of(empty)
    for index in range(3):
        frames = after[("location", index)][0:-1:2][:23]  # the keys' frames
        np.testing.assert_array_equal(frames, [-5, *range(10, 31), 80])
    for index in range(3):  # the rotation keys: exactly as they were
        assert np.array_equal(after[("rotation_euler", index)], before[("rotation_euler", index)])
    co = {i: after[("location", i)][: 2 * 23].reshape(-1, 2) for i in range(3)}
    assert tuple(co[0][0]) == (-5.0, 4.0) and tuple(co[0][-1]) == (80.0, 9.0)
    assert keys_of(bpy.data.objects["Chain"]).keys() == chain_before.keys()
    for channel, data in chain_before.items():
        assert np.array_equal(keys_of(bpy.data.objects["Chain"])[channel], data)
    run_op(bpy.ops.ed.undo)
    restored = keys_of(bpy.data.objects["T"])
    assert restored.keys() == before.keys()
    for channel, data in before.items():
        assert np.array_equal(restored[channel], data), channel


def test_the_active_constraints_target_is_animated_when_the_armature_is_active(
    clean_scene: bpy.types.Scene,
) -> None:
    """The animator sets up a Reach constraint, then runs Target Track from the Reach panel or
    Pose › Reach: the constraint's target moves, the armature gets no keys."""
    chain = make_chain()
    target = add_empty("Goal", (1.0, 0.0, 1.5))
    add_constraint(chain, "b2", target, "POSITION")
    activate(chain)
    run_op(bpy.ops.reach.target_track, shape="CIRCLE", size=0.5, plane="XZ",
           use_scene_range=False, frame_start=1, frame_end=13)  # fmt: skip
    assert len(_location_curves(target)) == 3 and not fcurves(chain)


def test_the_panel_offers_it_next_to_the_constraints_target(
    clean_scene: bpy.types.Scene, extension: object
) -> None:
    chain = make_chain()
    add_constraint(chain, "b2", add_empty("Goal", (1.0, 0.0, 1.5)), "POSITION")
    log = draw_panels(extension)  # type: ignore[arg-type]
    at = log.index(("prop", "target"))
    assert log[at + 1] == ("operator", "reach.target_track")


def test_the_dialog_shows_the_options_that_apply(
    clean_scene: bpy.types.Scene, extension: object
) -> None:
    operator = extension.operators.track_ops.REACH_OT_target_track  # type: ignore[attr-defined]
    rna = bpy.ops.reach.target_track.get_rna_type()

    def drawn(**values: object) -> list[str]:
        log: list = []
        operator.draw(SimpleNamespace(layout=Recorder(log), bl_rna=rna, **values), bpy.context)
        return [name for _kind, name in log]

    always = ["shape", "size", "turns", "plane", "center_from", "use_scene_range", "target"]
    assert drawn(center_from="OBJECT", use_scene_range=True) == always
    frames = ["use_scene_range", "frame_start", "frame_end", "target"]
    assert drawn(center_from="VALUE", use_scene_range=False) == [*always[:5], "center", *frames]


def test_a_reach_chain_follows_the_track(clean_scene: bpy.types.Scene) -> None:
    """A 3-bone chain (reach 3) whose tip follows a circle of radius 0.5 around (1, 0, 1.5) in
    XZ (at most 2.1 from the root): a short bake puts the tip on the empty at every frame."""
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 9
    chain = make_chain()
    target = add_empty("Goal", (1.0, 0.0, 1.5))
    add_constraint(chain, "b2", target, "POSITION")
    activate(chain)
    run_op(bpy.ops.reach.target_track, shape="CIRCLE", size=0.5, plane="XZ")
    run_op(bpy.ops.reach.bake)
    for frame in range(1, 10):
        scene.frame_set(frame)
        goal = np.array(target.matrix_world.translation)
        assert np.linalg.norm(goal - [1.0, 0.0, 1.5]) == pytest.approx(0.5, abs=1e-6)
        assert np.linalg.norm(world_bone_tail(chain, "b2") - goal) < 1e-4, frame


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"size": 0.0}, "'T': size must be more than 0 scene units (got 0)"),
        ({"size": -2.0}, "'T': size must be more than 0 scene units (got -2)"),
        ({"frame_end": 1}, "'T': frame range 1..1 has fewer than 2 frames"),
        ({"turns": 0.0}, "'T': turns must be a non-zero number"),
        ({"target": "Nowhere"}, "object 'Nowhere' not found"),
    ],
)
def test_bad_input_is_reported_and_changes_nothing(
    clean_scene: bpy.types.Scene, options: dict[str, object], message: str
) -> None:
    empty = add_empty("T", (0.0, 0.0, 0.0))
    empty.keyframe_insert("location", frame=1)
    before = keys_of(empty)
    with pytest.raises(RuntimeError, match=message.replace("(", r"\(").replace(")", r"\)")):
        _track(empty, **options)
    after = keys_of(empty)
    assert after.keys() == before.keys()
    for channel, data in before.items():
        assert np.array_equal(after[channel], data)


def test_no_object_or_no_usable_target_is_reported(clean_scene: bpy.types.Scene) -> None:
    with pytest.raises(RuntimeError, match="no object to animate"):
        bpy.ops.reach.target_track()
    chain = make_chain()
    activate(chain)
    with pytest.raises(RuntimeError, match="armature 'Chain' has no Reach constraint"):
        bpy.ops.reach.target_track()
    target = add_empty("Goal", (1.0, 0.0, 1.5))
    item = add_constraint(chain, "b2", target, "POSITION")
    item.target = None  # type: ignore[attr-defined]
    with pytest.raises(RuntimeError, match="Reach constraint 'b2 Position' of 'Chain' has no"):
        bpy.ops.reach.target_track()
    item.target = chain  # type: ignore[attr-defined]
    with pytest.raises(RuntimeError, match="is armature 'Chain' itself"):
        bpy.ops.reach.target_track()
    item.target_bone = "b0"  # type: ignore[attr-defined]
    with pytest.raises(RuntimeError, match="is bone 'b0' of 'Chain': Target Track moves an obj"):
        bpy.ops.reach.target_track()
    assert not fcurves(chain) and not fcurves(target)


def test_a_linked_target_is_refused(clean_scene: bpy.types.Scene, tmp_path: object) -> None:
    """Keys on an object linked from a library without an override would be lost on reload."""
    from tests.blender.test_linked import RIG, TARGET, link_library, write_library

    path = tmp_path / "character.blend"  # type: ignore[operator]
    write_library(path)
    load_empty_file()
    link_library(path)
    for active in (TARGET, RIG):  # the target itself, or the rig whose constraint targets it
        activate(bpy.data.objects[active])
        with pytest.raises(RuntimeError, match=rf"object '{TARGET}' is linked from .*character"):
            bpy.ops.reach.target_track()
    assert not bpy.data.actions
