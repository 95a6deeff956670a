// A harness of Flamenco 3's job-compiler API, as its documentation describes it, for testing
// job types under plain Node (no npm packages): a script's globals `author.Task(name, type)`,
// `author.Command(type, parameters)`, `task.addCommand`, `task.addDependency`, `job.addTask`,
// `frameChunker(frames, chunkSize)`, `path.join/dirname/basename/stem`,
// `formatTimestampLocal(date)`, `print`, `alert`. A job type is a script defining `JOB_TYPE`
// and `compileJob(job)`; Flamenco runs it in its own JavaScript engine, here it runs in a
// `vm` context with these globals only.
"use strict";

const fs = require("node:fs");
const posix = require("node:path").posix;
const vm = require("node:vm");

// "1-10,20..25,40" -> sorted unique frames; Flamenco accepts "-" and Blender's "..".
function explode(frames) {
    const out = new Set();
    for (const part of String(frames).replace(/\.\./g, "-").split(",")) {
        const m = /^\s*(-?\d+)\s*(?:-\s*(-?\d+)\s*)?$/.exec(part);
        if (!m) {
            throw new Error(`invalid range "${frames}": ${part}`);
        }
        const a = parseInt(m[1], 10);
        const b = m[2] === undefined ? a : parseInt(m[2], 10);
        for (let f = a; f <= b; f++) {
            out.add(f);
        }
    }
    return [...out].sort((x, y) => x - y);
}

// Consecutive frames as Flamenco writes them: "3-8", a pair "3,4", one frame "3".
function merge(frames) {
    const ranges = [];
    let start = frames[0];
    let previous = frames[0];
    const close = (a, b) => {
        if (a === b) ranges.push(`${a}`);
        else if (a + 1 === b) ranges.push(`${a}`, `${b}`);
        else ranges.push(`${a}-${b}`);
    };
    for (const f of frames.slice(1)) {
        if (f > previous + 1) {
            close(start, previous);
            start = f;
        }
        previous = f;
    }
    close(start, previous);
    return ranges.join(",");
}

function frameChunker(frames, chunkSize) {
    if (!(chunkSize >= 1)) {
        throw new Error(`invalid chunk size, must be positive number: ${chunkSize}`);
    }
    const all = explode(frames);
    if (all.length === 0) {
        throw new Error(`invalid range "${frames}": empty range`);
    }
    const chunks = [];
    for (let i = 0; i < all.length; i += chunkSize) {
        chunks.push(merge(all.slice(i, i + chunkSize)));
    }
    return chunks;
}

class Task {
    constructor(name, type) {
        this.name = name;
        this.type = type;
        this.commands = [];
        this.dependencies = [];
    }
    addCommand(command) {
        this.commands.push(command);
    }
    addDependency(task) {
        this.dependencies.push(task);
    }
}

const author = {
    Task: (name, type) => new Task(name, type),
    // A copy made here: the script's arrays belong to its own realm (vm context).
    Command: (type, parameters) => ({ type, parameters: JSON.parse(JSON.stringify(parameters)) }),
};

const pathApi = {
    join: (...parts) => posix.join(...parts),
    dirname: (p) => posix.dirname(p),
    basename: (p) => posix.basename(p),
    stem: (p) => posix.basename(p, posix.extname(p)),
};

function formatTimestampLocal(date) {
    const pad = (n) => String(n).padStart(2, "0");
    return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}_` +
        `${pad(date.getHours())}${pad(date.getMinutes())}${pad(date.getSeconds())}`;
}

// Load the job type script `file`: { JOB_TYPE, compile(settings, created) -> tasks }.
// `compile` fills the settings' defaults from JOB_TYPE as the Manager does for a submitted job.
function loadJobType(file) {
    const context = vm.createContext({
        author, frameChunker, path: pathApi, formatTimestampLocal,
        print: () => {}, alert: () => {},
    });
    vm.runInContext(`${fs.readFileSync(file, "utf8")}\n;globalThis.__jobType = JOB_TYPE;` +
        "globalThis.__compile = compileJob;", context, { filename: file });
    const JOB_TYPE = JSON.parse(JSON.stringify(context.__jobType));
    const compile = (settings, created = new Date(2026, 10, 27, 14, 5, 9)) => {
        const filled = {};
        for (const s of JOB_TYPE.settings) {
            if (s.default !== undefined) filled[s.key] = s.default;
        }
        Object.assign(filled, settings);
        for (const s of JOB_TYPE.settings) {
            if (s.required && (filled[s.key] === undefined || filled[s.key] === "")) {
                throw new Error(`setting "${s.key}" is required`);
            }
        }
        const tasks = [];
        context.__compile({ settings: filled, created, addTask: (t) => tasks.push(t) });
        return tasks;
    };
    return { JOB_TYPE, compile };
}

module.exports = { frameChunker, loadJobType };
