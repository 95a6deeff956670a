// flamenco/reach-bake.js compiled against the harness of Flamenco's job-compiler API
// (harness.js): the tasks, their dependencies and their command lines.
// Run: node --test tests/flamenco/   (`make test-flamenco`, with the Node of .venv-types)
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const { frameChunker, loadJobType } = require("./harness.js");

const SCRIPT = path.join(__dirname, "..", "..", "flamenco", "reach-bake.js");
const { JOB_TYPE, compile } = loadJobType(SCRIPT);
const FOLDER = "/shots/sh010-reach-2026-11-27_140509";

test("the harness chunks frames as Flamenco documents", () => {
    assert.deepEqual(frameChunker("1-10", 4), ["1-4", "5-8", "9,10"]);
    assert.deepEqual(frameChunker("1..3,7", 10), ["1-3,7"]);
    assert.deepEqual(frameChunker("5", 3), ["5"]);
    assert.throws(() => frameChunker("1-10", 0));
});

test("the job type declares its settings", () => {
    const keys = JOB_TYPE.settings.map((s) => s.key);
    assert.deepEqual(keys, ["blender_cmd", "blendfile", "armatures", "frames", "chunk_size",
        "lead_in", "bake_to", "output", "fail_on_missed"]);
    const bakeTo = JOB_TYPE.settings.find((s) => s.key === "bake_to");
    assert.deepEqual(bakeTo.choices, ["CURRENT", "NEW_ACTION", "NEW_STRIP"]);
    assert.ok(JOB_TYPE.settings.find((s) => s.key === "blendfile").required);
});

test("one task per chunk, then a merge that depends on all of them", () => {
    const tasks = compile({ blendfile: "/shots/sh010.blend", frames: "1-120", chunk_size: 50 });
    assert.deepEqual(tasks.map((t) => t.name),
        ["reach-bake-1-50", "reach-bake-51-100", "reach-bake-101-120", "reach-merge"]);
    assert.ok(tasks.every((t) => t.type === "blender" && t.commands.length === 1));
    const merge = tasks[3];
    assert.deepEqual(merge.dependencies.map((t) => t.name), tasks.slice(0, 3).map((t) => t.name));
    assert.ok(tasks.slice(0, 3).every((t) => t.dependencies.length === 0));
    const [command] = tasks[1].commands;
    assert.equal(command.type, "exec");
    assert.equal(command.parameters.exe, "{blender}");
    assert.deepEqual(command.parameters.args, [
        "-b", "/shots/sh010.blend", "--command", "reach_bake",
        "--frames", "51-100", "--shot", "1-120", "--lead-in", "10",
        "--chunk", `${FOLDER}/chunk-51-100.json`,
        "--report", `${FOLDER}/chunk-51-100-report.json`, "--missed-ok",
    ]);
    assert.deepEqual(merge.commands[0].parameters.args, [
        "-b", "/shots/sh010.blend", "--command", "reach_merge",
        `${FOLDER}/chunk-1-50.json`, `${FOLDER}/chunk-51-100.json`, `${FOLDER}/chunk-101-120.json`,
        "--to", "CURRENT", "--save", "--report", `${FOLDER}/merge-report.json`, "--missed-ok",
    ]);
});

test("armatures, target, output, lead-in and strictness reach the command lines", () => {
    const tasks = compile({
        blendfile: "/shots/sh010.blend", frames: "11..14", chunk_size: 2, lead_in: 3,
        armatures: "Hero, Sidekick", bake_to: "NEW_STRIP", output: "/out/sh010_baked.blend",
        fail_on_missed: true,
    });
    assert.deepEqual(tasks.map((t) => t.name), ["reach-bake-11-12", "reach-bake-13-14", "reach-merge"]);
    const args = tasks[0].commands[0].parameters.args;  // frameChunker gave "11,12"
    assert.deepEqual(args.slice(4, 8), ["--armature", "Hero", "--armature", "Sidekick"]);
    assert.deepEqual(args.slice(8, 14), ["--frames", "11-12", "--shot", "11-14", "--lead-in", "3"]);
    assert.ok(!args.includes("--missed-ok"));
    const merge = tasks[2].commands[0].parameters.args;
    assert.deepEqual(merge.slice(merge.indexOf("--to"), merge.indexOf("--to") + 4),
        ["--to", "NEW_STRIP", "--output", "/out/sh010_baked.blend"]);
    assert.ok(!merge.includes("--save"));
});

test("frames that are not one range are refused", () => {
    for (const frames of ["1-10,20-30", "10-2", "all"]) {
        assert.throws(() => compile({ blendfile: "/s.blend", frames }), /Reach IK Bake/);
    }
    assert.throws(() => compile({ frames: "1-10" }), /blendfile/);
});
