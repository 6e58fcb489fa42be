"""Chapter 05 exercises: choosing a step cap from data.

The data are real: populations from :func:`agentlab.course.experiments.make_population`
run through the real loop (:func:`~agentlab.course.experiments.run_profile`). To
keep checks quick, a claimed cap is verified where it matters rather than by a
full sweep: "cap A is the smallest that reaches the target" is checked by the
completion of the tasks that could complete at A and at A - 1 (completion only
grows with the cap), using one run per task at the widest cap (see
``_longest_runs``). Runs are cached per process, since the same seed and cap
always give the same rows.

Each exercise in turn: its reference answer, its named mistakes, its check.
The starter code is in ``units/<id>.toml``.
"""

from __future__ import annotations

import functools
import math
import numbers
from typing import TYPE_CHECKING, Any

from .core import (
    Exercise,
    Judged,
    Verdict,
    need_callable,
    need_prediction,
    passed,
    shown,
    wrong,
)
from .running import run_student
from .texts import tr

if TYPE_CHECKING:  # pandas and the sweeps load only when a chapter-05 check runs
    import pandas as pd

POPULATION = 30  # tasks per seed, as in the chapter
WIDEST_CAP = 24  # the chapter sweeps caps 1..24
TARGET = 0.95
CHAPTER_SEED = 0


@functools.lru_cache(maxsize=16)
def _results(
    seed: int, caps: tuple[int, ...], size: int = POPULATION, repeat_guard: bool = False
) -> pd.DataFrame:
    """A real sweep (cached: the same seed and caps always give the same rows); with
    ``repeat_guard`` the repeaters stop at their 4th identical call, before the cap."""
    from ..experiments import make_population, sweep, with_repeat_guard

    budget = with_repeat_guard if repeat_guard else None
    return sweep(make_population(size, seed=seed), list(caps), budget=budget)


@functools.lru_cache(maxsize=8)
def _longest_runs(seed: int) -> tuple[tuple[str, int], ...]:
    """(outcome, steps) of every task that could complete, run once at the widest cap swept.

    A run under a smaller cap is the same run cut short: the scripted model decides from
    the history alone and the cap only stops the loop before a step. So a task completes
    at ``cap`` exactly when its run here completed within ``cap`` steps.
    """
    from ..experiments import make_population, run_profile

    able = [p for p in make_population(POPULATION, seed=seed) if p.could_complete]
    rows = (run_profile(p, WIDEST_CAP) for p in able)
    return tuple((row["outcome"], row["steps"]) for row in rows)


def completion_at(seed: int, cap: int) -> float:
    """Completion rate at ``cap`` of the tasks that could complete (real runs, see above)."""
    runs = _longest_runs(seed)
    if not runs:
        return 0.0
    return sum(o == "completed" and steps <= cap for o, steps in runs) / len(runs)


def claim_problem(seed: int, cap: Any, target: float) -> tuple[str, dict[str, Any]] | None:
    """Why ``cap`` is not the smallest cap reaching ``target`` for ``seed`` (or None)."""
    if not isinstance(cap, int) or isinstance(cap, bool) or cap < 1:
        return "exercise.05.cap_not_int", {"seed": seed, "got": shown(cap)}
    rate, goal = completion_at(seed, cap), f"{target:.0%}"
    if rate < target:
        return "exercise.05.cap_too_small", {
            "seed": seed,
            "cap": cap,
            "rate": f"{rate:.1%}",
            "target": goal,
        }
    if cap > 1 and completion_at(seed, cap - 1) >= target:
        smaller = completion_at(seed, cap - 1)
        fields = {
            "seed": seed,
            "cap": cap,
            "smaller": cap - 1,
            "rate": f"{smaller:.1%}",
            "target": goal,
        }
        return "exercise.05.cap_not_smallest", fields
    return None


# -- 05-completion-rate and 05-wasted-steps ----------------------------------------------


def completion_rate(results, cap):
    at_cap = results[results["cap"] == cap]
    able = at_cap[at_cap["could_complete"]]
    if len(able) == 0:
        return 0.0
    return (able["outcome"] == "completed").mean()


def wasted_steps(results, cap):
    at_cap = results[results["cap"] == cap]
    return int(at_cap.loc[at_cap["outcome"] == "budget_exhausted", "steps"].sum())


RESULT_CAPS = (3, 6, 9)
RESULT_SIZE = 15  # a smaller population than the chapter's: enough kinds, fewer runs


def _sweep(cap: int, runs: list[tuple[str, bool, str, str, int, int]]) -> pd.DataFrame:
    """A hand-made sweep at ``cap``: (kind, could complete?, outcome, stop reason, steps,
    model requests) for each run."""
    import pandas as pd

    rows = [
        {
            "profile": i,
            "kind": kind,
            "needed_steps": 3 if able else None,
            "could_complete": able,
            "cap": cap,
            "outcome": outcome,
            "stop_reason": reason,
            "steps": steps,
            "model_requests": requests,
            "tokens": 100,
        }
        for i, (kind, able, outcome, reason, steps, requests) in enumerate(runs)
    ]
    return pd.DataFrame(rows)


RUNAWAY = ("runaway", False, "budget_exhausted", "max_steps")
HAND_MADE = (
    # nothing could complete at cap 3 (only runaways)
    ("only_runaways", 3, [(*RUNAWAY, 3, 3)] * 4),
    # 2 of the 3 tasks that could complete did: 2/3, which rounding to 2 decimals does not
    # give (the real sweeps give fifths)
    (
        "two_of_three",
        4,
        [
            ("honest", True, "completed", "answered", 3, 3),
            ("honest", True, "completed", "answered", 2, 2),
            ("honest", True, "budget_exhausted", "max_steps", 4, 4),
            (*RUNAWAY, 4, 4),
        ],
    ),
    # what the real sweeps lack: a task that could complete answered right after a tool
    # error (stop reason answered, outcome tool_error), and a run whose retried request
    # made its model requests outnumber its steps
    (
        "answered_after_error",
        4,
        [
            ("honest", True, "completed", "answered", 3, 3),
            ("recovers", True, "tool_error", "answered", 2, 2),
            ("honest", True, "budget_exhausted", "max_steps", 4, 5),
            (*RUNAWAY, 4, 4),
        ],
    ),
)


@functools.cache  # the same rows every time: made once, in the kernel (see running.py)
def _measure_cases() -> list[tuple[str, pd.DataFrame, int, pd.Series]]:
    """(case key, results, cap, that cap's row of summarize(results))."""
    from ..experiments import summarize

    real = _results(CHAPTER_SEED, RESULT_CAPS, RESULT_SIZE)
    # Runs stopped by the repeat guard ran out of budget before the cap: not cap steps each.
    guarded = _results(CHAPTER_SEED, (9,), RESULT_SIZE, repeat_guard=True)
    sweeps = [("real", real, RESULT_CAPS), ("guarded", guarded, (9,))]
    sweeps += [(case, _sweep(cap, runs), (cap,)) for case, cap, runs in HAND_MADE]
    cases = []
    for case, results, caps in sweeps:
        summary = summarize(results).set_index("cap")
        cases += [(case, results, cap, summary.loc[cap]) for cap in caps]
    return cases


def _check_measure(answer: Any, name: str, exercise_id: str) -> Verdict:
    need_callable(answer, name)
    for case, results, cap, row in _measure_cases():
        label = tr(f"exercise.05.case.{case}")
        what = tr("exercise.05.what_measure", name=name, case=label, cap=cap)
        got = run_student(answer, results.copy(), cap, what=what)
        expected = row[name]
        _need_scalar(got, tr("exercise.05.returned_by", name=name))
        if not isinstance(got, numbers.Real) or isinstance(got, bool) or math.isnan(float(got)):
            return wrong(tr("exercise.05.not_number", name=name, got=shown(got)))
        if abs(float(got) - float(expected)) > 1e-9:
            shown_expected = f"{expected:.3f}" if name == "completion_rate" else int(expected)
            key = f"exercise.{exercise_id}.mismatch"
            return wrong(tr(key, case=label, cap=cap, expected=shown_expected, got=shown(got)))
    return passed(tr(f"exercise.{exercise_id}.passed"))


def check_completion_rate(answer: Any) -> Verdict:
    return _check_measure(answer, "completion_rate", "05-completion-rate")


def check_wasted_steps(answer: Any) -> Verdict:
    return _check_measure(answer, "wasted_steps", "05-wasted-steps")


# -- 05-pick-cap and 05-robust-cap -------------------------------------------------------


def pick_cap(summary, target):
    reached = summary[summary["completion_rate"] >= target]
    if len(reached) == 0:
        return None
    return int(reached["cap"].min())


def summary_of(rates: list[float], shuffled: bool = False) -> pd.DataFrame:
    """A summary table with caps 1..n and these completion rates."""
    import pandas as pd

    frame = pd.DataFrame({"cap": range(1, len(rates) + 1), "completion_rate": rates})
    return frame.iloc[::-1].reset_index(drop=True) if shuffled else frame


RATES = [0.0, 0.2, 0.5, 0.8, 0.95, 0.95, 1.0, 1.0]
NEVER_95 = [0.0, 0.2, 0.5, 0.8, 0.9, 0.9]  # no cap reaches 0.95

# (case key, rates, reversed rows?, target)
PICK_CASES = (
    ("exact", RATES, False, 0.95),
    ("lower", RATES, False, 0.8),
    ("all", RATES, False, 1.0),
    ("reversed", RATES, True, 0.95),
    ("unreachable", NEVER_95, False, 0.95),
)


def check_pick_cap(answer: Any) -> Verdict:
    from ..experiments import smallest_cap

    need_callable(answer, "pick_cap")
    for case, rates, reverse, target in PICK_CASES:
        summary = summary_of(rates, shuffled=reverse)
        label = tr(f"exercise.05-pick-cap.case.{case}")
        what = tr("exercise.05.what_pick", case=label)
        got = run_student(answer, summary.copy(), target, what=what)
        expected = smallest_cap(summary, target)
        cap = _checked_cap(got, tr("exercise.05.returned_by", name="pick_cap"))
        if not _same_cap(cap, expected):
            key, want = "exercise.05-pick-cap.mismatch", shown(expected)
            return wrong(tr(key, case=label, target=target, expected=want, got=shown(got)))
    return passed(tr("exercise.05-pick-cap.passed"))


def _checked_cap(value: Any, name: str) -> Any:
    """``value`` checked to be one number, then as a cap: an int when it is integral.

    A Series or an array raises :class:`Judged` (see :func:`_need_scalar`), ``name``
    saying whose value it was; numpy integers and integral floats (5.0) become ints;
    anything else comes back as it is, for the caller to compare."""
    _need_scalar(value, name)
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        if math.isfinite(value) and float(value).is_integer():
            return int(value)
    return value


def _same_cap(got: Any, expected: int | None) -> bool:
    """``got`` (after :func:`_checked_cap`) is the cap ``expected``; never an array's ``==``."""
    if expected is None:
        return got is None
    return isinstance(got, int) and not isinstance(got, bool) and got == expected


def _need_scalar(value: Any, name: str) -> None:
    """Stop the check when ``value`` is a pandas or numpy container, not one number."""
    if type(value).__module__.split(".")[0] not in ("pandas", "numpy"):
        return
    if getattr(value, "ndim", 0) == 0:  # np.int64(5), np.float64(0.5): one number
        return
    size = getattr(value, "size", 0)
    key = "exercise.05.one_element" if size == 1 else "exercise.05.many_elements"
    raise Judged(wrong(tr(key, name=name, kind=type(value).__name__, size=size)))


def robust_cap(summaries, target):
    caps = [pick_cap(summary, target) for summary in summaries]
    if None in caps:
        return None
    return max(caps)  # enough for every sample we have seen


# caps 7, 5 and 6 first reach 0.95 in the first three; the last never does
SEED_LIKE = {
    "a": [0.0, 0.3, 0.6, 0.8, 0.9, 0.9, 0.96, 1.0],
    "b": [0.1, 0.4, 0.7, 0.9, 0.95, 1.0, 1.0, 1.0],
    "c": [0.0, 0.2, 0.5, 0.7, 0.9, 0.95, 1.0, 1.0],
    "never": [0.0, 0.1, 0.3, 0.5, 0.7, 0.8, 0.9, 0.9],
}
ROBUST_CASES = (("a", "b", "c"), ("b", "a"), ("b",), ("b", "never"))


def check_robust_cap(answer: Any) -> Verdict:
    from ..experiments import smallest_cap

    need_callable(answer, "robust_cap")
    for names in ROBUST_CASES:
        summaries = [summary_of(SEED_LIKE[n]) for n in names]
        each = [smallest_cap(s, TARGET) for s in summaries]
        expected = None if None in each else max(each)
        what = tr("exercise.05.what_robust", count=len(names))
        got = run_student(answer, [s.copy() for s in summaries], TARGET, what=what)
        cap = _checked_cap(got, tr("exercise.05.returned_by", name="robust_cap"))
        if not _same_cap(cap, expected):
            caps = ", ".join("—" if c is None else str(c) for c in each)
            key = "exercise.05-robust-cap.mismatch"
            return wrong(tr(key, caps=caps, expected=shown(expected), got=shown(got)))
    return passed(tr("exercise.05-robust-cap.passed"))


# -- 05-predict-seeds and 05-read-sweep --------------------------------------------------

PREDICT_SEEDS = {1: 13, 2: 13, 3: 15}


def prepare_seeds() -> None:
    for seed in PREDICT_SEEDS:
        _longest_runs(seed)


def check_predict_seeds(answer: Any) -> Verdict:
    seeds = list(PREDICT_SEEDS)
    if isinstance(answer, dict):  # "1" names the same seed as 1
        answer = {int(k) if isinstance(k, str) and k.isdigit() else k: v for k, v in answer.items()}
    values = need_prediction(answer, seeds)
    for seed in seeds:
        label = tr("exercise.05.value_of", name=f"prediction_seeds[{seed}]")
        problem = claim_problem(seed, _checked_cap(values[seed], label), TARGET)
        if problem:
            key, fields = problem
            return wrong(tr(key, **fields) + tr("exercise.05-predict-seeds.why"))
    caps = ", ".join(f"{seed}: {values[seed]}" for seed in seeds)
    return passed(tr("exercise.05-predict-seeds.passed", caps=caps))


def read_sweep(summary):
    by_cap = summary.set_index("cap")
    return {
        "completion_at_8": by_cap.loc[8, "completion_rate"],
        "wasted_at_24": by_cap.loc[24, "wasted_steps"],
        "best_cap_95": pick_cap(summary, 0.95),
    }


@functools.cache
def chapter_summary() -> pd.DataFrame:
    """The table the student reads: chapter 05's sweep of seed 0 over caps 1..24, summarized
    (720 runs, about 20 s: made for the reference only, never in a student's check)."""
    from ..experiments import make_population, summarize, sweep

    caps = range(1, WIDEST_CAP + 1)
    return summarize(sweep(make_population(POPULATION, seed=CHAPTER_SEED), caps))


def prepare_reading() -> None:
    _longest_runs(CHAPTER_SEED)
    _results(CHAPTER_SEED, (24,))


def check_read_sweep(answer: Any) -> Verdict:
    from ..experiments import summarize

    reading = need_prediction(answer, ["completion_at_8", "wasted_at_24", "best_cap_95"])
    at_8 = completion_at(CHAPTER_SEED, 8)
    got = reading["completion_at_8"]
    _need_scalar(got, tr("exercise.05.value_of", name="completion_at_8"))
    if not isinstance(got, numbers.Real) or abs(float(got) - at_8) > 0.005:
        return wrong(
            tr("exercise.05-read-sweep.completion", expected=f"{at_8:.3f}", got=shown(got))
        )
    at_24 = int(summarize(_results(CHAPTER_SEED, (24,))).iloc[0]["wasted_steps"])
    wasted = _checked_cap(reading["wasted_at_24"], tr("exercise.05.value_of", name="wasted_at_24"))
    if not _same_cap(wasted, at_24):
        return wrong(
            tr("exercise.05-read-sweep.wasted", expected=at_24, got=shown(reading["wasted_at_24"]))
        )
    best = _checked_cap(reading["best_cap_95"], tr("exercise.05.value_of", name="best_cap_95"))
    problem = claim_problem(CHAPTER_SEED, best, TARGET)
    if problem:
        key, fields = problem
        return wrong(tr(key, **fields))
    return passed(tr("exercise.05-read-sweep.passed"))


EXERCISES = [
    Exercise("05-completion-rate", check_completion_rate, completion_rate, _measure_cases),
    Exercise("05-wasted-steps", check_wasted_steps, wasted_steps, _measure_cases),
    Exercise("05-pick-cap", check_pick_cap, pick_cap),
    Exercise("05-robust-cap", check_robust_cap, robust_cap),
    Exercise("05-predict-seeds", check_predict_seeds, PREDICT_SEEDS, prepare_seeds),
    Exercise("05-read-sweep", check_read_sweep, read_sweep, prepare_reading, chapter_summary),
]
