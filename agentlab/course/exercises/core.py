"""What an exercise is, what a check concludes, and the first things every check looks at.

An exercise is one unit. Its code sits in its chapter's module (``ch01.py`` ...
``ch05.py``): the reference answer, written as a student would write it, and the
check. Its data is ``units/<id>.toml``: what kind of exercise it is, the name the
student's answer goes by, the starter code of the notebook cell, its texts in both
languages (title, prompt, hint, feedback: read by :mod:`~.texts`), and the named
mistakes (:mod:`~agentlab.course.exercises.mistakes`) with the feedback each gets. The
notebook's cells for it are made from the unit (``tests/exercise_cells.py``).

A check is a plain function ``answer -> Verdict`` that names the *first* thing
that is wrong. Four things can come out:

- ``passed``   — every scenario behaved as the exercise asks;
- ``not_done`` — the answer is still the starter (``...`` or
  ``NotImplementedError``), or a prediction still has ``...`` in it;
- ``wrong``    — the first concrete problem, in words a student can act on;
- ``error``    — the check itself broke (a bug here, or an answer whose ``==``
  raises): the student reads it as "not right", ``verify`` as a misjudgement.

This module knows nothing about any particular exercise, and does not run
student code (that is :mod:`~agentlab.course.exercises.running`).
"""

from __future__ import annotations

import functools
import re
import tempfile
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from importlib.resources import files
from types import CodeType
from typing import Any, NamedTuple

from .mistakes import Mistake
from .texts import tr

PASSED, NOT_DONE, WRONG = "passed", "not_done", "wrong"
ERROR = "error"  # the check itself failed: "not right" to the student, a misjudgement to verify


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


class OutOfTime(Judged):
    """The student's code was still running when the time limit came: no verdict on
    what it would have done (a test that never finished did not fail)."""


class StillStarter(Exception):
    """The student's code raised ``NotImplementedError``: it is still the starter.

    ``code`` is the function it was raised in: the exercise's task if that
    function is part of the answer, else an unfinished helper the answer calls.
    """

    def __init__(self, code: CodeType | None):
        super().__init__(getattr(code, "co_name", ""))
        self.code = code


class Runaway(BaseException):
    """A scripted model was asked more often than any correct answer would ask.

    Raised by the check's own scripted models (:func:`~.loops.runaway_guard`): a
    ``BaseException``, so that it passes through ``except Exception`` and through the
    openai SDK, and a loop without a cap ends.
    """

    def __init__(self, requests: int):
        super().__init__(f"{requests} requests")
        self.requests = requests


class WrongAnswer(NamedTuple):
    mistake: Mistake
    answer: Any


@functools.cache
def unit(exercise_id: str) -> dict[str, Any]:
    """The data half of an exercise: ``units/<id>.toml``, read once."""
    return tomllib.loads((files(__package__) / "units" / f"{exercise_id}.toml").read_text("utf-8"))


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: one object per exercise
class Exercise:
    """One exercise: its ``check`` and its ``solution`` (Python, in its chapter's module);
    the rest is data, in ``units/<id>.toml``.

    From the unit: ``kind`` ("code", "predict" or "read"), ``answer_name`` (what the
    check cell passes to ``check``), ``starter`` (the code of the student's cell), the
    named ``mistakes``, and ``title``, ``prompt`` and ``hint`` in the language of
    ``AGENTLAB_LANG``.
    """

    id: str
    check: Callable[[Any], Verdict]
    solution: Any
    """The reference answer, written as a student would write it; where there is ``data``,
    the function that reads the answer from it."""
    prepare: Callable[[], object] | None = None
    """Makes, once, what the check compares against (reference runs, sweeps) and caches it
    in this process, so that each forked copy the check runs in starts with it."""
    data: Callable[[], Any] | None = None
    """For a "read" exercise, makes the data the student reads (the chapter's table)."""

    @cached_property
    def reference(self) -> Any:
        """The reference answer: ``solution``, or what it reads from ``data``."""
        return self.solution if self.data is None else self.solution(self.data())

    @property
    def chapter(self) -> str:
        return self.id[:2]

    @property
    def kind(self) -> str:
        return unit(self.id)["kind"]

    @property
    def answer_name(self) -> str:
        return unit(self.id)["answer"]

    @property
    def starter(self) -> str:
        return unit(self.id)["starter"]

    @property
    def mistakes(self) -> tuple[Mistake, ...]:
        return tuple(Mistake.read(entry) for entry in unit(self.id).get("mistakes", ()))

    @property
    def title(self) -> str:
        return tr(f"exercise.{self.id}.title")

    @property
    def prompt(self) -> str:
        return tr(f"exercise.{self.id}.prompt")

    @property
    def hint(self) -> str:
        return tr(f"exercise.{self.id}.hint")

    @cached_property
    def wrong(self) -> tuple[WrongAnswer, ...]:
        """Each mistake with the wrong answer it makes of the reference."""
        return tuple(WrongAnswer(m, m.answer(self.reference)) for m in self.mistakes)

    def __repr__(self) -> str:
        return f"Exercise({self.id!r})"


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


def need_prediction(answer: Any, fields: list[Any]) -> dict[Any, Any]:
    """The prediction dict, or stop the check: still ``...``, wrong type, keys missing."""
    if is_unfinished(answer):
        raise Judged(not_done(tr("exercise.not_done.prediction")))
    if not isinstance(answer, dict):
        raise Judged(wrong(tr("exercise.need_dict", got=type_name(answer))))
    missing = [str(f) for f in fields if f not in answer]
    if missing:
        raise Judged(wrong(tr("exercise.predict.missing_keys", keys=tr("list.sep").join(missing))))
    # only ... marks a blank: None can be a real prediction (e.g. no phase)
    unfilled = [str(f) for f in fields if answer[f] is Ellipsis]
    if unfilled:
        raise Judged(not_done(tr("exercise.not_done.fields", fields=tr("list.sep").join(unfilled))))
    return answer


def predict(exercise_id: str, answer: Any, actual: dict[str, Any]) -> Verdict:
    """A predict-then-run check: ``actual`` is what the real run gave, in the order the
    fields are compared; the first field that differs is explained by
    ``exercise.<id>.why`` (or by the type slip it is)."""
    prediction = need_prediction(answer, list(actual))
    for field, value in actual.items():
        if not same_value(prediction[field], value):
            slip = type_slip(prediction[field], value)
            why = tr(f"exercise.predict.type_{slip}") if slip else tr(f"exercise.{exercise_id}.why")
            return wrong(
                tr(
                    "exercise.predict.mismatch",
                    field=field,
                    predicted=shown(prediction[field]),
                    actual=shown(value),
                    why=why,
                )
            )
    values = ", ".join(f"{field}={shown(value)}" for field, value in actual.items())
    return passed(tr("exercise.predict.all_match", values=values))


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
