"""A shot baked in two chunks by two processes and merged (``reach_bake --chunk``,
``reach_merge``), against one bake of the whole shot; the merge's refusals."""

from __future__ import annotations

import json
from pathlib import Path

import bpy
import numpy as np

from tests.blender.farm_support import (
    SHOT,
    circle,
    open_file,
    report_of,
    rotation_keys,
    run_command,
    save_shot,
    sha256,
)  # fmt: skip

LEAD_IN = 10
#: The largest frame-to-frame change of a key in the merged shot, at most this many times the
#: largest one of the unsplit bake: no jump at a chunk boundary.
JUMP = 1.5


def _chunks(extension, blend: Path, folder: Path, spans: list[str]) -> list[Path]:
    """Bake ``spans`` (e.g. "1-12") of ``blend`` as chunks, each in its own process."""
    out = []
    for span in spans:
        path = folder / f"chunk_{span}.json"
        done = run_command(extension, blend, "reach_bake", "--chunk", str(path), "--frames",
                           span, "--lead-in", str(LEAD_IN))  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        out.append(path)
    return out


def _steps(keys: dict[tuple[str, int], np.ndarray]) -> np.ndarray:
    """(n_frames - 1,) the largest change of any channel from each frame to the next."""
    return np.max([np.abs(np.diff(v[:, 1])) for v in keys.values()], axis=0)


def test_two_chunks_merge_into_the_shot_with_no_jump(extension, clean_scene, tmp_path) -> None:
    """Chunks 1-12 and 13-24 merged: every goal met on every frame (measured), the frames
    before the stitch identical to one bake's, no frame-to-frame change of a key much larger
    than the one bake's largest (no jump at the boundary), the same chunk baked twice the
    same."""
    blend = save_shot(tmp_path)
    chunks = _chunks(extension, blend, tmp_path, ["1-12", "13-24"])
    merged, whole = tmp_path / "merged.blend", tmp_path / "whole.blend"
    done = run_command(extension, blend, "reach_merge", *map(str, chunks), "--output",
                       str(merged), "--report", str(tmp_path / "merge.json"))  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    [armature] = report_of(tmp_path / "merge.json")["armatures"]
    assert armature["frames"] == [1, SHOT] and armature["satisfied"]
    one = run_command(extension, blend, "reach_bake", "--output", str(whole))
    assert one.returncode == 0, one.stdout + one.stderr
    open_file(merged)
    by_chunks = rotation_keys(bpy.data.objects["Chain"])
    open_file(whole)
    by_one = rotation_keys(bpy.data.objects["Chain"])
    assert by_chunks.keys() == by_one.keys() and by_one
    untouched = 13 - LEAD_IN - 1  # frames of chunk 1 before the stitched lead-in of chunk 2
    difference = np.max([np.abs(by_chunks[k][:, 1] - by_one[k][:, 1]) for k in by_one], axis=0)
    assert np.all(difference[:untouched] == 0.0), difference
    steps_chunks, steps_one = _steps(by_chunks), _steps(by_one)
    print(f"max key difference {difference.max():.4f} (frame {difference.argmax() + 1}); "
          f"largest step: chunks {steps_chunks.max():.4f}, one bake {steps_one.max():.4f}; "
          f"step 12->13: {steps_chunks[11]:.4f}")  # fmt: skip
    # A branch jump is a step several times the motion of a frame; the stitch spreads the
    # chunks' difference over the lead-in frames (without it: a step of 0.23 at 12->13).
    assert steps_chunks.max() <= JUMP * steps_one.max()
    (tmp_path / "again").mkdir()
    again = _chunks(extension, blend, tmp_path / "again", ["13-24"])
    first = json.loads(chunks[1].read_text())["armatures"]
    second = json.loads(again[0].read_text())["armatures"]
    assert first == second


def test_merge_refuses_chunks_of_another_version(extension, clean_scene, tmp_path) -> None:
    """A chunk baked before the file changed (a target key moved, the file saved): exit 2,
    the report names the chunk, and the file is not written."""
    blend = save_shot(tmp_path)
    [early] = _chunks(extension, blend, tmp_path, ["1-12"])
    target = bpy.data.objects["T"]
    target.location = (0.0, 1.0, 2.2)
    target.keyframe_insert("location", frame=5)
    bpy.ops.wm.save_mainfile()
    [late] = _chunks(extension, blend, tmp_path, ["13-24"])
    before, stamp = sha256(blend), blend.stat().st_mtime_ns
    done = run_command(extension, blend, "reach_merge", str(early), str(late), "--save",
                       "--report", str(tmp_path / "merge.json"))  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    error = report_of(tmp_path / "merge.json")["error"]
    assert "another version of the file" in error and early.name in error, error
    assert sha256(blend) == before and blend.stat().st_mtime_ns == stamp


def test_merge_refuses_a_gap_between_chunks(extension, clean_scene, tmp_path) -> None:
    """Chunks 1-10 and 12-24 leave frame 11 unbaked; chunk 12-24 alone leaves 1-11: exit 2,
    nothing written."""
    blend = save_shot(tmp_path, circle(radius=1.0))
    chunks = _chunks(extension, blend, tmp_path, ["1-10", "12-24"])
    before = sha256(blend)
    done = run_command(extension, blend, "reach_merge", *map(str, chunks), "--save")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "leave a gap" in done.stdout, done.stdout
    assert sha256(blend) == before
    done = run_command(extension, blend, "reach_merge", str(chunks[1]), "--save")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "cover 12-24 of the shot 1-24: a chunk is missing" in done.stdout, done.stdout
    assert sha256(blend) == before


def test_a_merge_into_a_new_strip_leaves_the_action_alone(extension, clean_scene, tmp_path) -> None:
    """``reach_merge --to NEW_STRIP``: the chunks go to a strip on the "Reach Bake" track, the
    armature's action keys nothing new, and the shot meets its goals as played back."""
    blend = save_shot(tmp_path)
    chunks = _chunks(extension, blend, tmp_path, ["1-12", "13-24"])
    merged = tmp_path / "strip.blend"
    done = run_command(extension, blend, "reach_merge", *map(str, chunks), "--to", "NEW_STRIP",
                       "--output", str(merged))  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    open_file(merged)
    chain = bpy.data.objects["Chain"]
    assert rotation_keys(chain) == {}
    [track] = chain.animation_data.nla_tracks
    assert track.name == "Reach Bake" and len(track.strips) == 1
    strip = track.strips[0]
    assert (strip.frame_start, strip.frame_end) == (1.0, float(SHOT))
