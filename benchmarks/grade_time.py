"""How long does ``agentlab grade`` take for a class of whole chapter notebooks?

Builds a class of submissions from the five chapter notebooks as committed
(``--per-chapter`` copies of each, 6 by default: 30 submissions): in each
copy every exercise's starter cell is replaced by the exercise's reference
answer or one of its wrong answers, or left as the starter, in a pattern
that differs per copy. Then grades the class with ``python -m agentlab
grade`` once per worker count (``--workers 1 2``) and prints the wall time,
the time per notebook, the ratio between the runs, the statuses, and the
load average before and after each run (the machine may be shared).

    .venv/bin/python benchmarks/grade_time.py [--per-chapter 6] [--workers 1 2]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("right", "right", "wrong", "starter", "right")


def build_class(folder: Path, per_chapter: int) -> int:
    from agentlab.course.exercises import exercises

    count = 0
    for path in sorted((ROOT / "notebooks").glob("0*.ipynb")):
        chapter = path.name[:2]
        for student in range(per_chapter):
            nb = json.loads(path.read_text(encoding="utf-8"))
            for j, exercise in enumerate(e for e in exercises() if e.chapter == chapter):
                kind = KINDS[(3 * student + j) % len(KINDS)]
                if kind == "starter":
                    continue
                cell = next(
                    c
                    for c in nb["cells"]
                    if c["cell_type"] == "code" and exercise.starter.strip() in "".join(c["source"])
                )
                pick = "reference" if kind == "right" else f"wrong[{student % 2}].answer"
                cell["source"] = (
                    "from agentlab.course.exercises import get\n"
                    f'{exercise.answer_name} = get("{exercise.id}").{pick}'
                )
            target = folder / f"学生{student:02d}_第{chapter}章.ipynb"
            target.write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
            count += 1
    return count


def grade(folder: Path, workers: int) -> tuple[float, Counter]:
    out = folder.with_name(f"grades-{workers}")
    env = {**os.environ, "AGENTLAB_OFFLINE": "1"}
    command = [sys.executable, "-m", "agentlab", "grade", str(folder), "--out", str(out)]
    started = time.perf_counter()
    subprocess.run([*command, "--workers", str(workers)], check=True, env=env, capture_output=True)
    took = time.perf_counter() - started
    with (out / "grades.csv").open(encoding="utf-8-sig", newline="") as handle:
        statuses = Counter(row["status"] for row in csv.DictReader(handle))
    return took, statuses


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--per-chapter", type=int, default=6)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="agentlab-grade-bench-"))
    folder = root / "class"
    folder.mkdir()
    count = build_class(folder, args.per_chapter)
    print(f"{count} submissions ({args.per_chapter} per chapter), {os.cpu_count()} cores")
    times = {}
    for workers in args.workers:
        before = load()
        took, statuses = grade(folder, workers)
        times[workers] = took
        print(
            f"{workers} worker(s): {took:.0f} s, {took / count:.1f} s per notebook, "
            f"statuses {dict(statuses)}; load average before {before}, after {load()}",
            flush=True,
        )
    first = args.workers[0]
    for workers in args.workers[1:]:
        print(f"{workers} workers / {first}: {times[workers] / times[first]:.2f} of the time")


if __name__ == "__main__":
    main()
