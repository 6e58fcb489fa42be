"""Verdicts, the exercise unit and the first checks (agentlab/course/exercises/core.py)."""

from __future__ import annotations

import pytest

import agentlab.course.exercises as api
from agentlab.course.exercises.core import Judged, describe, predict, same_value, type_slip, unit

from .conftest import verdict


class Speechless(ValueError):
    def __str__(self):
        raise RuntimeError("no words")


def test_an_exception_that_cannot_be_written_out_is_described_by_its_class():
    assert describe(Speechless()) == "Speechless"

    def completion_rate(results, cap):
        raise Speechless()

    found = verdict("05-completion-rate", completion_rate)
    assert found.status == "wrong" and "Speechless" in found.detail, found
    assert "RuntimeError" not in found.detail


def test_an_exercise_reads_its_data_from_its_unit():
    exercise = api.get("01-loop")
    data = unit("01-loop")
    assert (exercise.kind, exercise.answer_name, exercise.starter) == (
        data["kind"],
        data["answer"],
        data["starter"],
    )
    assert [m.label for m in exercise.mistakes] == [m["label"] for m in data["mistakes"]]
    assert exercise.chapter == "01" and repr(exercise) == "Exercise('01-loop')"


def test_a_prediction_forgives_what_it_cannot_know_and_names_a_type_slip():
    assert same_value(" Completed", "completed") and same_value([1, 2], [1, 2])
    assert same_value(0.2, 0.2001) and not same_value(1, True) and not same_value(0.2, 0.3)
    assert type_slip("True", True) == "quoted" and type_slip(1, True) == "bool"
    assert type_slip([3], 3) == "list" and type_slip("4", 5) is None
    with pytest.raises(Judged) as unfinished:
        predict("01-predict-cap2", {"steps": ..., "file_written": True}, {"steps": 2})
    assert unfinished.value.verdict.status == "not_done" and "steps" in str(unfinished.value)
    assert predict("01-predict-cap2", {"steps": 2}, {"steps": 2}).status == "passed"
