"""Checked exercises for the chapter notebooks.

In a notebook::

    from agentlab.course.exercises import check, hint, show

    show("01-loop")             # the task, in Chinese (AGENTLAB_LANG=en: English)
    # ... the student's cell defines my_loop ...
    check("01-loop", my_loop)   # prints ✅ 通过：… / 还没完成：… / 不对：…
    hint("01-loop")             # prints a hint

``check`` never raises, whatever the answer is (``None``, a wrong type, a
function that raises, hangs or loops forever): it prints one line of
feedback that names the first thing that is wrong, and returns a
:class:`CheckResult` with ``.passed`` and ``.message``. A notebook cell that
ends with ``check(...)`` shows the feedback once: the result has an
``_ipython_display_`` that shows nothing (the line was already shown), and
its ``repr`` outside IPython is one short line, ``CheckResult('01-loop',
passed=True)``.

In a notebook the line is shown as display data rather than printed: its
``text/plain`` is the line, so the student sees exactly the printed line,
and beside it :data:`VERDICT_MIME` carries the same verdict for programs
(``agentlab grade`` reads it from a run notebook): ``exercise``, ``status``,
``message`` and ``course`` (the package version that judged it).

What the check runs is hidden: student code runs with its output captured,
so debug prints inside a checked function do not show (call the function
yourself to see them).

``exercises(chapter)`` lists the exercises; ``agentlab exercises list`` and
``verify`` do the same from a terminal. Each exercise is one unit: its reference
answer and its check in its chapter's module (``ch01.py`` ... ``ch05.py``), its
starter code and named mistakes in ``units/<id>.toml``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from ... import __version__
from . import ch01, ch02, ch03, ch04, ch05
from .core import NOT_DONE, PASSED, WRONG, Exercise, Verdict
from .running import DEFAULT_TIME_LIMIT_S, judge
from .texts import tr

EXERCISES: list[Exercise] = [
    *ch01.EXERCISES,
    *ch02.EXERCISES,
    *ch03.EXERCISES,
    *ch04.EXERCISES,
    *ch05.EXERCISES,
]
"""Every exercise of the course, in chapter order (the order ``list`` prints)."""

__all__ = ["VERDICT_MIME", "CheckResult", "Exercise", "check", "exercises", "get", "hint", "show"]

VERDICT_MIME = "application/vnd.agentlab.verdict+json"


@dataclass(frozen=True, repr=False)
class CheckResult:
    """The outcome of one :func:`check`: ``passed`` and the ``message`` that was printed."""

    exercise: str
    passed: bool
    status: str  # "passed" | "not_done" | "wrong" | "error" (the check broke)
    message: str

    def __repr__(self) -> str:
        return f"CheckResult({self.exercise!r}, passed={self.passed})"

    def _ipython_display_(self) -> None:
        """Show nothing: :func:`check` has already printed the message."""


def exercises(chapter: str | None = None) -> list[Exercise]:
    """Every exercise, or those of one chapter (``"01"`` ... ``"05"``)."""
    return [e for e in EXERCISES if chapter is None or e.chapter == str(chapter).zfill(2)]


def get(exercise_id: str) -> Exercise | None:
    return next((e for e in EXERCISES if e.id == exercise_id), None)


_NO_ANSWER: Any = object()  # check("01-loop") with the answer forgotten


def check(
    exercise_id: str, answer: Any = _NO_ANSWER, *, time_limit_s: float = DEFAULT_TIME_LIMIT_S
) -> CheckResult:
    """Check ``answer`` for the exercise ``exercise_id``; print and return the verdict.

    ``time_limit_s`` bounds all the student code the check runs, together.
    """
    exercise = get(exercise_id)
    if exercise is None:
        verdict = Verdict(WRONG, _unknown(exercise_id))
    elif answer is _NO_ANSWER:
        verdict = Verdict(
            NOT_DONE, tr("exercise.no_answer", id=exercise.id, name=exercise.answer_name)
        )
    else:
        verdict = judge(exercise, answer, time_limit_s)
    passed = verdict.status == PASSED
    return say(CheckResult(str(exercise_id), passed, verdict.status, render(verdict)))


def say(result: CheckResult) -> CheckResult:
    """Show the verdict line: printed, or in IPython as display data with its verdict."""
    ipython = sys.modules.get("IPython")  # loaded if and only if we run inside IPython
    if ipython is None or ipython.get_ipython() is None:
        print(result.message)
        return result
    verdict = {
        "exercise": result.exercise,
        "status": result.status,
        "message": result.message,
        "course": __version__,
    }
    from IPython.display import display

    display({"text/plain": result.message, VERDICT_MIME: verdict}, raw=True)
    return result


def render(verdict: Verdict) -> str:
    """The printed line: ✅ 通过：… / 还没完成：… / 不对：…"""
    key = {PASSED: "exercise.result.passed", NOT_DONE: "exercise.result.not_done"}.get(
        verdict.status, "exercise.result.wrong"
    )
    return tr(key, detail=verdict.detail)


def hint(exercise_id: str) -> None:
    """Print the exercise's hint."""
    exercise = get(exercise_id)
    if exercise is None:
        print(_unknown(exercise_id))
    else:
        print(tr("exercise.hint.header", id=exercise.id), exercise.hint, sep="\n")


def show(exercise_id: str) -> None:
    """Print the exercise's title and task (the markdown a notebook shows)."""
    exercise = get(exercise_id)
    if exercise is None:
        print(_unknown(exercise_id))
    else:
        header = tr("exercise.show.header", id=exercise.id, title=exercise.title)
        print(header, "", exercise.prompt, sep="\n")


def _unknown(exercise_id: Any) -> str:
    return tr("exercise.unknown", id=exercise_id, known=", ".join(e.id for e in EXERCISES))
