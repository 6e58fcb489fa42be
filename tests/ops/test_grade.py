"""``agentlab grade``: a generated class of submissions grades to the table it should.

The class (``tests/ops/grade_class.py``: reference, wrong and starter answers,
and one notebook per way to break) is graded once, through the command,
with 2 workers (``graded``); the tests read its CSV, its page and its run
copies. The endless loop and one live check are graded on their own.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import re
import sys
import time
from pathlib import Path

import nbformat
import psutil
import pytest

import agentlab
from agentlab.course.exercises import VERDICT_MIME, check, exercises, get
from agentlab.i18n import CATALOG, tr
from agentlab.ops.grade import find_notebooks, grade_class, shown_name
from agentlab.ops.grade_marks import BROKEN, MARKS, STATUSES, Mark, Submission
from agentlab.ops.grade_report import write_reports

from ..conftest import REPO, interrupted
from .grade_class import (
    CHAPTER_01,
    GBK_NAME,
    LIMIT_S,
    Built,
    all_right,
    grade,
    stops_after,
    write_class,
)

SECRET = "sk-grader-only-0123456789"


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The class, written to a folder and graded once by ``python -m agentlab grade``."""
    root = tmp_path_factory.mktemp("grading")
    folder, out = root / "submissions", root / "out"
    built = write_class(folder)

    env = {**os.environ, "OPENAI_API_KEY": SECRET, "AGENTLAB_GRADE_TEST_SECRET": SECRET}
    env.pop("AGENTLAB_LANG", None)
    (root / "tmp").mkdir()
    env["TMPDIR"] = str(root / "tmp")  # where the kernels' folders go: ".." from a kernel
    started = time.monotonic()
    done = grade(folder, out, env)
    with (out / "grades.csv").open(encoding="utf-8-sig", newline="") as handle:
        rows = {row["submission"]: row for row in csv.DictReader(handle)}
    return {
        "built": built,
        "rows": rows,
        "done": done,
        "seconds": time.monotonic() - started,
        "out": out,
        "folder": folder,
        "html": (out / "grades.html").read_text(encoding="utf-8"),
    }


def test_the_class_grades_to_the_table_it_should(graded):
    built, rows = graded["built"], graded["rows"]
    assert graded["done"].returncode == 0, graded["done"].stderr[-2000:]
    assert len(built) >= 30 and set(rows) == set(built)
    columns = [e.id for e in exercises() if e.chapter in ("01", "04")]
    header = list(next(iter(rows.values())))
    assert header == ["submission", "status", "reason", "passed", *columns]
    wrong = []
    for name, b in built.items():
        expected = {e: b.marks.get(e, "") for e in columns}
        got = {e: rows[name][e] for e in columns}
        if rows[name]["status"] != b.status or got != expected:
            wrong.append((name, rows[name]["status"], b.status, rows[name]["reason"][:300]))
            wrong += [(name, e, got[e], expected[e]) for e in columns if got[e] != expected[e]]
        assert rows[name]["passed"] == str(list(expected.values()).count("passed"))
    assert not wrong, wrong
    # Why each broken mark is broken, as the page marks it.
    html = graded["html"]
    for name, b in built.items():
        row = html.split(f'<tr data-submission="{name}"', 1)[1].split("</tr>", 1)[0]
        said = dict(
            re.findall(r'data-exercise="([^"]+)" data-mark="broken" data-broken="(\w+)"', row)
        )
        assert said == b.broken, name
    # Every mark and a good share of the statuses occur: the table tells them apart.
    assert {row[e] for row in rows.values() for e in columns if row[e]} == set(MARKS)


def test_every_submission_has_its_reason_and_no_traceback(graded):
    rows = graded["rows"]
    for name, row in rows.items():
        assert "Traceback" not in row["reason"] and 'File "' not in row["reason"]
        if row["status"] != "graded" or "broken" in row.values():
            assert row["reason"].strip(), name
    assert "Traceback" not in graded["html"] and "Traceback" not in graded["done"].stderr


def reason(graded, name: str) -> str:
    return graded["rows"][name]["reason"]


def test_a_syntax_error_names_the_cell_and_the_error(graded):
    said = reason(graded, "syntax_error.ipynb")
    assert "之前第 3 个单元格（import json） 先出错：SyntaxError: expected ':'" in said, said


def test_os_exit_and_a_crash_end_that_notebook_only(graded):
    for name, line in (("os_exit.ipynb", "import os"), ("crash.ipynb", "import ctypes")):
        assert f"第 9 个单元格（{line}）" in reason(graded, name), reason(graded, name)


def test_huge_output_is_cut_and_the_copy_stays_small(graded):
    assert "200,000" in reason(graded, "huge_output.ipynb")
    copy = graded["out"] / "executed" / "huge_output.ipynb"
    assert copy.stat().st_size < 400_000


def test_deleted_renamed_and_duplicated_check_cells(graded):
    assert 'check("01-history", history_lengths)' in reason(graded, "deleted_check.ipynb")
    renamed = reason(graded, "renamed_check.ipynb")
    assert 'check("01-fragments", join_fragments)' in renamed and "01-fragment" in renamed
    assert "NameError" in reason(graded, "renamed_answer.ipynb")
    assert "01-loop 检查了 2 次" in reason(graded, "duplicated_check.ipynb")
    assert reason(graded, "duplicated_same.ipynb") == ""  # the same verdict twice: nothing to say


def test_a_notebook_of_an_older_course_is_named_so(graded):
    said = reason(graded, "old_course.ipynb")
    assert "agentlab.exercises" in said and "旧版课程" in said
    assert "学生上次运行用的是课程 0.0.9" in said  # from the outputs it came with


def test_chinese_and_gbk_file_names_come_out_as_the_student_wrote_them(graded):
    rows = graded["rows"]
    for name in ("张三 第1章（终稿）.ipynb", GBK_NAME, "第四章/学生00.ipynb"):
        assert rows[name]["status"] == "graded" and (graded["out"] / "executed" / name).is_file()
        assert name in graded["html"]
    assert shown_name(Path(os.fsdecode("王五.ipynb".encode("gbk")))) == "王五.ipynb"


def test_code_that_looks_for_other_submissions_or_keys_finds_nothing(graded):
    assert graded["rows"]["snoop.ipynb"]["01-predict-escape"] == "passed"
    for copy in (graded["out"] / "executed").rglob("*.ipynb"):
        assert SECRET not in copy.read_text(encoding="utf-8"), copy


def test_a_submission_that_spoils_the_others_does_not_change_their_marks(graded):
    ran = nbformat.read(graded["out"] / "executed" / "tamper.ipynb", as_version=4)
    spoiled = int(ran.cells[2].outputs[0].text.split()[0])
    assert spoiled == len(list(graded["folder"].rglob("*.ipynb"))) - 1  # all, before grading
    # ... and test_the_class_grades_to_the_table_it_should holds all the same.


@pytest.mark.skipif(sys.platform != "linux", reason="the kernel's memory is capped on Linux")
def test_a_memory_hog_gets_a_memory_error_not_the_machine(graded):
    copy = nbformat.read(graded["out"] / "executed" / "memory_hog.ipynb", as_version=4)
    errors = [
        o.ename for c in copy.cells if c.cell_type == "code" for o in c.outputs if "ename" in o
    ]
    assert errors == ["MemoryError"]


def test_unreadable_files_and_notebooks_without_checks_are_named(graded):
    for name in ("not_a_notebook.ipynb", "empty.ipynb"):
        assert "NotJSONError" in reason(graded, name) or "JSON" in reason(graded, name)
    assert "check(...)" in reason(graded, "notes.ipynb")


def test_progress_is_shown_one_line_per_notebook(graded):
    lines = [line for line in graded["done"].stderr.splitlines() if line.startswith("[")]
    assert len(lines) == len(graded["rows"])
    assert lines[-1].startswith(f"[{len(lines)}/{len(lines)}]")
    assert graded["done"].stderr.count("\n") == len(lines) + 1  # and nothing else: no kernel logs


def test_the_page_has_the_heat_map_rates_and_common_feedback(graded):
    html, rows, built = graded["html"], graded["rows"], graded["built"]
    assert html.count('<tr data-submission="') == len(rows)
    assert html.count('class="mark"') == sum(
        1 for row in rows.values() for k, v in row.items() if v in MARKS and k not in ("status",)
    )
    loop = [b.marks.get("01-loop") for b in built.values() if "01-loop" in b.marks]
    assert f'data-exercise="01-loop" data-passed="{loop.count("passed")}"' in html
    assert f'data-total="{len(loop)}"' in html
    # The most common wrong lines are those the class's wrong answers get, with their counts.
    wrong_lines = [check_line(e, n) for b in built.values() for e, n in wrong_answers(b)]
    most = max(set(wrong_lines), key=wrong_lines.count)
    assert f'<li data-count="{wrong_lines.count(most)}">' in html
    assert "<script" not in html


def wrong_answers(b: Built):
    for cell in b.cells:
        if ".wrong[" in cell.source:
            exercise_id = cell.source.split('get("')[1].split('")')[0]
            yield exercise_id, int(cell.source.split("wrong[")[1].split("]")[0])


def check_line(exercise_id: str, n: int) -> str:
    with contextlib.redirect_stdout(io.StringIO()):
        return check(exercise_id, get(exercise_id).wrong[n].answer).message


def test_an_endless_loop_is_stopped_at_the_time_limit(tmp_path):
    b = stops_after("loop.ipynb", "while True:\n    pass", "timeout", answered=2)
    nbformat.write(b.notebook(), tmp_path / b.name)
    started = time.monotonic()
    [graded] = grade_class(
        find_notebooks(tmp_path), workers=1, time_limit_s=8, max_output_chars=100_000
    )
    assert time.monotonic() - started < 8 + 10  # the limit, plus starting and stopping a kernel
    assert graded.status == "timeout" and "while True" in graded.reason
    assert {k: m.mark for k, m in graded.marks.items()} == b.marks
    assert {k: m.broken for k, m in graded.marks.items() if m.broken} == b.broken


def test_the_names_of_statuses_marks_and_breakages_have_words():
    keys = [f"grade.status.{s}" for s in STATUSES] + [f"grade.mark.{m}" for m in MARKS]
    keys += [f"grade.reason.{s}" for s in STATUSES if s != "graded"]
    assert [k for k in keys if k not in CATALOG] == []
    assert len(BROKEN) == len(set(BROKEN))


def test_a_check_in_a_notebook_shows_the_line_and_carries_the_verdict(tmp_path):
    """What the student sees is the printed line; the verdict rides beside it."""
    b = all_right("one.ipynb")
    nbformat.write(b.notebook(), tmp_path / "one.ipynb")
    [graded] = grade_class(
        find_notebooks(tmp_path), workers=1, time_limit_s=LIMIT_S, max_output_chars=100_000
    )
    outputs = [o for c in graded.executed.cells if c.cell_type == "code" for o in c.outputs]
    shown = [o for o in outputs if VERDICT_MIME in o.get("data", {})]
    assert len(shown) == len(CHAPTER_01) == len(outputs)
    for output in shown:
        verdict = output.data[VERDICT_MIME]
        assert output.output_type == "display_data" and set(output.data) == {
            "text/plain",
            VERDICT_MIME,
        }
        assert output.data["text/plain"] == verdict["message"]
        assert verdict["message"].startswith("✅ 通过：") and verdict["status"] == "passed"
        assert verdict["course"] == agentlab.__version__


def test_ctrl_c_stops_the_running_kernels_and_says_so_in_one_line(tmp_path):
    started = tmp_path / "kernel.pid"  # the kernel writes its pid here, then sleeps
    b = stops_after("slow.ipynb", SLOW.format(path=str(started)), "timeout", answered=1)
    (tmp_path / "class").mkdir()
    nbformat.write(b.notebook(), tmp_path / "class" / b.name)

    def busy(stdout):
        deadline = time.monotonic() + 120
        while not (started.exists() and started.read_text()):
            assert time.monotonic() < deadline, "the kernel never got to the slow cell"
            time.sleep(0.1)

    command = [sys.executable, "-m", "agentlab", "grade", str(tmp_path / "class"), "--workers", "1"]
    exit_code, err = interrupted(command, busy, group=True, cwd=REPO)
    assert exit_code == 130, err
    assert err.strip().splitlines()[-1] == tr("cli.interrupted", prog="agentlab grade")
    kernel = int(started.read_text())
    deadline = time.monotonic() + 10
    while psutil.pid_exists(kernel) and psutil.Process(kernel).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() < deadline, "the kernel outlived the grader"
        time.sleep(0.1)


SLOW = """import os, time
with open({path!r}, "w") as handle:
    handle.write(str(os.getpid()))
time.sleep(300)"""


def test_the_page_escapes_what_students_wrote_and_speaks_english_when_asked(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTLAB_LANG", "en")
    evil = "<script>alert(1)</script>"
    submissions = [
        Submission(f"{evil}.ipynb", marks={"01-loop": Mark("wrong", f"Not right: {evil}")}),
        Submission(
            "张三.ipynb", "timeout", f"stopped at {evil}", {"01-loop": Mark("passed", "ok")}
        ),
    ]
    csv_path, html_path = write_reports(submissions, tmp_path, folder="class", seconds=1.0)
    html = html_path.read_text(encoding="utf-8")
    assert "<script" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "Exercise grades: class" in html and "timed out" in html and "已评分" not in html
    with csv_path.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["submission"], r["status"], r["01-loop"]) for r in rows] == [
        (f"{evil}.ipynb", "graded", "wrong"),
        ("张三.ipynb", "timeout", "passed"),
    ]


def test_hidden_folders_zip_leftovers_and_the_output_folder_are_not_submissions(tmp_path):
    for name in (
        "a.ipynb",
        "二班/b.ipynb",
        ".ipynb_checkpoints/a-checkpoint.ipynb",
        "__MACOSX/._a.ipynb",
        ".hidden.ipynb",
        "out/executed/a.ipynb",
        "notes.txt",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("{}")
    found = find_notebooks(tmp_path, leave_out=tmp_path / "out")
    assert [name for _, name in found] == ["a.ipynb", "二班/b.ipynb"]


@pytest.mark.parametrize(
    ("argv", "key"),
    [
        (["nowhere"], "grade.cli.not_a_folder"),
        (["EMPTY"], "grade.cli.no_notebooks"),
        (["EMPTY", "--workers", "0"], "grade.cli.not_positive"),
    ],
)
def test_bad_arguments_are_one_line_and_exit_code_2(argv, key, tmp_path, capsys):
    from agentlab.ops.cli import main
    from agentlab.ops.cli_parser import error_line

    (tmp_path / "EMPTY").mkdir()
    argv = [str(tmp_path / a) if a in ("nowhere", "EMPTY") else a for a in argv]
    with pytest.raises(SystemExit) as stop:
        main(["grade", *argv])
    assert stop.value.code == 2
    assert capsys.readouterr().err == error_line("agentlab grade", tr(key, path=argv[0])) + "\n"


def test_a_kernel_that_never_starts_is_named_so(tmp_path):
    fake = tmp_path / "fake"  # found before the real launcher: the kernel exits at once
    fake.mkdir()
    (fake / "ipykernel_launcher.py").write_text("raise SystemExit(1)\n")
    b = all_right("one.ipynb")
    (tmp_path / "class").mkdir()
    nbformat.write(b.notebook(), tmp_path / "class" / b.name)
    env = {**os.environ, "PYTHONPATH": str(fake)}
    done = grade(tmp_path / "class", tmp_path / "out", env)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    with (tmp_path / "out" / "grades.csv").open(encoding="utf-8-sig", newline="") as handle:
        [row] = csv.DictReader(handle)
    assert row["status"] == "kernel_not_started", row["reason"]
    assert {row[e.id] for e in CHAPTER_01} == {"broken"}
