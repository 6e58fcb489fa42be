"""Chapter 05's checks (agentlab/course/exercises/ch05.py)."""

from __future__ import annotations

import agentlab.course.exercises as api
from agentlab.course.exercises import ch05
from agentlab.course.exercises.core import PASSED, WRONG

from .conftest import verdict


def test_completion_from_the_widest_runs_matches_a_real_sweep():
    """ch05 reads completion at any cap off one run per task at cap 24; a real sweep agrees."""
    from agentlab.course.experiments import summarize

    caps = (5, 12)
    summary = summarize(ch05._results(ch05.CHAPTER_SEED, caps)).set_index("cap")
    for cap in caps:
        assert ch05.completion_at(ch05.CHAPTER_SEED, cap) == summary.loc[cap, "completion_rate"]


def test_a_series_where_a_number_belongs_is_told_to_use_item():
    import pandas as pd

    reading = {**api.get("05-read-sweep").reference}
    reading["wasted_at_24"] = pd.Series([reading["wasted_at_24"]], index=[23])
    found = verdict("05-read-sweep", reading)
    assert found.status == WRONG and ".item()" in found.detail, found.detail
    assert "dtype" not in found.detail


def test_a_cap_as_a_float_is_the_same_cap():
    def pick_cap(summary, target):
        for cap, rate in sorted(zip(summary["cap"], summary["completion_rate"], strict=True)):
            if rate >= target:
                return float(cap)  # 5.0: the same cap
        return None

    found = verdict("05-pick-cap", pick_cap)
    assert found.status == PASSED, found.detail


def test_pick_cap_answered_with_the_library_itself_passes():
    # Every case's target is one smallest_cap accepts (0 < target <= 1).
    from agentlab.course.experiments import smallest_cap

    found = verdict("05-pick-cap", lambda summary, target: smallest_cap(summary, target))
    assert found.status == PASSED, found.detail


def test_seeds_may_be_written_as_text():
    found = verdict("05-predict-seeds", {"1": 13, "2": 13, "3": 15})
    assert found.status == PASSED, found.detail
