"""How long does ``make test`` take on a warm .venv? (goal P6: <= 90 s)

Runs ``make test`` once untimed if .venv is not set up yet, then once
timed, and prints the wall time and pytest's own summary line.

    .venv/bin/python benchmarks/suite_time.py
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def make_test() -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(["make", "test"], cwd=ROOT, capture_output=True, text=True, check=False)
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"make test failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    summary = next((line for line in reversed(done.stdout.splitlines()) if " passed" in line), "?")
    return took, summary.strip()


def main() -> None:
    if not (ROOT / ".venv" / ".agentlab-installed").exists():
        print("setting up .venv first (not timed) ...", flush=True)
        make_test()
    took, summary = make_test()
    verdict = "met" if took <= 90 else "NOT met"
    print(f"make test on a warm .venv, {os.cpu_count()} cores: {took:.1f} s ({summary})")
    print(f"P6 make test <= 90 s: {verdict}")


if __name__ == "__main__":
    main()
