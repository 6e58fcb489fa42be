"""How much does ``import agentlab`` cost on top of ``import openai``? (goal P6: <= 0.1 s)

Each import runs in a fresh interpreter (so nothing is cached in-process),
alternating the two, and the best and median wall times are printed. The
interpreter's own start-up is measured the same way and subtracted.

    .venv/bin/python benchmarks/import_time.py
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import time

ROUNDS = 9
STATEMENTS = {"python": "pass", "openai": "import openai", "agentlab": "import agentlab"}


def once(statement: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", statement], check=True)
    return time.perf_counter() - started


def main() -> None:
    once("import agentlab")  # warm the OS file cache and the .pyc files
    times: dict[str, list[float]] = {name: [] for name in STATEMENTS}
    for _ in range(ROUNDS):
        for name, statement in STATEMENTS.items():
            times[name].append(once(statement))
    start_up = min(times["python"])
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    print(f"machine: {machine}")
    print(f"fresh interpreter, {ROUNDS} rounds, start-up ({start_up * 1000:.0f} ms) subtracted")
    for name in ("openai", "agentlab"):
        best, median = min(times[name]) - start_up, statistics.median(times[name]) - start_up
        print(f"  import {name:<9} best {best * 1000:6.0f} ms   median {median * 1000:6.0f} ms")
    extra = min(times["agentlab"]) - min(times["openai"])
    extra_median = statistics.median(times["agentlab"]) - statistics.median(times["openai"])
    verdict = "met" if extra <= 0.1 else "NOT met"
    print(
        f"agentlab on top of openai: {extra * 1000:.0f} ms best, {extra_median * 1000:.0f} ms "
        f"median (P6 <= 100 ms: {verdict})"
    )


if __name__ == "__main__":
    main()
