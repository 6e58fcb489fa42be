"""Chapter 03's checks (agentlab/course/exercises/ch03.py)."""

from __future__ import annotations

import dataclasses
import time

import pytest

from agentlab.course.exercises import ch03
from agentlab.course.exercises.core import PASSED, WRONG
from agentlab.course.exercises.texts import tr
from agentlab.deadline import run_within

from .conftest import mistake, verdict


@dataclasses.dataclass
class NoProgressAsADataclass:
    limit: int
    seen: set = dataclasses.field(default_factory=set)
    streak: int = 0

    def after_step(self, fingerprints):
        new = set(fingerprints) - self.seen
        self.seen |= set(fingerprints)
        self.streak = 0 if new else self.streak + 1
        return self.streak >= self.limit


def test_a_right_counter_written_another_way_passes():
    found = verdict("03-no-progress", NoProgressAsADataclass)
    assert found.status == PASSED, found.detail


@pytest.mark.parametrize(
    ("label", "said"),
    [('after_step returns "stop"', "返回了 'continue'"), ("after_step never", "返回了 None")],
)
def test_after_step_must_return_true_or_false(label, said):
    found = verdict("03-no-progress", mistake("03-no-progress", label))
    assert found.status == WRONG, found.detail
    assert "应返回 True（该停了）或 False（继续）" in found.detail and said in found.detail


def test_state_shared_through_the_class_is_named_every_time():
    shared = mistake("03-no-progress", "the fingerprints kept on the class")
    first, again = (verdict("03-no-progress", shared) for _ in "12")
    assert first == again and first.status == WRONG
    assert "类属性" in first.detail and "self.seen" in first.detail, first.detail


def test_a_numpy_bool_from_after_step_is_a_bool():
    import numpy as np

    class NoProgress(ch03.NoProgress):
        def after_step(self, fingerprints):
            return np.bool_(super().after_step(fingerprints))

    found = verdict("03-no-progress", NoProgress)
    assert found.status == PASSED, found.detail


def test_the_deadline_check_has_its_own_words_for_per_phase_timeouts():
    per_phase = mistake("03-deadline", "per-phase timeout")
    assert "每个阶段一个新超时" in verdict("03-deadline", per_phase).detail


def test_a_deadline_whose_left_ignores_the_clock_is_told_so():
    found = verdict("03-deadline", mistake("03-deadline", "left() reads time.monotonic()"))
    assert found.status == WRONG and "left()" in found.detail, found.detail
    assert "self.clock()" in found.detail


@pytest.mark.parametrize(
    ("label", "said"),
    [("run() with no time left", "返回了 None"), ("run() raises concurrent", "TimeoutError")],
)
def test_a_run_that_does_not_raise_timed_out_is_told_why(label, said):
    found = verdict("03-deadline", mistake("03-deadline", label))
    assert found.status == WRONG and said in found.detail, found.detail
    assert "应抛出 TimedOut" in found.detail


def test_a_deadline_that_runs_the_work_unlimited_at_zero_is_told_so_not_that_it_skipped():
    class OrNone(ch03.SharedDeadline):
        def run(self, work, name):
            return run_within(work, self.left() or None, name)  # 0 s left: no limit

    found = verdict("03-deadline", OrNone)
    assert found.status == WRONG and "跑完" in found.detail, found.detail
    assert "没有运行工作" not in found.detail


def test_a_deadline_whose_left_is_always_the_full_budget_is_told_so():
    """`left()` that returns `self.seconds` never reads the clock, but "you did not read the
    clock you were given" sends a student who stored `self.clock = clock` looking in the
    wrong place: the budget never shrinks, and that is what they are told."""

    class Full:
        def __init__(self, seconds, clock=time.monotonic):
            self.seconds, self.clock = seconds, clock

        def left(self):
            return self.seconds

        def run(self, work, name):
            return run_within(work, self.left(), name)

    found = verdict("03-deadline", Full)
    expected = tr("exercise.03-deadline.full_no_clock", budget=0.1)
    assert found.status == WRONG and found.detail == expected, found.detail
