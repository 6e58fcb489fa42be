"""One submitted notebook, run and marked: a mark per exercise and a status for the whole.

The marks are the verdicts ``check()`` showed, read from the copy for
programs each check output carries (:data:`~agentlab.course.exercises.VERDICT_MIME`).
Every exercise of the chapters whose check cells the notebook holds gets one
:class:`Mark`: ``passed`` / ``wrong`` / ``not attempted`` as its last check
said (``wrong`` too when the check broke: the student read "不对"), or
``broken`` and why (:data:`BROKEN`): check cell missing, not reached, raised
(``syntax_error`` when it or the answer cell above it does not parse), or silent.

The notebook gets a status of :data:`STATUSES` and a reason: ``graded``, what
stopped the run (:mod:`.grade_run`), or ``old_course`` when a cell fails to
import something from ``agentlab``. It reads outputs; it runs and writes nothing.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .. import __version__
from ..course.exercises import VERDICT_MIME, Exercise, exercises
from ..i18n import tr

MARKS = ("passed", "wrong", "not attempted", "broken")
BROKEN = ("check_missing", "not_run", "syntax_error", "error", "no_verdict")
STATUSES = (
    "graded",
    "old_course",
    "timeout",
    "output_too_large",
    "kernel_died",
    "kernel_not_started",
    "not_a_notebook",
    "no_exercises",
    "grading_failed",
)
FROM_CHECK = {"passed": "passed", "wrong": "wrong", "error": "wrong", "not_done": "not attempted"}
CHECK_CALL = re.compile(r"""\bcheck\(\s*["']([^"'\n]*)["']""")
SYNTAX_ERRORS = {"SyntaxError", "IndentationError", "TabError"}


@dataclass(frozen=True)
class Mark:
    """One exercise of one submission: its mark, and what check() said or why it said nothing."""

    mark: str  # one of MARKS
    message: str
    broken: str = ""  # one of BROKEN when mark == "broken"


@dataclass
class Submission:
    """One graded notebook."""

    name: str  # its path under the submissions folder, as the student named it
    status: str = "graded"
    reason: str = ""
    marks: dict[str, Mark] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    executed: Any = None  # the notebook as it ran, when it ran

    @property
    def passed(self) -> int:
        return sum(m.mark == "passed" for m in self.marks.values())


def grade_notebook(
    name: str,
    content: bytes | OSError,
    *,
    time_limit_s: float,
    max_output_chars: int,
    running: dict | None = None,
) -> Submission:
    """Run and mark one notebook (``content``: its file's bytes, or why they could not be read).

    Never raises: what goes wrong is its status.
    """
    started = time.monotonic()
    submission = Submission(name)
    try:
        _grade(content, submission, time_limit_s, max_output_chars, running)
    except Exception as exc:  # a bug of ours must not cost the rest of the class
        submission.status = "grading_failed"
        submission.reason = tr("grade.reason.grading_failed", error=one_line(exc))
    submission.seconds = time.monotonic() - started
    return submission


def _grade(
    content: bytes | OSError,
    submission: Submission,
    time_limit_s: float,
    max_output_chars: int,
    running: dict | None,
) -> None:
    import nbformat

    from .grade_run import run_notebook

    try:
        if isinstance(content, OSError):
            raise content
        nb = nbformat.reads(content, as_version=4)
        nbformat.validate(nb)
    except Exception as exc:  # anything a file can be: not JSON, not a notebook, unreadable
        submission.status = "not_a_notebook"
        submission.reason = tr("grade.reason.not_a_notebook", error=one_line(exc))
        return
    known = {e.id: e for e in exercises()}
    called = [i for cell in nb.cells for i in check_ids(cell)]
    chapters = {known[i].chapter for i in called if i in known}
    if not chapters:
        submission.status, submission.reason = "no_exercises", tr("grade.reason.no_exercises")
        return
    unknown = sorted({i for i in called if i not in known})
    if unknown:
        submission.notes.append(tr("grade.note.unknown_id", ids=", ".join(unknown)))
    earlier = {v["course"] for _, v in verdicts(nb) if isinstance(v.get("course"), str)}
    if earlier - {__version__}:
        versions = ", ".join(sorted(earlier - {__version__}))
        submission.notes.append(tr("grade.note.older_run", versions=versions, now=__version__))

    stopped = run_notebook(
        nb, name=submission.name, time_limit_s=time_limit_s,
        max_output_chars=max_output_chars, running=running,
    )  # fmt: skip
    submission.executed = nb
    if stopped is not None:
        submission.status = stopped.status
        submission.reason = tr(
            f"grade.reason.{stopped.status}",
            cell=where_is(nb, stopped.cell) if stopped.cell is not None else "",
            limit=f"{time_limit_s:g}",
            chars=f"{max_output_chars:,}",
            error=stopped.error,
        )
    else:
        failed = first_error(nb, lambda e: e.ename in {"ModuleNotFoundError", "ImportError"})
        if failed is not None and "agentlab" in failed[1].evalue:
            submission.status = "old_course"
            submission.reason = tr(
                "grade.reason.old_course",
                cell=where_is(nb, failed[0]),
                error=error_line_of(failed[1]),
            )
    said = verdicts(nb)
    stop_cell = (stopped.cell or 0) if stopped is not None else None  # None: it never began
    for exercise in exercises():
        if exercise.chapter in chapters:
            submission.marks[exercise.id] = mark(exercise, nb, said, stop_cell, submission)


def mark(
    exercise: Exercise,
    nb: Any,
    said: list[tuple[int, dict]],
    stop_cell: int | None,
    submission: Submission,
) -> Mark:
    """The exercise's mark: its last verdict, or why it has none."""
    mine = [v for _, v in said if v["exercise"] == exercise.id]
    if mine:
        if len({v["message"] for v in mine}) > 1:
            submission.notes.append(tr("grade.note.checked_again", id=exercise.id, n=len(mine)))
        return Mark(FROM_CHECK[mine[-1]["status"]], mine[-1]["message"])
    cells = [i for i, cell in enumerate(nb.cells) if exercise.id in check_ids(cell)]
    if not cells:
        call = f'check("{exercise.id}", {exercise.answer_name})'
        return Mark("broken", tr("grade.broken.check_missing", call=call), "check_missing")
    index = cells[-1]
    if stop_cell is not None and index >= stop_cell:
        status = tr(f"grade.status.{submission.status}")
        return Mark("broken", tr("grade.broken.not_run", status=status), "not_run")
    errors = [o for o in nb.cells[index].outputs if o.output_type == "error"]
    if not errors:
        return Mark("broken", tr("grade.broken.no_verdict", cell=where_is(nb, index)), "no_verdict")
    own, cause = errors[-1], error_before(nb, index)
    kind = "syntax_error" if own.ename in SYNTAX_ERRORS else "error"
    if cause is None:
        message = tr("grade.broken.error", cell=where_is(nb, index), error=error_line_of(own))
    else:
        kind = "syntax_error" if cause[1].ename in SYNTAX_ERRORS else kind
        message = tr(
            "grade.broken.error_after",
            cell=where_is(nb, index),
            error=error_line_of(own),
            cause_cell=where_is(nb, cause[0]),
            cause=error_line_of(cause[1]),
        )
    return Mark("broken", message, kind)


def error_before(nb: Any, index: int) -> tuple[int, Any] | None:
    """The nearest error above cell ``index``, back to the previous exercise's check cell."""
    for before in range(index - 1, -1, -1):
        cell = nb.cells[before]
        if check_ids(cell):
            return None
        for output in cell.get("outputs", []):
            if output.output_type == "error":
                return before, output
    return None


def check_ids(cell: Any) -> list[str]:
    """The exercise ids a code cell passes to check(...)."""
    return CHECK_CALL.findall(cell.source) if cell.cell_type == "code" else []


def verdicts(nb: Any) -> list[tuple[int, dict]]:
    """(cell index, verdict) of every verdict among the notebook's outputs, in order."""
    found = []
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            verdict = output.get("data", {}).get(VERDICT_MIME)
            if (
                isinstance(verdict, dict)
                and isinstance(verdict.get("exercise"), str)
                and isinstance(verdict.get("message"), str)
                and verdict.get("status") in FROM_CHECK
            ):
                found.append((index, verdict))
    return found


def first_error(nb: Any, wanted: Callable[[Any], bool]) -> tuple[int, Any] | None:
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            if output.output_type == "error" and wanted(output):
                return index, output
    return None


def where_is(nb: Any, index: int) -> str:
    """第 12 个单元格（check("01-loop", my_loop)）: the cell's place and its first line."""
    lines = [line.strip() for line in nb.cells[index].source.splitlines() if line.strip()]
    first = lines[0] if lines else ""
    return tr("grade.cell", number=index + 1, line=first[:60] + ("…" if len(first) > 60 else ""))


def error_line_of(error: Any) -> str:
    return f"{error.ename}: {error.evalue}"[:300]


def one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:300]
