"""The Pyodide scenarios, on CPython with thread and process start failing.

``make pyodide-test`` runs ``tests/pyodide/scenarios.py`` inside Pyodide on
Node (it needs node and npm, and a first set-up of ~20 s). Here the same
scenarios run in ``make test`` with ``--no-threads``: ``Thread.start`` and
``Process.start`` raise as they do in Pyodide, and every scenario must pass
(none is a known failure any more).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCENARIOS = Path(__file__).parent / "pyodide" / "scenarios.py"


def test_the_loop_keeps_its_promises_where_no_thread_or_process_starts():
    done = subprocess.run(
        [sys.executable, str(SCENARIOS), "--no-threads"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "scenarios: 7 passed, 0 failed" in done.stdout, done.stdout
    assert "XFAIL" not in done.stdout and "TOOL_UNAVAILABLE" in done.stdout
