// Load Pyodide in Node, install the wheels run.sh downloaded, copy agentlab
// into Pyodide's file system and run scenarios.py there.
//
//   node run_loop.mjs <pyodide package dir> <wheel dir> <repository root>
//
// Nothing is fetched: every file comes from the three folders given. Pyodide
// would otherwise download packages from its CDN, which CI cannot reach.
// Prints one line per set-up stage and per scenario; the exit status is the
// scenarios' (0: all kept their promise), or 2 when the set-up failed.

import { readdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, wheelDir, repo] = process.argv.slice(2).map((p) => path.resolve(p));
if (!repo) {
  console.error("usage: node run_loop.mjs <pyodide package dir> <wheel dir> <repository root>");
  process.exit(2);
}

const began = performance.now();
let last = began;
function stage(label) {
  const now = performance.now();
  console.log(`setup  ${label}: ${((now - last) / 1000).toFixed(2)} s`);
  last = now;
}

// The copy inside Pyodide: the scenarios find the package (with its data/)
// where it is in the repository, and nothing Python writes reaches the host.
const ROOT = "/home/pyodide/repo";
const COPY = `
import shutil
skip = shutil.ignore_patterns("__pycache__", "*.pyc")
shutil.copytree("/mnt/repo/agentlab", "${ROOT}/agentlab", ignore=skip)
shutil.copytree("/mnt/repo/tests/pyodide", "${ROOT}/tests/pyodide", ignore=skip)
`;
const RUN = `
import runpy, sys
sys.argv = ["${ROOT}/tests/pyodide/scenarios.py"]
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
    code = 0
except SystemExit as stop:
    code = stop.code if isinstance(stop.code, int) else 1
code
`;

async function setUp() {
  const { loadPyodide, version } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")));
  const pyodide = await loadPyodide({ indexURL: pyodideDir + path.sep });
  stage(`loadPyodide (pyodide ${version})`);

  const wheels = readdirSync(wheelDir).filter((name) => name.endsWith(".whl"));
  const problems = [];
  const loaded = await pyodide.loadPackage(
    wheels.map((name) => path.join(wheelDir, name)),
    { messageCallback: () => {}, errorCallback: (message) => problems.push(message) },
  );
  if (problems.length || loaded.length !== wheels.length) {
    throw new Error(`installed ${loaded.length} of ${wheels.length} wheels: ${problems.join("; ")}`);
  }
  stage(`install ${wheels.length} wheels`);

  pyodide.mountNodeFS("/mnt/repo", repo);
  pyodide.runPython(COPY);
  pyodide.FS.unmount("/mnt/repo");
  stage("copy agentlab (with its data/), tests/pyodide");

  pyodide.runPython(`import sys; sys.path.insert(0, "${ROOT}"); import agentlab.clients`);
  stage("import agentlab (openai, pydantic)");
  return pyodide;
}

let pyodide;
try {
  pyodide = await setUp();
} catch (error) {
  console.log(`SETUP FAILED: ${error.message ?? error}`);
  process.exit(2);
}
let code;
try {
  code = pyodide.runPython(RUN);
} catch (error) {
  console.log(`SCENARIOS CRASHED: ${error.message ?? error}`);
  code = 2;
}
console.log(`total  ${((performance.now() - began) / 1000).toFixed(2)} s in Node`);
process.exit(code);
