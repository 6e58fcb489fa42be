"""Run every notebook in a folder, the way a student's Jupyter would, and say what happened.

    python tests/run_notebooks.py FOLDER

Run by ``tests/test_wheel.py`` with the Python of a clean virtual
environment that holds the installed wheel, on a copy of ``notebooks/``
outside the repository. So it imports nothing from the repository: only
``nbformat`` and ``nbclient`` from that environment.

Each notebook is executed in place, in a fresh kernel whose working folder is
the notebook's own. One cell is appended first, reporting where ``agentlab``
was imported from (``sys.prefix`` and ``agentlab.__file__``), so the caller
can prove the wheel ran, not a checkout. Prints one JSON object: per
notebook the seconds it took, the cells that wrote to stderr, and that
report; a cell that raises stops that notebook and is named in ``error``.

It does not judge anything: the test that runs it does.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

WHERE_FROM = "import json, sys, agentlab\nprint(json.dumps([sys.prefix, agentlab.__file__]))"


def run(path: Path) -> dict:
    notebook = nbformat.read(path, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell(WHERE_FROM))
    started = time.perf_counter()
    error = None
    try:
        NotebookClient(
            notebook,
            timeout=300,
            kernel_name="python3",
            resources={"metadata": {"path": str(path.parent)}},
        ).execute()
    except CellExecutionError as exc:
        error = str(exc)[-2000:]
    seconds = time.perf_counter() - started
    nbformat.write(notebook, path)
    stderr = [
        i
        for i, cell in enumerate(notebook.cells)
        for output in cell.get("outputs", [])
        if output.get("output_type") == "stream" and output.get("name") == "stderr"
    ]
    last = notebook.cells[-1].get("outputs", [])
    where = json.loads(last[0]["text"]) if last and "text" in last[0] else None
    return {"seconds": round(seconds, 1), "error": error, "stderr_cells": stderr, "where": where}


def main() -> int:
    folder = Path(sys.argv[1])
    report = {path.name: run(path) for path in sorted(folder.glob("*.ipynb"))}
    print(json.dumps(report, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
