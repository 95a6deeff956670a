// SPDX-License-Identifier: GPL-3.0-or-later
//
// Reach IK: bake a shot's Reach constraints on a Flamenco 3 farm.
//
// A job compiler script: put this file in the `scripts` folder next to the Flamenco Manager
// executable and restart the Manager (docs/farm.md). Every worker runs Blender with the Reach IK
// extension installed and enabled; `{blender}` is the Manager's variable for its executable.
//
// One task per chunk of frames runs `blender -b FILE --command reach_bake --chunk ...` (each
// chunk also solves `lead_in` frames before it and keeps them for the stitch); one merge task,
// depending on every chunk task, runs `reach_merge`, which stitches the chunks, keys the shot
// and saves the file (or the output file). A merge refuses chunks baked from another version of
// the file. Tested under Node against a harness of the job-compiler API: tests/flamenco/.

const JOB_TYPE = {
    label: "Reach IK Bake",
    description: "Bake the Reach IK constraints of a shot's armatures into keys, in chunks",
    settings: [
        { key: "blender_cmd", type: "string", default: "{blender}", visible: false },
        { key: "blendfile", type: "string", subtype: "file_path", required: true,
          description: "The .blend of the shot (saved: a merge refuses chunks of another version)" },
        { key: "armatures", type: "string", default: "",
          description: "Armatures to bake, comma-separated; empty: every armature with Reach constraints" },
        { key: "frames", type: "string", required: true,
          eval: "f'{C.scene.frame_start}-{C.scene.frame_end}'",
          description: "The shot's frames, one range FIRST-LAST (e.g. 1-250)" },
        { key: "chunk_size", type: "int32", default: 50, propargs: { min: 1 },
          description: "Frames baked by one task" },
        { key: "lead_in", type: "int32", default: 10, propargs: { min: 0 },
          description: "Frames solved before each chunk, blended into the chunk before it" },
        { key: "bake_to", type: "string", default: "CURRENT",
          choices: ["CURRENT", "NEW_ACTION", "NEW_STRIP"],
          description: "The current action, a new action, or a new NLA strip" },
        { key: "output", type: "string", subtype: "file_path", default: "",
          description: "Save the baked shot here; empty: save over the .blend" },
        { key: "fail_on_missed", type: "bool", default: false,
          description: "Fail a task when a goal is missed (the report lists misses either way)" },
    ],
};

// "1-120" or "1..120" -> [1, 120]; a chunk of frameChunker ("1-50", "7", "7,8") likewise.
function frameSpan(text) {
    const parts = String(text).replace(/\.\./g, "-").split(",").map((p) => p.trim());
    const spans = parts.map((part) => {
        const m = /^(-?\d+)(?:-(-?\d+))?$/.exec(part);
        if (!m) {
            throw new Error(`Reach IK Bake: "${text}" is not a frame range like 1-250`);
        }
        return [parseInt(m[1], 10), parseInt(m[2] === undefined ? m[1] : m[2], 10)];
    });
    for (let i = 1; i < spans.length; i++) {
        if (spans[i][0] !== spans[i - 1][1] + 1) {
            throw new Error(`Reach IK Bake: the frames "${text}" are not one range (a bake is a chain)`);
        }
    }
    const first = spans[0][0];
    const last = spans[spans.length - 1][1];
    if (last < first) {
        throw new Error(`Reach IK Bake: in "${text}" the last frame is before the first`);
    }
    return [first, last];
}

function armatureArgs(settings) {
    const names = String(settings.armatures || "").split(",").map((n) => n.trim()).filter((n) => n);
    const args = [];
    for (const name of names) {
        args.push("--armature", name);
    }
    return args;
}

function compileJob(job) {
    const settings = job.settings;
    const [first, last] = frameSpan(settings.frames);
    const shot = `${first}-${last}`;
    const stem = path.stem(settings.blendfile);
    const folder = path.join(path.dirname(settings.blendfile),
                             `${stem}-reach-${formatTimestampLocal(job.created)}`);
    const missed = settings.fail_on_missed ? [] : ["--missed-ok"];
    const blender = (args) => author.Command("exec", { exe: settings.blender_cmd, args: args });

    const chunkTasks = [];
    const chunkFiles = [];
    for (const chunk of frameChunker(shot, settings.chunk_size)) {
        const [a, b] = frameSpan(chunk);
        const chunkFile = path.join(folder, `chunk-${a}-${b}.json`);
        const task = author.Task(`reach-bake-${a}-${b}`, "blender");
        task.addCommand(blender([
            "-b", settings.blendfile, "--command", "reach_bake",
            ...armatureArgs(settings),
            "--frames", `${a}-${b}`, "--shot", shot, "--lead-in", String(settings.lead_in),
            "--chunk", chunkFile, "--report", path.join(folder, `chunk-${a}-${b}-report.json`),
            ...missed,
        ]));
        chunkTasks.push(task);
        chunkFiles.push(chunkFile);
    }

    const save = settings.output ? ["--output", settings.output] : ["--save"];
    const merge = author.Task("reach-merge", "blender");
    merge.addCommand(blender([
        "-b", settings.blendfile, "--command", "reach_merge", ...chunkFiles,
        "--to", settings.bake_to, ...save, "--report", path.join(folder, "merge-report.json"),
        ...missed,
    ]));
    for (const task of chunkTasks) {
        merge.addDependency(task);
        job.addTask(task);
    }
    job.addTask(merge);
}
