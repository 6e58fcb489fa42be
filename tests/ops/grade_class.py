"""A generated class of submitted notebooks, and what grading each must give.

Small notebooks holding only exercise cells: a setup cell, then per exercise
an answer cell and the check cell the chapter has, each answer the
exercise's reference solution (``get(id).reference``, from ``solutions.py``),
one of its wrong answers (``get(id).wrong[n]``, from ``wrong.py``) or its
starter, in a pattern that differs per student; plus one submission per way
a notebook can break. What each one must get follows from how it was built
(:class:`Built`).

Used by ``tests/ops/test_grade.py`` and, run as a script, by
``tests/browser/check_grade.py`` (``python -m tests.ops.grade_class OUT`` writes
``OUT/submissions``, grades it into ``OUT/grades`` and writes
``OUT/expected.json``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from agentlab.course.exercises import VERDICT_MIME, exercises, get

SETUP = "from agentlab.course.exercises import check, get"
OLD_SETUP = "from agentlab.exercises import check, get"  # as the notebooks had it before 89bcb22
CHAPTER_01 = [e for e in exercises() if e.chapter == "01"]
CHAPTER_04 = [e for e in exercises() if e.chapter == "04"]
LIMIT_S = 60  # per notebook, in the class run (each takes 2 to 5 s here)


@dataclass
class Built:
    """One generated submission: its cells, and what grading it must give."""

    name: str
    cells: list = field(default_factory=list)
    status: str = "graded"
    marks: dict[str, str] = field(default_factory=dict)  # exercise id -> mark
    broken: dict[str, str] = field(default_factory=dict)  # exercise id -> kind of BROKEN
    kernel: str = "python3"

    def answer(self, exercise, kind: str, wrong: int = 0) -> None:
        """The answer cell and the check cell of ``exercise``; ``kind`` right/wrong/starter."""
        self.cells.append(answer_cell(exercise, kind, wrong))
        self.cells.append(check_cell(exercise))
        self.marks[exercise.id] = {
            "right": "passed",
            "wrong": "wrong",
            "starter": "not attempted",
        }[kind]

    def breaks(self, exercise, kind: str) -> None:
        self.marks[exercise.id], self.broken[exercise.id] = "broken", kind

    def notebook(self) -> nbformat.NotebookNode:
        nb = new_notebook(cells=[new_markdown_cell("# 练习"), *self.cells])
        nb.metadata["kernelspec"] = {"name": self.kernel, "display_name": self.kernel}
        return nb


def answer_cell(exercise, kind: str, wrong: int = 0):
    name, quoted = exercise.answer_name, json.dumps(exercise.id)
    if kind == "right":
        return new_code_cell(f"{name} = get({quoted}).reference")
    if kind == "wrong":
        return new_code_cell(f"{name} = get({quoted}).wrong[{wrong}].answer")
    return new_code_cell(exercise.starter)


def check_cell(exercise):
    return new_code_cell(f'check("{exercise.id}", {exercise.answer_name})')


def student(name: str, chapter: list, number: int) -> Built:
    """A student who got some right, some wrong and left some as the starter."""
    built = Built(name, [new_code_cell(SETUP)])
    for j, exercise in enumerate(chapter):
        kind = ("right", "right", "wrong", "starter", "right")[(3 * number + j) % 5]
        built.answer(exercise, kind, (number + j) % len(exercise.wrong))
    return built


def all_right(name: str) -> Built:
    built = Built(name, [new_code_cell(SETUP)])
    for exercise in CHAPTER_01:
        built.answer(exercise, "right")
    return built


def stops_after(name: str, cell: str, status: str, answered: int = 3) -> Built:
    """The first ``answered`` exercises answered right, then ``cell``, then the rest."""
    built = Built(name, [new_code_cell(SETUP)], status=status)
    for exercise in CHAPTER_01[:answered]:
        built.answer(exercise, "right")
    built.cells.append(new_code_cell(cell))
    for exercise in CHAPTER_01[answered:]:
        built.cells += [answer_cell(exercise, "right"), check_cell(exercise)]
        built.breaks(exercise, "not_run")
    return built


def broken_ones() -> list[Built]:
    """One submission per way a notebook can break."""
    loop, history, fragments = CHAPTER_01[0], CHAPTER_01[1], get("01-fragments")
    made = []

    syntax = all_right("syntax_error.ipynb")  # the colon after def my_loop(...) forgotten
    syntax.cells[1] = new_code_cell(loop.starter.replace("max_steps):", "max_steps)", 1))
    syntax.breaks(loop, "syntax_error")
    made.append(syntax)

    made.append(stops_after("os_exit.ipynb", "import os\nos._exit(3)", "kernel_died"))
    crash = "import ctypes\nctypes.string_at(0)  # reads address 0: the kernel crashes"
    made.append(stops_after("crash.ipynb", crash, "kernel_died"))
    flood = "for i in range(1_000_000):\n    print('输出' * 50, i)"
    made.append(stops_after("huge_output.ipynb", flood, "output_too_large"))

    deleted = all_right("deleted_check.ipynb")
    deleted.cells.remove(deleted.cells[4])  # the check cell of 01-history
    deleted.breaks(history, "check_missing")
    made.append(deleted)

    renamed_id = all_right("renamed_check.ipynb")
    checks = [c.source for c in renamed_id.cells]
    index = checks.index(check_cell(fragments).source)
    renamed_id.cells[index] = new_code_cell('check("01-fragment", join_fragments)')
    renamed_id.breaks(fragments, "check_missing")
    made.append(renamed_id)

    renamed_answer = all_right("renamed_answer.ipynb")
    renamed_answer.cells[1] = new_code_cell('my_loop_v2 = get("01-loop").reference')
    renamed_answer.breaks(loop, "error")  # NameError: name 'my_loop' is not defined
    made.append(renamed_answer)

    # The check cell twice: the answer redefined (wrong) in between; the last verdict counts.
    twice = all_right("duplicated_check.ipynb")
    twice.cells[3:3] = [answer_cell(loop, "wrong", 1), check_cell(loop)]
    twice.marks[loop.id] = "wrong"
    made.append(twice)
    same = all_right("duplicated_same.ipynb")
    same.cells.insert(3, check_cell(loop))
    made.append(same)

    old = all_right("old_course.ipynb")
    old.cells[0] = new_code_cell(OLD_SETUP)
    # As the student ran it, with an older course whose check() already marked its verdicts.
    ran = {"exercise": loop.id, "status": "passed", "message": "✅ 通过", "course": "0.0.9"}
    old.cells[2].outputs = [new_output("display_data", {VERDICT_MIME: ran, "text/plain": "✅"})]
    old.status = "old_course"
    for exercise in CHAPTER_01:
        old.breaks(exercise, "error")  # NameError: name 'get' is not defined
    made.append(old)

    snoop = Built("snoop.ipynb", [new_code_cell(SETUP)])
    snoop.cells.append(new_code_cell(SNOOP))
    escape = get("01-predict-escape")
    snoop.cells.append(new_code_cell(SNOOP_ANSWER))
    snoop.cells.append(check_cell(escape))
    snoop.marks[escape.id] = "passed"  # only if it saw no neighbour, no key, the offline switch
    for exercise in CHAPTER_01:
        if exercise is not escape:
            snoop.breaks(exercise, "check_missing")
    made.append(snoop)

    tamper = all_right("tamper.ipynb")
    tamper.cells.insert(1, new_code_cell(TAMPER))  # the folder is filled in by `graded`
    made.append(tamper)

    hog = stops_after("memory_hog.ipynb", "hog = bytearray(6 * 2**30)", "graded")
    hog.marks.update({e.id: "passed" for e in CHAPTER_01[3:]})  # a MemoryError, then on
    hog.broken.clear()
    made.append(hog)
    return made


# The snooping submission looks beside itself for the others (where they sit in the
# folder) and for secrets; its prediction is right only if it found nothing to look at.
SNOOP = """import glob, os
found = glob.glob("../*.ipynb") + glob.glob("*.ipynb")
found += glob.glob(os.path.expanduser("~/*/*.ipynb"))
secrets = [k for k, v in os.environ.items() if "sk-" in v or "KEY" in k or "SECRET" in k]
seen = {"found": found, "secrets": secrets, "offline": os.environ.get("AGENTLAB_OFFLINE"),
        "home": os.path.expanduser("~") == os.getcwd()}
print(seen)"""
# The tampering one knows where the folder is (the grader is no sandbox: code running as
# the instructor can find it) and spoils every other notebook in it. It is graded first
# ("tamper" sorts before the Chinese names); the others must still get their own marks.
TAMPER = """import pathlib
spoiled = 0
for path in pathlib.Path({folder!r}).rglob("*.ipynb"):
    if path.name != "tamper.ipynb":
        path.write_text("spoiled", encoding="utf-8")
        spoiled += 1
print(spoiled, "spoiled")"""
SNOOP_ANSWER = """alone = {"found": ["snoop.ipynb"], "secrets": [], "offline": "1", "home": True}
isolated = seen == alone
prediction_escape = get("01-predict-escape").reference if isolated else {"error_code": "?"}"""


def the_class() -> list[Built]:
    made = [student(f"学生{n:02d}.ipynb", CHAPTER_01, n) for n in range(12)]
    made += [student(f"第四章/学生{n:02d}.ipynb", CHAPTER_04, n) for n in range(4)]
    made[0].kernel = "conda-env-course-py"  # a kernel the grader does not have: python3 runs it
    made.append(all_right("张三 第1章（终稿）.ipynb"))
    made += broken_ones()
    return made


GBK_NAME = "李四.ipynb"  # written with a GBK-encoded file name, as a zip from Chinese Windows


def write_class(folder: Path) -> dict[str, Built]:
    """The class as files in ``folder`` (plus a junk file, an empty one, a notebook without
    checks and two files a grader must skip); what grading each one must give."""
    built = {b.name: b for b in the_class()}
    built["tamper.ipynb"].cells[1].source = TAMPER.format(folder=str(folder))
    for b in built.values():
        path = folder / b.name
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(b.notebook(), path)
    gbk = all_right(GBK_NAME)
    (folder / os.fsdecode(GBK_NAME.encode("gbk"))).write_text(nbformat.writes(gbk.notebook()))
    built[GBK_NAME] = gbk
    (folder / "not_a_notebook.ipynb").write_text("这不是 JSON", encoding="utf-8")
    (folder / "empty.ipynb").write_bytes(b"")
    built["not_a_notebook.ipynb"] = Built("not_a_notebook.ipynb", status="not_a_notebook")
    built["empty.ipynb"] = Built("empty.ipynb", status="not_a_notebook")
    no_checks = new_notebook(cells=[new_code_cell("print('我的笔记')")])
    nbformat.write(no_checks, folder / "notes.ipynb")
    built["notes.ipynb"] = Built("notes.ipynb", status="no_exercises")
    for skipped in (".ipynb_checkpoints/学生00-checkpoint.ipynb", "__MACOSX/._学生00.ipynb"):
        (folder / skipped).parent.mkdir(exist_ok=True)
        (folder / skipped).write_text("{}")
    return built


def grade(folder: Path, out: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """``python -m agentlab grade`` on ``folder``, as the test and the browser check run it."""
    return subprocess.run(
        [sys.executable, "-m", "agentlab", "grade", str(folder), "--out", str(out)]
        + ["--workers", "2", "--time-limit", str(LIMIT_S), "--max-output", "200000"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=900,
    )


if __name__ == "__main__":  # the browser check: python -m tests.ops.grade_class OUT
    out = Path(sys.argv[1])
    written = write_class(out / "submissions")
    env = {**os.environ, "AGENTLAB_OFFLINE": "1", "TMPDIR": str(out)}
    done = grade(out / "submissions", out / "grades", env)
    sys.stderr.write(done.stderr)
    expected = {n: {"status": b.status, "marks": b.marks} for n, b in written.items()}
    (out / "expected.json").write_text(json.dumps(expected, ensure_ascii=False), "utf-8")
    sys.exit(done.returncode)
