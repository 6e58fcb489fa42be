"""Chapter 05 exercises: choosing a step cap from data.

The data are real: populations from :func:`agentlab.course.experiments.make_population`
run through the real loop (:func:`~agentlab.course.experiments.run_profile`). To
keep checks quick, a claimed cap is verified where it matters rather than by
a full sweep: "cap A is the smallest that reaches the target" is checked by
the completion of the tasks that could complete at A and at A - 1 (completion only
grows with the cap), using one run per task at the widest cap (see
``_longest_runs``). Runs are cached per process, since the same seed and cap
always give the same rows.

Checks only; reference and wrong answers live in ``solutions.py`` and
``wrong.py``.
"""

from __future__ import annotations

import functools
import math
import numbers
from typing import TYPE_CHECKING, Any

from . import solutions, wrong
from .core import (
    Exercise,
    Judged,
    Verdict,
    is_unfinished,
    need_callable,
    not_done,
    passed,
    run_student,
    shown,
    type_name,
)
from .core import wrong as wrong_verdict
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
    rate = completion_at(seed, cap)
    if rate < target:
        return "exercise.05.cap_too_small", {
            "seed": seed,
            "cap": cap,
            "rate": f"{rate:.1%}",
            "target": f"{target:.0%}",
        }
    if cap > 1 and completion_at(seed, cap - 1) >= target:
        return "exercise.05.cap_not_smallest", {
            "seed": seed,
            "cap": cap,
            "smaller": cap - 1,
            "rate": f"{completion_at(seed, cap - 1):.1%}",
            "target": f"{target:.0%}",
        }
    return None


# -- 05-completion-rate and 05-wasted-steps ------------------------------------------------

COMPLETION_STARTER = '''\
def completion_rate(results, cap):
    """扫描结果 results（每行一次运行）里，上限为 cap 的那些运行的完成率。

    分母只算本来能完成的任务（could_complete 为 True），分子是其中结局为 "completed" 的；
    一个能完成的任务都没有时返回 0.0。
    """
    raise NotImplementedError("在这里写")
'''

WASTED_STARTER = '''\
def wasted_steps(results, cap):
    """上限为 cap 的那些运行里，以 "budget_exhausted" 结束的运行一共用掉了多少步。"""
    raise NotImplementedError("在这里写")
'''

RESULT_CAPS = (3, 6, 9)
RESULT_SIZE = 15  # a smaller population than the chapter's: enough kinds, fewer runs


def _no_able_tasks() -> pd.DataFrame:
    """A hand-made sweep where nothing could complete at cap 3 (only runaways)."""
    import pandas as pd

    rows = [
        {
            "profile": i,
            "kind": "runaway",
            "needed_steps": None,
            "could_complete": False,
            "cap": 3,
            "outcome": "budget_exhausted",
            "stop_reason": "max_steps",
            "steps": 3,
            "model_requests": 3,
            "tokens": 100,
        }
        for i in range(4)
    ]
    return pd.DataFrame(rows)


def _two_of_three() -> pd.DataFrame:
    """A hand-made sweep at cap 4 where 2 of the 3 tasks that could complete did: a rate
    of 2/3, which rounding to 2 decimals does not give (the real sweeps give fifths)."""
    import pandas as pd

    outcomes = [("completed", 3), ("completed", 2), ("budget_exhausted", 4), (None, 4)]
    rows = [
        {
            "profile": i,
            "kind": "runaway" if outcome is None else "honest",
            "needed_steps": None if outcome is None else 3,
            "could_complete": outcome is not None,
            "cap": 4,
            "outcome": outcome or "budget_exhausted",
            "stop_reason": "answered" if outcome == "completed" else "max_steps",
            "steps": steps,
            "model_requests": steps,
            "tokens": 100,
        }
        for i, (outcome, steps) in enumerate(outcomes)
    ]
    return pd.DataFrame(rows)


def _answered_after_error() -> pd.DataFrame:
    """A hand-made sweep at cap 4 the real ones lack: a task that could complete answered
    right after a tool error (stop reason answered, outcome tool_error), and a run whose
    retried request made its model requests outnumber its steps."""
    import pandas as pd

    # (kind, could complete?, outcome, stop reason, steps, model requests)
    runs = [
        ("honest", True, "completed", "answered", 3, 3),
        ("recovers", True, "tool_error", "answered", 2, 2),
        ("honest", True, "budget_exhausted", "max_steps", 4, 5),
        ("runaway", False, "budget_exhausted", "max_steps", 4, 4),
    ]
    rows = [
        {
            "profile": i,
            "kind": kind,
            "needed_steps": 3 if able else None,
            "could_complete": able,
            "cap": 4,
            "outcome": outcome,
            "stop_reason": reason,
            "steps": steps,
            "model_requests": requests,
            "tokens": 100,
        }
        for i, (kind, able, outcome, reason, steps, requests) in enumerate(runs)
    ]
    return pd.DataFrame(rows)


def _measure_cases() -> list[tuple[str, pd.DataFrame, int, pd.Series]]:
    """(case key, results, cap, that cap's row of summarize(results))."""
    from ..experiments import summarize

    real = _results(CHAPTER_SEED, RESULT_CAPS, RESULT_SIZE)
    summary = summarize(real).set_index("cap")
    cases = [("real", real, cap, summary.loc[cap]) for cap in RESULT_CAPS]
    # Runs stopped by the repeat guard ran out of budget before the cap: not cap steps each.
    guarded = _results(CHAPTER_SEED, (9,), RESULT_SIZE, repeat_guard=True)
    cases.append(("guarded", guarded, 9, summarize(guarded).set_index("cap").loc[9]))
    edge = _no_able_tasks()
    cases.append(("only_runaways", edge, 3, summarize(edge).set_index("cap").loc[3]))
    thirds = _two_of_three()
    cases.append(("two_of_three", thirds, 4, summarize(thirds).set_index("cap").loc[4]))
    after_error = _answered_after_error()
    cases.append(
        ("answered_after_error", after_error, 4, summarize(after_error).set_index("cap").loc[4])
    )
    return cases


def _check_measure(answer: Any, name: str, column: str, key: str, passed_key: str) -> Verdict:
    need_callable(answer, name)
    for case, results, cap, row in _measure_cases():
        label = tr(f"exercise.05.case.{case}")
        what = tr("exercise.05.what_measure", name=name, case=label, cap=cap)
        got = run_student(answer, results.copy(), cap, what=what)
        expected = row[column]
        _need_scalar(got, tr("exercise.05.returned_by", name=name))
        if not isinstance(got, numbers.Real) or isinstance(got, bool) or math.isnan(float(got)):
            return wrong_verdict(tr("exercise.05.not_number", name=name, got=shown(got)))
        if abs(float(got) - float(expected)) > 1e-9:
            shown_expected = f"{expected:.3f}" if column == "completion_rate" else int(expected)
            return wrong_verdict(
                tr(key, case=label, cap=cap, expected=shown_expected, got=shown(got))
            )
    return passed(tr(passed_key))


def check_completion_rate(answer: Any) -> Verdict:
    return _check_measure(
        answer,
        "completion_rate",
        "completion_rate",
        "exercise.05-completion-rate.mismatch",
        "exercise.05-completion-rate.passed",
    )


def check_wasted_steps(answer: Any) -> Verdict:
    return _check_measure(
        answer,
        "wasted_steps",
        "wasted_steps",
        "exercise.05-wasted-steps.mismatch",
        "exercise.05-wasted-steps.passed",
    )


# -- 05-pick-cap and 05-robust-cap --------------------------------------------------------

PICK_STARTER = '''\
def pick_cap(summary, target):
    """summary 是 summarize() 的表（每行一个 cap，有 completion_rate 列）。
    返回完成率达到 target（>=）的最小上限；哪个上限都达不到时返回 None。"""
    raise NotImplementedError("在这里写")
'''

ROBUST_STARTER = '''\
def robust_cap(summaries, target):
    """summaries 是一个列表，装着好几张 summarize() 的表（同一个任务生成器、不同的随机种子）。
    返回在每一张表里都能达到 target 的最小上限；只要有一张表达不到，就返回 None。"""
    raise NotImplementedError("在这里写（可以用你的 pick_cap）")
'''


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
        got = run_student(
            answer, summary.copy(), target, what=tr("exercise.05.what_pick", case=label)
        )
        expected = smallest_cap(summary, target)
        cap = _checked_cap(got, tr("exercise.05.returned_by", name="pick_cap"))
        if not _same_cap(cap, expected):
            return wrong_verdict(
                tr(
                    "exercise.05-pick-cap.mismatch",
                    case=label,
                    target=target,
                    expected=shown(expected),
                    got=shown(got),
                )
            )
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
    raise Judged(wrong_verdict(tr(key, name=name, kind=type(value).__name__, size=size)))


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
        got = run_student(
            answer,
            [s.copy() for s in summaries],
            TARGET,
            what=tr("exercise.05.what_robust", count=len(names)),
        )
        cap = _checked_cap(got, tr("exercise.05.returned_by", name="robust_cap"))
        if not _same_cap(cap, expected):
            return wrong_verdict(
                tr(
                    "exercise.05-robust-cap.mismatch",
                    caps=", ".join("—" if c is None else str(c) for c in each),
                    expected=shown(expected),
                    got=shown(got),
                )
            )
    return passed(tr("exercise.05-robust-cap.passed"))


# -- 05-predict-seeds and 05-read-sweep ----------------------------------------------------

SEEDS = (1, 2, 3)

PREDICT_SEEDS_STARTER = """\
# 本章到这里的推荐值来自种子 0：make_population(30, seed=0)，上限 1..24，目标完成率 0.95。
# 换成种子 1、2、3，完成率第一次达到 0.95 的最小上限各是多少？先猜，再跑扫描验证。
prediction_seeds = {
    1: ...,
    2: ...,
    3: ...,
}
"""


def _by_seed(answer: Any, seeds: tuple[int, ...]) -> dict[int, Any]:
    if is_unfinished(answer):
        raise Judged(not_done(tr("exercise.not_done.prediction")))
    if not isinstance(answer, dict):
        raise Judged(wrong_verdict(tr("exercise.need_dict", got=type_name(answer))))
    values = {}
    for seed in seeds:
        if seed in answer:
            values[seed] = answer[seed]
        elif str(seed) in answer:
            values[seed] = answer[str(seed)]
        else:
            raise Judged(wrong_verdict(tr("exercise.predict.missing_keys", keys=seed)))
    unfilled = [str(s) for s, v in values.items() if v is Ellipsis]
    if unfilled:
        raise Judged(not_done(tr("exercise.not_done.fields", fields=tr("list.sep").join(unfilled))))
    return values


def check_predict_seeds(answer: Any) -> Verdict:
    values = _by_seed(answer, SEEDS)
    for seed, cap in values.items():
        label = tr("exercise.05.value_of", name=f"prediction_seeds[{seed}]")
        problem = claim_problem(seed, _checked_cap(cap, label), TARGET)
        if problem:
            key, fields = problem
            return wrong_verdict(tr(key, **fields) + tr("exercise.05-predict-seeds.why"))
    caps = ", ".join(f"{seed}: {values[seed]}" for seed in SEEDS)
    return passed(tr("exercise.05-predict-seeds.passed", caps=caps))


READ_SWEEP_STARTER = """\
# 从本章的扫描结果 summary 里用代码取值（不要手抄），填进来：
reading = {
    "completion_at_8": ...,   # cap == 8 那一行的 completion_rate
    "wasted_at_24": ...,      # cap == 24 那一行的 wasted_steps
    "best_cap_95": ...,       # 完成率第一次达到 0.95 的最小上限
}
"""


def check_read_sweep(answer: Any) -> Verdict:
    from ..experiments import summarize

    fields = ("completion_at_8", "wasted_at_24", "best_cap_95")
    if is_unfinished(answer):
        return not_done(tr("exercise.not_done.prediction"))
    if not isinstance(answer, dict):
        return wrong_verdict(tr("exercise.need_dict", got=type_name(answer)))
    missing = [f for f in fields if f not in answer]
    if missing:
        return wrong_verdict(tr("exercise.predict.missing_keys", keys=tr("list.sep").join(missing)))
    unfilled = [f for f in fields if answer[f] is Ellipsis]
    if unfilled:
        return not_done(tr("exercise.not_done.fields", fields=tr("list.sep").join(unfilled)))

    at_8 = completion_at(CHAPTER_SEED, 8)
    got = answer["completion_at_8"]
    _need_scalar(got, tr("exercise.05.value_of", name="completion_at_8"))
    if not isinstance(got, numbers.Real) or abs(float(got) - at_8) > 0.005:
        return wrong_verdict(
            tr("exercise.05-read-sweep.completion", expected=f"{at_8:.3f}", got=shown(got))
        )
    at_24 = int(summarize(_results(CHAPTER_SEED, (24,))).iloc[0]["wasted_steps"])
    if not _same_cap(
        _checked_cap(answer["wasted_at_24"], tr("exercise.05.value_of", name="wasted_at_24")), at_24
    ):
        return wrong_verdict(
            tr("exercise.05-read-sweep.wasted", expected=at_24, got=shown(answer["wasted_at_24"]))
        )
    problem = claim_problem(
        CHAPTER_SEED,
        _checked_cap(answer["best_cap_95"], tr("exercise.05.value_of", name="best_cap_95")),
        TARGET,
    )
    if problem:
        key, values = problem
        return wrong_verdict(tr(key, **values))
    return passed(tr("exercise.05-read-sweep.passed"))


EXERCISES = [
    Exercise(
        "05-completion-rate",
        "05",
        "code",
        "completion_rate",
        COMPLETION_STARTER,
        check_completion_rate,
        solutions.completion_rate,
        wrong.COMPLETION_RATE,
    ),
    Exercise(
        "05-wasted-steps",
        "05",
        "code",
        "wasted_steps",
        WASTED_STARTER,
        check_wasted_steps,
        solutions.wasted_steps,
        wrong.WASTED_STEPS,
    ),
    Exercise(
        "05-pick-cap",
        "05",
        "code",
        "pick_cap",
        PICK_STARTER,
        check_pick_cap,
        solutions.pick_cap,
        wrong.PICK_CAP,
    ),
    Exercise(
        "05-robust-cap",
        "05",
        "code",
        "robust_cap",
        ROBUST_STARTER,
        check_robust_cap,
        solutions.robust_cap,
        wrong.ROBUST_CAP,
    ),
    Exercise(
        "05-predict-seeds",
        "05",
        "predict",
        "prediction_seeds",
        PREDICT_SEEDS_STARTER,
        check_predict_seeds,
        solutions.PREDICT_SEEDS,
        wrong.PREDICT_SEEDS,
    ),
    Exercise(
        "05-read-sweep",
        "05",
        "read",
        "reading",
        READ_SWEEP_STARTER,
        check_read_sweep,
        solutions.READING,
        wrong.READ_SWEEP,
    ),
]
