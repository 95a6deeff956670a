// Print the tasks a job type compiles, as JSON: node compile.js JOBTYPE.js SETTINGS.json
// (used by tests/blender/test_farm_flamenco.py to run the generated commands here).
"use strict";

const fs = require("node:fs");
const { loadJobType } = require("./harness.js");

const [script, settingsFile] = process.argv.slice(2);
const tasks = loadJobType(script).compile(JSON.parse(fs.readFileSync(settingsFile, "utf8")));
const out = tasks.map((t) => ({
    name: t.name, type: t.type, commands: t.commands,
    dependencies: t.dependencies.map((d) => d.name),
}));
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
