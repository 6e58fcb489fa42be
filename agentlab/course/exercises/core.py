"""The exercise checker's machinery: verdicts, exercises, running student code safely.

A check is a plain function ``answer -> Verdict``. It runs the student's
answer against scripted scenarios and names the *first* thing that is wrong.
Four things can come out:

- ``passed``   — every scenario behaved as the exercise asks;
- ``not_done`` — the answer is still the starter (``...`` or
  ``NotImplementedError``), or a prediction still has ``...`` in it;
- ``wrong``    — the first concrete problem, in words a student can act on;
- ``error``    — the check itself broke (a bug here, or an answer whose ``==``
  raises): the student reads it as "not right", ``verify`` as a misjudgement.

Student code is never trusted: :func:`run_student` runs it with its output
hidden, warnings silenced and a time limit, and turns whatever it does
(raise, hang, loop forever) into a verdict. The time limit is ONE deadline
for the whole check, shared by every call into student code — the lesson of
chapter 03 applied to the checker itself. In the main thread (a notebook
cell, pytest) it is enforced with ``SIGALRM``, which interrupts pure-Python
loops and ``time.sleep`` alike; elsewhere (Windows, a check called from a
thread) the student's code runs on a helper thread that gets an exception
injected when time is up, its frames marked as with the alarm so that a bare
``except:`` cannot keep it running after the check has answered.

This module knows nothing about any particular exercise.
"""

from __future__ import annotations

import contextlib
import contextvars
import ctypes
import gc
import io
import os
import re
import signal
import sys
import sysconfig
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import CodeType
from typing import Any

from .texts import tr

DEFAULT_TIME_LIMIT_S = 5.0

PASSED, NOT_DONE, WRONG = "passed", "not_done", "wrong"
ERROR = "error"  # the check itself failed: shown to the student as "not right", never
# counted as a right verdict by ``verify``


@dataclass(frozen=True)
class Verdict:
    """What a check concluded: ``status`` (passed / not_done / wrong / error) and why."""

    status: str
    detail: str


def passed(detail: str = "") -> Verdict:
    return Verdict(PASSED, detail)


def not_done(detail: str) -> Verdict:
    return Verdict(NOT_DONE, detail)


def wrong(detail: str) -> Verdict:
    return Verdict(WRONG, detail)


class Judged(Exception):
    """Raised inside a check to end it at once with ``verdict``."""

    def __init__(self, verdict: Verdict):
        super().__init__(verdict.detail)
        self.verdict = verdict


class StillStarter(Exception):
    """The student's code raised ``NotImplementedError``: it is still the starter.

    ``code`` is the function it was raised in. :func:`judge` turns it into
    ``not_done``: the exercise's task if that function is part of the answer,
    else the name of the unfinished helper the answer calls.
    """

    def __init__(self, code: CodeType | None):
        super().__init__(getattr(code, "co_name", ""))
        self.code = code


class TimeUp(BaseException):
    """The check's time ran out inside student code.

    A ``BaseException``, so that a student's ``except Exception`` cannot swallow it.
    """


class Runaway(BaseException):
    """A scripted model was asked more often than any correct answer would ask.

    Raised by the check's own scripted models (see
    :func:`~agentlab.course.exercises.loops.runaway_guard`); like :class:`TimeUp`
    it passes through ``except Exception`` and through the openai SDK, so a
    loop without a cap cannot keep going.
    """

    def __init__(self, requests: int):
        super().__init__(f"{requests} requests")
        self.requests = requests


@dataclass(frozen=True)
class Wrong:
    """A plausible wrong answer, kept to prove the check catches it."""

    label: str  # what is wrong with it, in English, for maintainers
    answer: Any


@dataclass(frozen=True)
class Exercise:
    """One exercise: where it goes, what the student starts from, how it is checked.

    ``title``, ``prompt`` and ``hint`` are looked up in the i18n catalog
    (``exercise.<id>.title`` ...), so they follow ``AGENTLAB_LANG``.
    ``starter`` is the code of the student's cell as committed in the
    notebook; it defines ``answer_name``, which the check cell passes to
    :func:`agentlab.course.exercises.check`.
    """

    id: str
    chapter: str
    kind: str  # "code" (write a function or class) or "predict" (fill in a dict, then run)
    answer_name: str
    starter: str
    check: Callable[[Any], Verdict]
    reference: Any
    wrong: tuple[Wrong, ...]

    @property
    def title(self) -> str:
        return tr(f"exercise.{self.id}.title")

    @property
    def prompt(self) -> str:
        return tr(f"exercise.{self.id}.prompt")

    @property
    def hint(self) -> str:
        return tr(f"exercise.{self.id}.hint")

    def __repr__(self) -> str:
        return f"Exercise({self.id!r}, chapter={self.chapter!r}, kind={self.kind!r})"


# -- the one deadline of a check -------------------------------------------------

_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "agentlab_exercise_deadline", default=None
)


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Every :func:`run_student` inside shares one deadline, ``seconds`` from now."""
    token = _DEADLINE.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def time_left() -> float:
    deadline = _DEADLINE.get()
    if deadline is None:
        return DEFAULT_TIME_LIMIT_S
    return max(0.0, deadline - time.monotonic())


def run_student(function: Callable[..., Any], *args: Any, what: str, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)`` as student code: output hidden, time bounded.

    Returns its value, or raises :class:`Judged` with the verdict for what it
    did instead (``NotImplementedError`` -> :class:`StillStarter`; any other exception or
    running out of time -> wrong, naming ``what`` was being run).
    :class:`Runaway` is passed on for the check to explain.
    """
    seconds = time_left()
    if seconds <= 0:
        raise Judged(wrong(tr("exercise.timeout", what=what)))
    try:
        with _quiet():
            return _bounded(lambda: function(*args, **kwargs), seconds)
    except (Judged, Runaway, StillStarter):  # already a verdict, or on its way to one
        raise
    except NotImplementedError as exc:
        raise StillStarter(_raised_in(exc)) from None
    except TimeUp:
        raise Judged(wrong(tr("exercise.timeout", what=what))) from None
    except KeyboardInterrupt:  # the student pressed stop: that is theirs, not a verdict
        raise
    except BaseException as exc:  # SystemExit, GeneratorExit, a BaseException of their own
        raise Judged(wrong(tr("exercise.raised", what=what, error=describe(exc)))) from None


def _raised_in(exc: BaseException) -> CodeType | None:
    """The code of the function in which ``exc`` was raised (its innermost frame)."""
    frame = exc.__traceback__
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    return frame.tb_frame.f_code if frame is not None else None


def code_of(answer: Any) -> set[CodeType]:
    """Every function body that is part of ``answer``: its own, the functions
    defined inside it, and for a class each of its methods."""
    found: set[CodeType] = set()
    pending = [getattr(answer, "__code__", None)]
    if isinstance(answer, type):
        pending += [getattr(member, "__code__", None) for member in vars(answer).values()]
    while pending:
        code = pending.pop()
        if isinstance(code, CodeType) and code not in found:
            found.add(code)
            pending += list(code.co_consts)
    return found


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


def _bounded(work: Callable[[], Any], seconds: float) -> Any:
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        return _bounded_by_alarm(work, seconds)
    return _bounded_by_thread(work, seconds)


NOT_STUDENT_CODE = tuple(
    folder + os.sep
    for folder in (
        str(Path(__file__).resolve().parent.parent),  # agentlab: the checker must run on
        sysconfig.get_path("stdlib"),  # a lock's cleanup in threading, say
        sysconfig.get_path("purelib"),  # the openai SDK and other installed packages
        sysconfig.get_path("platlib"),
    )
)
"""Where the line tracer below never raises: code whose own cleanup must run."""


def _time_up_on_line(frame: Any, event: str, arg: Any) -> Any:
    """A line tracer: the next line of a marked frame raises :class:`TimeUp`."""
    if event == "line":
        raise TimeUp()  # CPython switches the tracer off by itself after this
    return _time_up_on_line


def _bounded_by_alarm(work: Callable[[], Any], seconds: float) -> Any:
    marked: list[tuple[Any, Any]] = []  # (frame, its tracer before): put back at the end
    collecting = False  # the garbage collector is running its callbacks

    def gc_starts(phase: str, info: dict[str, Any]) -> None:
        nonlocal collecting
        if phase == "start":
            collecting = True

    def gc_stops(phase: str, info: dict[str, Any]) -> None:
        nonlocal collecting
        if phase == "stop":
            collecting = False

    ours = (_bounded_by_alarm.__code__, gc_starts.__code__, gc_stops.__code__)

    def time_up(signum: int, frame: Any) -> None:
        # Raised in a gc callback, TimeUp would be "ignored" and lost; raised while
        # this function sets up or cleans up, it would leave the alarm behind. Then
        # wait for the alarm to come back in 50 ms.
        if collecting or frame.f_code in ours:
            return
        # A bare ``except:`` in the student's code catches this. So the next line
        # it runs, in that handler, raises again: an exception raised inside an
        # ``except`` block is not caught by that block. Only the student's frames
        # running now are traced, not code that starts later (a gc callback, say).
        sys.settrace(lambda *_: None)  # tracing on, for the frames marked here
        while frame is not None:
            if not frame.f_code.co_filename.startswith(NOT_STUDENT_CODE):
                marked.append((frame, frame.f_trace))
                frame.f_trace = _time_up_on_line
            frame = frame.f_back
        raise TimeUp()

    previous, tracer = signal.signal(signal.SIGALRM, time_up), sys.gettrace()
    gc.callbacks.insert(0, gc_starts)  # first at "start", last at "stop": around all others
    gc.callbacks.append(gc_stops)
    # Fires again every 50 ms, should a tracer not have stopped the code.
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001), 0.05)
    try:
        return work()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        sys.settrace(tracer)  # a debugger's, or none
        for frame, before in marked:
            frame.f_trace = before
        marked.clear()  # no frames (and their locals) kept alive
        gc.callbacks.remove(gc_starts)
        gc.callbacks.remove(gc_stops)


def _bounded_by_thread(work: Callable[[], Any], seconds: float) -> Any:
    outcome: dict[str, Any] = {}

    def target() -> None:
        # Tracing on in this thread (no tracer of its own yet), so that when time is up
        # the frames marked below raise again inside a bare ``except:``, as with the alarm.
        if sys.gettrace() is None:
            sys.settrace(lambda *_: None)
        try:
            outcome["value"] = work()
        except BaseException as exc:  # handed to the caller below
            outcome["error"] = exc
        finally:
            sys.settrace(None)

    worker = threading.Thread(target=target, name="agentlab-exercise", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        frame = sys._current_frames().get(worker.ident or 0)  # the worker's innermost frame
        while frame is not None:
            if not frame.f_code.co_filename.startswith(NOT_STUDENT_CODE):
                frame.f_trace = _time_up_on_line
            frame = frame.f_back
        # Python cannot kill a thread, but it can make it raise at its next bytecode.
        ctypes.pythonapi.PyThreadState_SetAsyncExc(
            ctypes.c_ulong(worker.ident or 0), ctypes.py_object(TimeUp)
        )
        raise TimeUp()
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


def judge(exercise: Exercise, answer: Any, time_limit_s: float = DEFAULT_TIME_LIMIT_S) -> Verdict:
    """Run ``exercise``'s check on ``answer``; whatever happens, a verdict comes back."""
    with time_limit(time_limit_s):
        try:
            return exercise.check(answer)
        except Judged as judged:
            return judged.verdict
        except StillStarter as starter:  # say what is still to write, and where help is
            if starter.code is not None and starter.code not in code_of(answer):
                return not_done(tr("exercise.not_done.helper", name=starter.code.co_name))
            return not_done(tr("exercise.not_done.starter", task=exercise.title, id=exercise.id))
        except TimeUp:
            return wrong(tr("exercise.timeout", what=exercise.answer_name))
        except Runaway as runaway:
            return wrong(tr("exercise.runaway", requests=runaway.requests))
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # e.g. an answer whose == raises: still a verdict
            return Verdict(ERROR, tr("exercise.check_failed", error=describe(exc)))


# -- describing things without machine-specific noise ------------------------------

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_TMP = re.compile(re.escape(tempfile.gettempdir()) + r"/[^\s'\",)]*")


def clean(text: str, limit: int = 160) -> str:
    """``text`` with memory addresses and temporary paths blanked, cut to ``limit``."""
    text = _TMP.sub("<tmp>", _ADDRESS.sub("", str(text)))
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe(exc: BaseException) -> str:
    try:
        message = clean(str(exc))
    except Exception:  # a student's exception whose __str__ raises: its class says enough
        message = ""
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def shown(value: Any, limit: int = 80) -> str:
    """A short, stable rendering of a value, as Python would write it."""
    if callable(value) and not isinstance(value, type):
        return f"<{type(value).__name__}>"
    if type(value).__module__ == "numpy" and hasattr(value, "item"):
        value = value.item()  # np.float64(0.2) -> 0.2
    if isinstance(value, float):
        value = round(value, 4)
    if isinstance(value, dict):
        try:
            value = dict(sorted(value.items()))
        except TypeError:
            pass
    try:
        text = repr(value)
    except Exception:  # a student's object whose repr raises
        text = f"<{type(value).__name__}>"
    return clean(text, limit)


def type_name(value: Any) -> str:
    return "None" if value is None else type(value).__name__


# -- common first checks -------------------------------------------------------------


def is_unfinished(value: Any) -> bool:
    """The starter's placeholders: ``None`` or ``...``."""
    return value is None or value is Ellipsis


def need_callable(answer: Any, name: str) -> None:
    """Stop the check unless ``answer`` is a function (or class) to call."""
    if is_unfinished(answer):
        raise Judged(not_done(tr("exercise.not_done.missing", name=name)))
    if not callable(answer):
        raise Judged(wrong(tr("exercise.need_callable", name=name, got=type_name(answer))))


def need_prediction(answer: Any, fields: list[str]) -> dict[str, Any]:
    """The prediction dict, or stop the check: still ``...``, wrong type, keys missing."""
    if is_unfinished(answer):
        raise Judged(not_done(tr("exercise.not_done.prediction")))
    if not isinstance(answer, dict):
        raise Judged(wrong(tr("exercise.need_dict", got=type_name(answer))))
    missing = [f for f in fields if f not in answer]
    if missing:
        raise Judged(
            wrong(tr("exercise.predict.missing_keys", keys=tr("list.sep").join(map(str, missing))))
        )
    # only ... marks a blank: None can be a real prediction (e.g. no phase)
    unfilled = [str(f) for f in fields if answer[f] is Ellipsis]
    if unfilled:
        raise Judged(not_done(tr("exercise.not_done.fields", fields=tr("list.sep").join(unfilled))))
    return answer


def compare_prediction(
    prediction: dict[str, Any], actual: dict[str, Any], why: Callable[[str], str]
) -> Verdict:
    """Field by field, in order: the first field that differs, with its explanation."""
    for field, value in actual.items():
        if not same_value(prediction[field], value):
            slip = type_slip(prediction[field], value)
            return wrong(
                tr(
                    "exercise.predict.mismatch",
                    field=field,
                    predicted=shown(prediction[field]),
                    actual=shown(value),
                    why=tr(f"exercise.predict.type_{slip}") if slip else why(field),
                )
            )
    values = ", ".join(f"{field}={shown(value)}" for field, value in actual.items())
    return passed(tr("exercise.predict.all_match", values=values))


def predict(exercise_id: str, answer: Any, actual: dict[str, Any]) -> Verdict:
    """A predict-then-run check: ``actual`` is what the real run gave, in the order the
    fields are compared; a mismatch is explained by ``exercise.<id>.why``."""
    prediction = need_prediction(answer, list(actual))
    return compare_prediction(prediction, actual, lambda field: tr(f"exercise.{exercise_id}.why"))


def type_slip(predicted: Any, actual: Any) -> str | None:
    """The value is right and its type is not: ``"quoted"`` ('5' for 5, 'True' for True),
    ``"bool"`` (1 for True) or ``"list"`` ([3] for 3); None when the value itself differs."""
    if isinstance(predicted, str) and not isinstance(actual, str) and actual is not None:
        return "quoted" if predicted.strip().lower() == str(actual).lower() else None
    if isinstance(actual, bool) and isinstance(predicted, int | float):
        return "bool" if predicted == actual else None
    if isinstance(predicted, list | tuple) and not isinstance(actual, list | tuple):
        return "list" if len(predicted) == 1 and same_value(predicted[0], actual) else None
    return None


def same_value(predicted: Any, actual: Any) -> bool:
    """Equality that forgives what a prediction cannot know: float noise, tuple vs list,
    and surrounding spaces or case in a code such as ``" Completed"``."""
    if isinstance(actual, bool) or isinstance(predicted, bool):
        return predicted is actual
    if isinstance(actual, float) and isinstance(predicted, int | float):
        return abs(actual - predicted) <= 0.005
    if isinstance(actual, list) and isinstance(predicted, list | tuple):
        return len(actual) == len(predicted) and all(
            same_value(p, a) for p, a in zip(predicted, actual, strict=True)
        )
    if isinstance(actual, str) and isinstance(predicted, str):
        return predicted.strip().lower() == actual.lower()
    return predicted == actual
