"""Running a check, and the student's code in it, so that nothing an answer does can
hang the notebook, crash it or print into it.

Student code is never trusted. :func:`run_student` runs each call into it with
its output hidden and its warnings silenced, under ONE deadline shared by every
call a check makes — chapter 03's lesson applied to the checker itself. It stops
*waiting* when the time is up (:func:`agentlab.deadline.run_within`) and turns
whatever the code did instead of returning (raise, run out of time) into a verdict.

Waiting is not stopping: a thread cannot be killed, a process can (chapter 03
again). So where there is ``os.fork`` (Linux, macOS) :func:`judge` runs the whole
check in a forked copy of this process. The copy sends its verdict back through a
pipe and ends with ``os._exit``, and whatever the student's code is still doing
ends with it: an endless loop (even one inside a bare ``except:``), a sleep, a
crash, ``os._exit``. Nothing it prints reaches the notebook. The kernel waits for
the verdict at most ``time_limit_s`` + :data:`SLACK_S` (for code hung inside C,
or a lock the copy inherited in the held state from another thread of the
kernel) and then kills the copy; Ctrl-C kills it too, and reaches the student as
a KeyboardInterrupt, as usual.

Before an exercise's first copy, its ``prepare`` (where it has one) runs once
here: it makes and caches in the kernel what the check compares against (the
loop exercises' reference runs, chapter 05's sweeps), so every copy starts with
it instead of making it again. Nothing that waits on real time or starts a
process runs here: that stays in the copies.

Without ``fork`` the check runs in this process, and the limits are honest ones.
On Windows the student's code runs on a thread: the check answers at the
deadline, but an endless loop goes on in the background until the kernel
restarts, what it prints from then on shows, and ``os._exit`` ends the kernel.
In Pyodide (JupyterLite) there are neither threads nor processes: the code runs
inline, and an endless loop hangs the cell until the kernel is interrupted or
restarted (a slow answer that does finish is still told it ran out of time).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import io
import json
import os
import select
import signal
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from types import CodeType
from typing import Any

from ...deadline import TimedOut, run_within
from .core import (
    ERROR,
    Exercise,
    Judged,
    OutOfTime,
    Runaway,
    StillStarter,
    Verdict,
    code_of,
    describe,
    not_done,
    wrong,
)
from .texts import tr

DEFAULT_TIME_LIMIT_S = 5.0
SLACK_S = 20.0  # beyond the student's time: the check's own work, then the copy is killed

# (the deadline, the limit it was set from, the exercise): what a timeout tells the student
_DEADLINE: contextvars.ContextVar[tuple[float, float, str] | None] = contextvars.ContextVar(
    "agentlab_exercise_deadline", default=None
)


@contextlib.contextmanager
def time_limit(seconds: float, exercise_id: str = "") -> Iterator[None]:
    """Every :func:`run_student` inside shares one deadline, ``seconds`` from now."""
    token = _DEADLINE.set((time.monotonic() + seconds, seconds, exercise_id))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def time_left() -> float:
    limit = _DEADLINE.get()
    return DEFAULT_TIME_LIMIT_S if limit is None else max(0.0, limit[0] - time.monotonic())


def timed_out(what: str, seconds: float, exercise_id: str) -> str:
    """Out of time: an endless loop, or a right answer that is slow (then a longer limit)."""
    more = max(30, round(seconds * 4))
    return tr("exercise.timeout", what=what, limit=f"{seconds:g}", id=exercise_id, more=more)


def run_student(function: Callable[..., Any], *args: Any, what: str, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)`` as student code: output hidden, time bounded.

    Returns its value, or raises :class:`Judged` with the verdict for what it did
    instead (running out of time, or raising: ``what`` names what was being run);
    ``NotImplementedError`` becomes :class:`StillStarter`. :class:`Runaway` and
    KeyboardInterrupt are passed on.
    """

    def work() -> tuple[bool, Any]:  # (raised?, value or exception): theirs, never ours
        try:
            return False, function(*args, **kwargs)
        except BaseException as exc:  # SystemExit, GeneratorExit, a BaseException of their own
            return True, exc

    try:
        with _quiet():
            raised, value = run_within(work, time_left(), "exercise")
    except TimedOut:
        _, seconds, exercise_id = _DEADLINE.get() or (0.0, DEFAULT_TIME_LIMIT_S, "…")
        raise OutOfTime(wrong(timed_out(what, seconds, exercise_id))) from None
    if not raised:
        return value
    if isinstance(value, Judged | Runaway | StillStarter | KeyboardInterrupt):
        raise value  # already a verdict, on its way to one, or the student pressing stop
    if isinstance(value, NotImplementedError):
        raise StillStarter(_raised_in(value)) from None
    raise Judged(wrong(tr("exercise.raised", what=what, error=describe(value)))) from None


def _raised_in(exc: BaseException) -> CodeType | None:
    """The code of the function in which ``exc`` was raised (its innermost frame)."""
    frame = exc.__traceback__
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    return frame.tb_frame.f_code if frame is not None else None


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Hide what student code prints and silence its warnings."""
    sink = io.StringIO()
    with (
        contextlib.redirect_stdout(sink),
        contextlib.redirect_stderr(sink),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")
        yield


def judge(exercise: Exercise, answer: Any, time_limit_s: float = DEFAULT_TIME_LIMIT_S) -> Verdict:
    """Run ``exercise``'s check on ``answer``; whatever happens, a verdict comes back."""
    if not hasattr(os, "fork"):  # Windows, Pyodide: here (see the module's docstring)
        return _judge(exercise, answer, time_limit_s)
    _prepared(exercise)
    read, write = os.pipe()
    # Ctrl-C held back over fork(): raised inside logging's at-fork handlers it would
    # be printed as "Exception ignored" and lost. Here it is raised after the unblock;
    # the copy unblocks it only where it turns it into its reply.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        with warnings.catch_warnings():  # Python 3.12+ warns of forking with threads: see above
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:
            os.close(read)
            _in_the_copy(exercise, answer, time_limit_s, write)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    os.close(write)
    try:
        reply = _receive(read, time_limit_s + SLACK_S)
    finally:
        os.close(read)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    if reply is None:
        return wrong(timed_out(exercise.answer_name, time_limit_s, exercise.id))
    if not reply:  # the copy ended without a verdict: os._exit, a crash
        how = f"exit status {os.waitstatus_to_exitcode(status)}"
        return wrong(tr("exercise.ended", what=exercise.answer_name, how=how))
    if reply == ["interrupted"]:
        raise KeyboardInterrupt
    return Verdict(*reply)


@functools.cache
def _prepared(exercise: Exercise) -> None:
    """The exercise's ``prepare``, once, here: see the module's docstring."""
    if exercise.prepare is not None:
        exercise.prepare()


def _in_the_copy(exercise: Exercise, answer: Any, seconds: float, pipe: int) -> None:
    """The forked copy: judge, send the verdict as one JSON line, end. Never returns."""
    try:
        sys.stdout = sys.stderr = io.StringIO()  # nothing from the copy reaches the notebook
        try:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
            verdict = _judge(exercise, answer, seconds)
            reply = [verdict.status, verdict.detail]
        except KeyboardInterrupt:  # Ctrl-C in a terminal reaches the copy too
            reply = ["interrupted"]
        os.write(pipe, json.dumps(reply).encode() + b"\n")
    finally:
        os._exit(0)


def _receive(pipe: int, seconds: float) -> list[str] | None:
    """The copy's reply; ``[]`` if it ended without one, None if ``seconds`` passed first."""
    end, data = time.monotonic() + seconds, b""
    while not data.endswith(b"\n"):
        left = end - time.monotonic()
        if left <= 0 or not select.select([pipe], [], [], left)[0]:
            return None
        chunk = os.read(pipe, 65536)
        if not chunk:
            return []
        data += chunk
    return json.loads(data)


def _judge(exercise: Exercise, answer: Any, seconds: float) -> Verdict:
    """The check itself, in this process."""
    with time_limit(seconds, exercise.id):
        try:
            return exercise.check(answer)
        except Judged as judged:
            return judged.verdict
        except StillStarter as starter:  # say what is still to write, and where help is
            if starter.code is not None and starter.code not in code_of(answer):
                return not_done(tr("exercise.not_done.helper", name=starter.code.co_name))
            return not_done(tr("exercise.not_done.starter", task=exercise.title, id=exercise.id))
        except Runaway as runaway:
            return wrong(tr("exercise.runaway", requests=runaway.requests))
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # e.g. an answer whose == raises: still a verdict
            return Verdict(ERROR, tr("exercise.check_failed", error=describe(exc)))
