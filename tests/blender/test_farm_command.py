"""``reach_bake`` and ``reach_check`` from the command line (``python -m reach_ik.cli``, each in
its own process, as on a farm): exit codes 0 / 1 / 2, the JSON report, the file untouched on
error, and the same keys as the Bake button."""

from __future__ import annotations

from pathlib import Path

import bpy
import numpy as np

from tests.blender.conftest import run_op
from tests.blender.farm_support import (
    SHOT,
    circle,
    key_values,
    open_file,
    report_of,
    run_command,
    save_shot,
    sha256,
)  # fmt: skip
from tests.blender.reach_scenes import add_constraint, add_empty, follow_path, make_chain


def test_bake_keys_the_shot_like_the_bake_button(extension, clean_scene, tmp_path: Path) -> None:
    """Exit 0, a JSON report per constraint (worst residual measured on Blender's pose and its
    frame, frames/s, method), and keys identical to the Bake button's on the same file."""
    blend = save_shot(tmp_path)
    out, json_report = tmp_path / "baked.blend", tmp_path / "bake.json"
    done = run_command(extension, blend, "reach_bake", "--output", str(out),
                       "--report", str(json_report))  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("Chain / ") == 1, done.stdout  # one line per constraint
    report = report_of(json_report)
    assert report["exit_code"] == 0 and report["error"] is None
    assert report["saved"] == str(out.resolve())
    [armature] = report["armatures"]
    assert armature["armature"] == "Chain" and armature["satisfied"]
    assert armature["frames"] == [1, SHOT] and armature["keys"] > 0
    assert armature["frames_per_second"] > 0 and armature["method"]
    [constraint] = armature["constraints"]
    assert constraint["satisfied"] and constraint["missed_frames"] == 0
    assert 1 <= constraint["worst_distance_frame"] <= SHOT
    assert 0.0 <= constraint["worst_distance"] < 1e-3
    open_file(out)
    by_command = key_values(bpy.data.objects["Chain"])
    open_file(blend)  # the shot file itself was not written: no key on the chain
    assert key_values(bpy.data.objects["Chain"]) == {}
    bpy.context.view_layer.objects.active = bpy.data.objects["Chain"]
    run_op(bpy.ops.reach.bake, batched=False)  # reach_bake is a chain (docs/farm.md)
    by_button = key_values(bpy.data.objects["Chain"])
    assert by_command.keys() == by_button.keys()
    for channel, keys in by_button.items():
        np.testing.assert_array_equal(by_command[channel], keys, err_msg=str(channel))


def test_a_missed_goal_exits_1_and_keys_are_written(extension, clean_scene, tmp_path) -> None:
    """A target beyond the chain's reach on the whole shot: exit 1, the keys saved, the report
    names the missed frames and the worst one; with --missed-ok the exit code is 0 and the
    report still says the goals are missed."""
    blend = save_shot(tmp_path, circle(radius=3.6, z=0.5))  # the chain is 3 units long
    before = sha256(blend)
    json_report = tmp_path / "bake.json"
    done = run_command(extension, blend, "reach_bake", "--save", "--report", str(json_report))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "MISSED" in done.stdout
    report = report_of(json_report)
    assert report["exit_code"] == 1
    [constraint] = report["armatures"][0]["constraints"]
    assert not constraint["satisfied"] and constraint["missed_frames"] == SHOT
    assert constraint["worst_distance"] > 0.5
    assert sha256(blend) != before  # saved
    lenient = run_command(extension, blend, "reach_check", "--missed-ok",
                          "--report", str(tmp_path / "check.json"))  # fmt: skip
    assert lenient.returncode == 0, lenient.stdout + lenient.stderr  # for a farm's task
    checked = report_of(tmp_path / "check.json")
    assert checked["exit_code"] == 0 and checked["satisfied"] is False
    open_file(blend)
    assert len(key_values(bpy.data.objects["Chain"])) > 3  # keys on the solved channels


def test_an_error_exits_2_and_leaves_the_file_untouched(extension, clean_scene, tmp_path) -> None:
    """A broken second armature (its target deleted) after a good one: exit 2, the error in
    the report, and the file on disk byte for byte as it was (nothing saved)."""
    follow_path(circle(), SHOT)
    bpy.data.objects["Chain"].name = "A"
    broken = make_chain("B")
    goal = add_empty("Gone", (0.5, 0.5, 2.0))
    add_constraint(broken, "b2", goal, "POSITION")
    bpy.data.objects.remove(goal)
    blend = tmp_path / "shot.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(blend))
    before, stamp = sha256(blend), blend.stat().st_mtime_ns
    json_report = tmp_path / "bake.json"
    done = run_command(extension, blend, "reach_bake", "--save", "--report", str(json_report))
    assert done.returncode == 2, done.stdout + done.stderr
    report = report_of(json_report)
    assert report["exit_code"] == 2 and "'B'" in report["error"], report["error"]
    assert "nothing written" in done.stdout
    assert sha256(blend) == before and blend.stat().st_mtime_ns == stamp


def test_usage_errors_exit_2(extension, clean_scene, tmp_path) -> None:
    """A wrong argument, a missing armature, a frame range backwards: exit 2, file untouched."""
    blend = save_shot(tmp_path)
    before = sha256(blend)
    for args in (["--frames", "10-2"], ["--armature", "Nobody", "--save"], ["--bogus"],
                 ["--to", "SOMEWHERE"]):  # fmt: skip
        done = run_command(extension, blend, "reach_bake", *args)
        assert done.returncode == 2, (args, done.stdout + done.stderr)
        assert "ERROR" in done.stdout, done.stdout + done.stderr
    assert sha256(blend) == before


def test_check_measures_what_is_baked_and_writes_nothing(extension, clean_scene, tmp_path) -> None:
    """``reach_check`` on an unbaked shot: exit 1 (the rest pose misses the goal); on the baked
    shot: exit 0 with the bake's worst residual; the file never written."""
    blend = save_shot(tmp_path)
    unbaked = run_command(extension, blend, "reach_check", "--report", str(tmp_path / "u.json"))
    assert unbaked.returncode == 1, unbaked.stdout + unbaked.stderr
    assert report_of(tmp_path / "u.json")["armatures"][0]["constraints"][0]["missed_frames"] > 0
    baked = tmp_path / "baked.blend"
    bake = run_command(extension, blend, "reach_bake", "--output", str(baked),
                       "--report", str(tmp_path / "b.json"))  # fmt: skip
    assert bake.returncode == 0, bake.stdout + bake.stderr
    before = sha256(baked)
    check = run_command(extension, baked, "reach_check", "--report", str(tmp_path / "c.json"))
    assert check.returncode == 0, check.stdout + check.stderr
    assert sha256(baked) == before
    checked = report_of(tmp_path / "c.json")["armatures"][0]["constraints"][0]
    from_bake = report_of(tmp_path / "b.json")["armatures"][0]["constraints"][0]
    assert checked["worst_distance"] == from_bake["worst_distance"]
    assert checked["worst_distance_frame"] == from_bake["worst_distance_frame"]


def test_the_extension_registers_its_blender_commands(extension, capfd) -> None:
    """``blender --command reach_bake`` finds the extension's commands: registering one of
    their names again makes Blender warn of a duplicate (a name nobody registered does not);
    the duplicate is removed again, which gives the extension's its place back."""
    capfd.readouterr()
    for name in ("reach_bake", "reach_check", "reach_merge", "reach_nothing"):
        handle = bpy.utils.register_cli_command(name, lambda argv: 0)
        bpy.utils.unregister_cli_command(handle)
    warnings = capfd.readouterr().err
    for name in ("reach_bake", "reach_check", "reach_merge"):
        assert f'registered duplicate command "{name}"' in warnings, warnings
    assert "reach_nothing" not in warnings
