"""How long does a sweep of about 10 000 steps take? (issue #5's goal: <= 10 s)

Builds the chapter-05 population (seed 0), grows it until a 1..30 cap sweep
holds at least 10 000 steps in total, then times ``sweep`` with one process
and with two; stops if the runs did not take the steps computed for them.
Every step is a real ``run_agent`` step: a chat-completions request through
the openai SDK to a scripted in-process service, plus the tool calls it
returns.

Then once more with one process and clients that carry a real-looking key
(``keys.py``). ``sweep`` builds its clients itself and takes no key, so the
benchmark hands it one by replacing the ``ScriptedClient`` that
``agentlab.course.experiments`` calls, in this process only (two processes
would start fresh interpreters without the replacement), and checks every
run's client was the keyed one. The one-process sweeps also print their CPU
time: on a busy machine the wall time of two sweeps a minute apart can
differ by half, and only the CPU time compares keyless with keyed.

    .venv/bin/python benchmarks/sweep.py
"""

from __future__ import annotations

import os
import platform
import time
from unittest import mock

from agentlab.clients import ScriptedClient
from agentlab.course import experiments
from agentlab.course.experiments import make_population, sweep

try:  # the keys live beside this script
    from benchmarks.keys import KEY
except ImportError:  # run as a script: benchmarks/ is sys.path[0]
    from keys import KEY  # type: ignore[no-redef]

CAPS = range(1, 31)
TARGET_STEPS = 10_000


def expected_steps(profiles) -> int:
    """Steps a cap sweep will take, computed without running it."""
    total = 0
    for p in profiles:
        need = p.needed_steps
        total += sum(cap if need is None else min(need, cap) for cap in CAPS)
    return total


def main() -> None:
    n = 10
    while expected_steps(make_population(n, seed=0)) < TARGET_STEPS:
        n += 1
    population = make_population(n, seed=0)
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    print(f"machine: {machine}")
    print(f"population: {n} tasks (seed 0), caps 1..30, {n * len(CAPS)} runs")
    made: list[ScriptedClient] = []

    def keyed_client(*args, **options) -> ScriptedClient:
        made.append(ScriptedClient(*args, api_key=KEY, **options))
        return made[-1]

    for workers, keyed in ((1, False), (2, False), (1, True)):
        started, cpu_started = time.perf_counter(), time.process_time()
        if keyed:
            with mock.patch.object(experiments, "ScriptedClient", keyed_client):
                results = sweep(population, CAPS, workers=workers)
        else:
            results = sweep(population, CAPS, workers=workers)
        took = time.perf_counter() - started
        cpu = time.process_time() - cpu_started  # one process: all the work is here
        steps = int(results["steps"].sum())
        # A timing of runs that did not happen as computed would be no figure at all.
        if len(results) != n * len(CAPS) or steps != expected_steps(population):
            raise SystemExit(f"the sweep ran {len(results)} runs, {steps} steps: not as computed")
        if keyed and (len(made) != len(results) or any(c.api_key != KEY for c in made)):
            raise SystemExit(f"{len(made)} keyed clients for {len(results)} runs")
        stops = set(results["stop_reason"])
        if not stops <= {"answered", "max_steps"}:
            raise SystemExit(f"runs ended in other ways than the population's: {sorted(stops)}")
        in_cpu = f", {cpu:.2f} s of CPU" if workers == 1 else ""
        print(
            f"workers={workers}, {'keyed' if keyed else 'keyless'}: {steps} steps in {took:.2f} s "
            f"({took / steps * 1000:.3f} ms per step, {steps / took:.0f} steps/s{in_cpu})"
        )


if __name__ == "__main__":
    main()
