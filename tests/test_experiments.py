"""Chapter 05: populations are reproducible, every kind ends as it should,
and the derived measures mean what they say."""

from __future__ import annotations

import multiprocessing.pool
import re
import signal

import pandas as pd
import pytest

from agentlab import Budget
from agentlab.course.experiments import (
    KINDS,
    TaskProfile,
    make_population,
    run_profile,
    smallest_cap,
    summarize,
    sweep,
)


def test_the_same_seed_gives_the_same_population_and_sweep():
    assert make_population(50, seed=3) == make_population(50, seed=3)
    assert make_population(50, seed=3) != make_population(50, seed=4)
    first = sweep(make_population(12, seed=1), [2, 9])
    again = sweep(make_population(12, seed=1), [2, 9])
    pd.testing.assert_frame_equal(first, again)


def test_population_follows_the_stated_distribution():
    population = make_population(3000, seed=0)
    kinds = pd.Series([p.kind for p in population]).value_counts(normalize=True)
    assert kinds["honest"] == pytest.approx(0.6, abs=0.03)
    steps = pd.Series([p.tool_steps for p in population])
    assert steps.between(1, 15).all()
    assert (steps == 1).mean() == pytest.approx(15 / 120, abs=0.02)  # weight 16 - k
    assert (steps == 15).mean() == pytest.approx(1 / 120, abs=0.01)
    assert all(1 <= p.error_at <= p.tool_steps for p in population if p.error_at)


def test_unknown_kinds_are_refused():
    with pytest.raises(ValueError, match="unknown kind"):
        make_population(5, mix={"genius": 1.0})


EXPECTED_AT_A_LARGE_CAP = {
    "honest": ("completed", "answered"),
    "recovers": ("completed", "answered"),
    "gives_up": ("tool_error", "answered"),
    "runaway": ("budget_exhausted", "max_steps"),
    "repeater": ("budget_exhausted", "max_steps"),
}


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_reaches_its_expected_outcome_at_a_large_cap(kind):
    profile = TaskProfile(
        0, kind, tool_steps=6, error_at=3 if kind in ("recovers", "gives_up") else None
    )
    row = run_profile(profile, cap=40)
    assert (row["outcome"], row["stop_reason"]) == EXPECTED_AT_A_LARGE_CAP[kind]
    if profile.needed_steps is not None:
        assert row["steps"] == profile.needed_steps
    else:
        assert row["steps"] == 40


def test_one_step_short_is_not_enough():
    profile = TaskProfile(0, "honest", tool_steps=5)
    assert run_profile(profile, cap=profile.needed_steps)["outcome"] == "completed"
    assert run_profile(profile, cap=profile.needed_steps - 1)["outcome"] == "budget_exhausted"


def test_a_repeat_guard_stops_the_repeater_early():
    profile = TaskProfile(0, "repeater", tool_steps=1)
    guarded = run_profile(profile, 30, Budget(max_steps=30, repeat_hint_at=3, max_repeats=4))
    assert (guarded["stop_reason"], guarded["steps"]) == ("repeat_call", 4)


def test_summary_measures_by_hand():
    rows = [
        # cap 3: one honest task completes, one needs more, one runaway
        dict(
            profile=0,
            kind="honest",
            could_complete=True,
            cap=3,
            outcome="completed",
            steps=2,
            tokens=100,
        ),
        dict(
            profile=1,
            kind="honest",
            could_complete=True,
            cap=3,
            outcome="budget_exhausted",
            steps=3,
            tokens=90,
        ),
        dict(
            profile=2,
            kind="runaway",
            could_complete=False,
            cap=3,
            outcome="budget_exhausted",
            steps=3,
            tokens=80,
        ),
        dict(
            profile=0,
            kind="honest",
            could_complete=True,
            cap=5,
            outcome="completed",
            steps=2,
            tokens=100,
        ),
        dict(
            profile=1,
            kind="honest",
            could_complete=True,
            cap=5,
            outcome="completed",
            steps=4,
            tokens=300,
        ),
        dict(
            profile=2,
            kind="runaway",
            could_complete=False,
            cap=5,
            outcome="budget_exhausted",
            steps=5,
            tokens=150,
        ),
    ]
    summary = summarize(pd.DataFrame(rows)).set_index("cap")
    assert summary.loc[3, "completion_rate"] == 0.5
    assert summary.loc[3, "wasted_steps"] == 6
    assert summary.loc[3, "tokens_per_completed"] == 100
    assert summary.loc[5, "completion_rate"] == 1.0
    assert summary.loc[5, "wasted_steps"] == 5
    assert summary.loc[5, "tokens_per_completed"] == 200
    assert summary.loc[3, "share_budget_exhausted"] == pytest.approx(2 / 3)
    assert smallest_cap(summary.reset_index(), 0.9) == 5
    assert smallest_cap(summary.reset_index().query("cap == 3"), 0.9) is None  # none reaches it


def test_a_real_sweep_trades_completion_against_waste():
    results = sweep(make_population(60, seed=0), range(1, 21))
    summary = summarize(results)
    rates = summary["completion_rate"].tolist()
    assert rates == sorted(rates)  # more room never completes fewer honest tasks
    assert rates[0] == 0 and rates[-1] == 1.0
    # past the longest honest task, extra cap only feeds the runaways
    tail = summary[summary["cap"] >= 17]["wasted_steps"].tolist()
    assert tail == sorted(tail) and tail[-1] > tail[0]
    assert set(results.columns) >= {
        "kind",
        "needed_steps",
        "cap",
        "outcome",
        "stop_reason",
        "steps",
        "model_requests",
        "tokens",
    }


def test_workers_give_the_same_rows():
    population = make_population(10, seed=2)
    pd.testing.assert_frame_equal(sweep(population, [3, 8]), sweep(population, [3, 8], workers=2))


def test_the_pool_s_workers_ignore_ctrl_c_and_the_caller_keeps_its_handler(monkeypatch):
    """A terminal sends Ctrl-C to every process of `agentlab sweep --workers 2`: the
    workers must ignore it (the parent alone says it was interrupted), and the
    caller's own Ctrl-C handling must be back once the pool is made."""
    seen = []
    make_imap = multiprocessing.pool.Pool.imap

    def imap(pool, *args, **options):  # ask a worker, before it gets its first batch
        seen.append(pool.apply(signal.getsignal, (signal.SIGINT,)))
        seen.append(signal.getsignal(signal.SIGINT))
        return make_imap(pool, *args, **options)

    monkeypatch.setattr(multiprocessing.pool.Pool, "imap", imap)
    sweep(make_population(2, seed=0), [1], workers=2)
    assert seen == [signal.SIG_IGN, signal.default_int_handler]


@pytest.mark.parametrize("caps", [[], [0, 1], [2.5]])
def test_bad_caps(caps):
    with pytest.raises(ValueError):
        sweep(make_population(2), caps)


def test_bootstrap_caps_spread_and_their_interval():
    from agentlab.course.experiments import bootstrap_caps, cap_interval

    results = sweep(make_population(30, seed=0), range(1, 25))
    found = bootstrap_caps(results, 0.95, draws=300, seed=0)
    assert found == bootstrap_caps(results, 0.95, draws=300, seed=0)  # seeded
    point = smallest_cap(summarize(results), 0.95)
    assert min(c for c in found if c) <= point <= max(c for c in found if c)
    low, high = cap_interval(found, 0.9)
    assert low <= point <= high
    assert cap_interval([12, 13, 13, 14, 15], 0.6) == (13, 14)
    assert cap_interval([12, None, 13], 0.9) == (12, None)  # a sample that never got there


# -- rules the mutation audit found unpinned (review9/mut4) --------------------------------


def test_recovering_tasks_can_complete_and_count_in_the_completion_rate():
    """could_complete is True for honest and recovers, False for the other kinds."""
    able = {kind: TaskProfile(0, kind, 3, 2).could_complete for kind in KINDS}
    assert able == {
        "honest": True,
        "recovers": True,
        "gives_up": False,
        "runaway": False,
        "repeater": False,
    }


def test_the_longest_tasks_are_rare_but_drawn():
    """k = 15 has weight 1 of 120: in 12 000 draws about 100 tasks, never none."""
    steps = pd.Series([p.tool_steps for p in make_population(12_000, seed=0)])
    assert (steps == 15).mean() == pytest.approx(1 / 120, abs=0.003)
    assert (steps == 14).mean() == pytest.approx(2 / 120, abs=0.004)


def test_the_repeat_guard_stops_the_repeater_but_not_the_runaway():
    """with_repeat_guard adds seed 002's rule: the repeater stops at its 4th identical
    call; the runaway asks for a new step each time, so only the cap ends it."""
    from agentlab.course.experiments import with_repeat_guard

    repeater = run_profile(TaskProfile(0, "repeater", 1), 12, with_repeat_guard(12))
    runaway = run_profile(TaskProfile(1, "runaway", 1), 12, with_repeat_guard(12))
    assert (repeater["stop_reason"], repeater["steps"]) == ("repeat_call", 4)
    assert (runaway["stop_reason"], runaway["steps"]) == ("max_steps", 12)


def test_rows_carry_the_runs_tokens():
    """A row's tokens are the run's: positive, and more for a longer task."""
    short = run_profile(TaskProfile(0, "honest", 1), 20)["tokens"]
    long = run_profile(TaskProfile(0, "honest", 6), 20)["tokens"]
    assert 0 < short < long


@pytest.mark.parametrize("caps", [[3, 0], [3, 2.5], [True, 4]])
def test_bad_caps_are_refused_with_their_own_message(caps):
    """sweep checks every cap first and says what is wrong with the caps."""
    from agentlab.i18n import tr

    with pytest.raises(ValueError, match=tr("experiments.bad_caps")):
        sweep(make_population(2), caps)


def test_the_summary_has_a_share_for_every_outcome_a_sweep_can_give():
    """Every outcome gets its share column, model_error included."""
    rows = [
        dict(profile=i, kind="honest", could_complete=True, cap=4, outcome=o, steps=2, tokens=9)
        for i, o in enumerate(["completed", "model_error", "tool_error", "budget_exhausted"])
    ]
    summary = summarize(pd.DataFrame(rows)).iloc[0]
    for outcome in ("completed", "tool_error", "budget_exhausted", "model_error"):
        assert summary[f"share_{outcome}"] == 0.25


def test_a_rate_equal_to_the_target_reaches_it():
    """smallest_cap counts a completion rate of exactly the target as reaching it."""
    summary = pd.DataFrame({"cap": [4, 5, 6], "completion_rate": [0.5, 0.95, 1.0]})
    assert smallest_cap(summary, 0.95) == 5


def _hand_sweep(needed: dict[int, int | None], caps: range) -> pd.DataFrame:
    """Rows of a sweep by hand: task i completes at every cap >= needed[i] (None: never)."""
    rows = [
        dict(
            profile=task,
            could_complete=k is not None,
            cap=cap,
            outcome="completed" if k is not None and cap >= k else "budget_exhausted",
        )
        for task, k in needed.items()
        for cap in caps
    ]
    return pd.DataFrame(rows)


def test_bootstrap_samples_with_replacement_and_reaches_an_exact_target():
    """Tasks needing 1..10 steps, target 100 %: each sample's answer is its longest task,
    so answers vary (drawn with replacement) and 10 is the most common one."""
    from agentlab.course.experiments import bootstrap_caps

    results = _hand_sweep({i: i + 1 for i in range(10)}, range(1, 11))
    found = bootstrap_caps(results, 1.0, draws=400, seed=0)
    assert None not in found and set(found) <= set(range(1, 11))
    assert len(set(found)) > 1
    assert max(set(found), key=found.count) == 10


def test_bootstrap_resamples_all_tasks_not_only_those_that_could_complete():
    """One completable task among ten: a sample without it (about (9/10)^10 = 35 % of
    them) reaches the target at no cap, which is None."""
    from agentlab.course.experiments import bootstrap_caps

    results = _hand_sweep({0: 3, **{i: None for i in range(1, 10)}}, range(1, 6))
    found = bootstrap_caps(results, 0.95, draws=1000, seed=0)
    assert set(found) == {3, None}
    assert 0.25 < found.count(None) / len(found) < 0.45


@pytest.mark.parametrize("caps", [24, None])
def test_one_number_for_caps_is_told_to_be_a_list_of_them(caps):
    from agentlab.i18n import tr

    message = tr("experiments.caps_not_a_list", type=type(caps).__name__)
    with pytest.raises(TypeError, match=re.escape(message)):
        sweep(make_population(2), caps)


@pytest.mark.parametrize("target", [95, 0, -0.5, 1.01, "0.95", None])
def test_a_target_that_is_not_a_completion_rate_is_refused_naming_it(target):
    """TARGET = 95 (a percentage) would make every cap "not good enough": say so."""
    from agentlab.course.experiments import bootstrap_caps

    results = sweep(make_population(4, seed=1), [2, 8])
    for pick in (lambda: smallest_cap(summarize(results), target),
                 lambda: bootstrap_caps(results, target, draws=3)):  # fmt: skip
        with pytest.raises(ValueError, match="target") as refused:
            pick()
        assert repr(target) in str(refused.value)


def test_an_empty_list_of_caps_has_no_interval_and_says_so():
    from agentlab.course.experiments import cap_interval
    from agentlab.i18n import tr

    with pytest.raises(ValueError, match=tr("experiments.no_caps")):
        cap_interval([], 0.9)


@pytest.mark.parametrize(
    "budget, shown",
    [
        (Budget(max_steps=4), "Budget"),  # the budget itself, not the function making one
        (lambda cap: None, "NoneType"),  # a function that forgot its return
        (lambda cap: cap, "int"),
    ],
)
def test_a_budget_that_is_not_a_function_making_budgets_is_refused_naming_it(budget, shown):
    from agentlab.i18n import tr

    message = tr("experiments.bad_budget", type=shown)
    with pytest.raises(TypeError, match=re.escape(message)):
        sweep(make_population(2), [2, 4], budget=budget)


def test_caps_made_with_numpy_are_caps():
    """np.arange(1, 5) or a DataFrame column is numpy.int64: the same caps as range(1, 5)."""
    import numpy as np

    population = make_population(3, seed=1)
    pd.testing.assert_frame_equal(
        sweep(population, np.arange(1, 5)), sweep(population, range(1, 5))
    )
