#!/usr/bin/env bash
# Run the agent loop under Pyodide on Node: set up once into a cache folder
# outside git, then run tests/pyodide/scenarios.py inside Pyodide.
#
#   bash tests/pyodide/run.sh        (from anywhere; see README.md here)
#
# Needs node >= 18, npm and pip; reaches only the npm and Python package
# registries, and only when the cache lacks something.
# AGENTLAB_PYODIDE_CACHE overrides the cache folder (default: .pyodide-cache/).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CACHE=${AGENTLAB_PYODIDE_CACHE:-$REPO/.pyodide-cache}
PYTHON=${PYTHON:-python3}
mkdir -p "$CACHE"

started=$EPOCHREALTIME
stage() {  # print how long the stage that just ended took
    local now=$EPOCHREALTIME
    awk -v a="$started" -v b="$now" -v l="$1" 'BEGIN { printf "setup  %s: %.2f s\n", l, b - a }'
    started=$now
}
key() { cat "$@" | sha256sum | cut -c1-12; }
keep_only() {  # remove the cache folders of older pins: keep_only prefix current
    find "$CACHE" -mindepth 1 -maxdepth 1 -name "$1-*" ! -name "$2" -exec rm -rf {} +
}

command -v node >/dev/null || { echo "run.sh: node (>= 18) is needed" >&2; exit 2; }

# The pure-Python and wasm wheels pin the versions requirements.lock pins.
"$PYTHON" - "$REPO/requirements.lock" "$HERE"/requirements-*.txt <<'PY'
import re, sys

def pins(path):
    found = {}
    for line in open(path, encoding="utf-8"):
        match = re.match(r"\s*([A-Za-z0-9_.-]+)==([^\s;]+)", line)
        if match:
            found[re.sub(r"[-_.]+", "-", match[1]).lower()] = match[2]
    return found

lock = pins(sys.argv[1])
wrong = [
    f"{name}=={version} (requirements.lock: {lock[name]})"
    for path in sys.argv[2:]
    for name, version in pins(path).items()
    if name in lock and lock[name] != version
]
if wrong:
    sys.exit("run.sh: tests/pyodide pins differ from requirements.lock: " + ", ".join(wrong))
PY

# 1. Pyodide itself, from npm, exactly as package-lock.json pins it.
node_dir="node-$(key "$HERE/package-lock.json")"
if [ ! -f "$CACHE/$node_dir/node_modules/pyodide/package.json" ]; then
    keep_only node "$node_dir"
    mkdir -p "$CACHE/$node_dir"
    cp "$HERE/package.json" "$HERE/package-lock.json" "$CACHE/$node_dir/"
    (cd "$CACHE/$node_dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
PYODIDE="$CACHE/$node_dir/node_modules/pyodide"
stage "npm ci pyodide $(node -p "require('$PYODIDE/package.json').version")"

# 2. The wheels, for the Python and platform that this Pyodide is built for.
read -r py_version platform < <(node -e "
const info = require('$PYODIDE/pyodide-lock.json').info;
console.log(info.python.split('.').slice(0, 2).join('.'), 'pyemscripten_' + info.abi_version + '_' + info.arch);
")
wheel_dir="wheels-$(key "$HERE"/requirements-*.txt "$PYODIDE/package.json")"
if [ ! -f "$CACHE/$wheel_dir/.complete" ]; then
    keep_only wheels "$wheel_dir"
    download=("$PYTHON" -m pip download -qq --disable-pip-version-check --no-deps
              --require-hashes --only-binary=:all: --python-version "$py_version"
              --implementation cp -d "$CACHE/$wheel_dir")
    "${download[@]}" -r "$HERE/requirements-pure.txt"
    "${download[@]}" -r "$HERE/requirements-wasm.txt" --platform "$platform" \
        --abi "cp${py_version/./}"
    touch "$CACHE/$wheel_dir/.complete"
fi
stage "pip download wheels for Python $py_version, $platform"

# 3. The loop, inside Pyodide.
exec node "$HERE/run_loop.mjs" "$PYODIDE" "$CACHE/$wheel_dir" "$REPO"
