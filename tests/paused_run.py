"""Run every notebook as a student reading at their own pace, and compare.

A student (or an instructor explaining) waits before running each cell. A
notebook must print the same thing then as when nbval runs it straight
through: nothing in it may depend on time passing between cells. This script
executes each notebook cell by cell, sleeping ``--pause`` seconds before each
code cell, and compares every output with the one stored in the notebook,
masking only what ``tests/nbval_sanitize.cfg`` masks (as nbval does; images
are not compared, as nbval does not compare them either).

The notebooks run side by side (each in its own kernel), since they mostly
sleep. Exit code 0 when every output matches.

    .venv/bin/python tests/paused_run.py --pause 5 notebooks/*.ipynb
"""

from __future__ import annotations

import argparse
import configparser
import json
import os
import re
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
SKIPPED_MIME = {"image/png", "image/jpeg"}  # nbval does not compare images either


def sanitizers(path: Path = HERE / "nbval_sanitize.cfg") -> list[tuple[re.Pattern, str]]:
    config = configparser.ConfigParser(interpolation=None)  # the rules hold "%"
    config.read(path, encoding="utf-8")
    return [(re.compile(config[s]["regex"]), config[s]["replace"]) for s in config.sections()]


def as_text(value: object) -> str:
    """A MIME bundle's value as text; a JSON one (Vega-Lite) with sorted keys, since the
    stored notebook has its keys sorted and a fresh output keeps the order it was built in."""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def comparable(outputs: list, rules: list[tuple[re.Pattern, str]]) -> list[tuple[str, str]]:
    """Each output as (kind, text), sanitized, in order."""
    found = []
    for output in outputs:
        kind = output.get("output_type")
        if kind == "stream":
            pieces = [(f"stream:{output.get('name')}", output.get("text", ""))]
        elif kind in ("execute_result", "display_data"):
            data = output.get("data", {})
            shown = [m for m in sorted(data) if m not in SKIPPED_MIME]
            pieces = [(f"data:{m}", as_text(data[m])) for m in shown]
        elif kind == "error":
            pieces = [("error", f"{output.get('ename')}: {output.get('evalue')}")]
        else:
            pieces = [(kind or "?", "")]
        for label, text in pieces:
            if isinstance(text, list):
                text = "".join(text)
            for pattern, replacement in rules:
                text = pattern.sub(replacement, text)
            found.append((label, text))
    return merged_streams(found)


def merged_streams(outputs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Consecutive pieces of one stream as one (a pause can split a print in two)."""
    merged: list[tuple[str, str]] = []
    for label, text in outputs:
        if merged and label.startswith("stream:") and merged[-1][0] == label:
            merged[-1] = (label, merged[-1][1] + text)
        else:
            merged.append((label, text))
    return merged


def run_paused(path: Path, pause: float, timeout: int) -> list[str]:
    """Execute ``path`` with a pause before each code cell; the differences found."""
    stored = nbformat.read(path, as_version=4)
    fresh = nbformat.read(path, as_version=4)
    rules = sanitizers()
    client = NotebookClient(
        fresh,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    problems = []
    with client.setup_kernel():
        for index, cell in enumerate(fresh.cells):
            if cell.cell_type != "code":
                continue
            time.sleep(pause)
            cell.outputs = []
            client.execute_cell(cell, index)
            want = comparable(stored.cells[index].get("outputs", []), rules)
            got = comparable(cell.outputs, rules)
            if want != got:
                problems.append(describe(path, index, cell.source, want, got))
    return problems


def describe(path: Path, index: int, source: str, want: list, got: list) -> str:
    first = source.strip().splitlines()[0] if source.strip() else ""
    lines = [f"{path.name} cell {index} ({first[:60]!r}) differs after a pause:"]
    for label, text in want:
        if (label, text) not in got:
            lines.append(f"  stored {label}: {text[:300]!r}")
    for label, text in got:
        if (label, text) not in want:
            lines.append(f"  fresh  {label}: {text[:300]!r}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--pause", type=float, default=5.0, help="seconds before each code cell")
    parser.add_argument("--timeout", type=int, default=600, help="seconds a cell may take")
    args = parser.parse_args(argv)
    os.environ.setdefault("AGENTLAB_OFFLINE", "1")
    os.environ.setdefault("AGENTLAB_RUNS_DIR", tempfile.mkdtemp(prefix="agentlab-paused-"))
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=len(args.notebooks)) as pool:
        reports = list(pool.map(lambda p: run_paused(p, args.pause, args.timeout), args.notebooks))
    for path, problems in zip(args.notebooks, reports, strict=True):
        print(f"{path.name}: {'ok' if not problems else f'{len(problems)} cell(s) differ'}")
        for problem in problems:
            print(problem)
    took = time.monotonic() - started
    print(f"paused run: {args.pause:g} s before each code cell, {took:.0f} s in all")
    return 1 if any(reports) else 0


if __name__ == "__main__":
    sys.exit(main())
