"""Chapter 03 exercises: repeated calls, no progress, one deadline, abandoning vs killing.

``03-deadline`` is the core one: the student writes the remaining-time logic of
ONE absolute deadline. It is judged on structure first, with a fake clock (what
does ``left()`` give after 30 ms, 60 ms, 1 s?), so the verdict does not depend
on how busy the machine is; then against a hanging scripted model (``Hang``) and
a hanging tool with real time, with margins of tens of milliseconds that a
correct answer clears by construction.

Each exercise in turn: its reference answer, its named mistakes, its check.
The starter code is in ``units/<id>.toml``.
"""

from __future__ import annotations

import copy
import functools
import json
import numbers
import posixpath
import time
import uuid
from typing import Any

from ... import Budget, run_agent
from ...clients import Conversation, Hang, Reply, ScriptedClient, call
from ...deadline import TimedOut, run_within
from ..faults import HangingTool, fault_tools, keeps_calling, wanders
from .core import (
    WRONG,
    Exercise,
    Judged,
    Verdict,
    need_callable,
    need_prediction,
    passed,
    predict,
    shown,
    type_name,
    wrong,
)
from .running import run_student
from .texts import tr

# -- 03-repeat-key -----------------------------------------------------------------------


def repeat_key(name, arguments_json):
    text = (arguments_json or "").strip()  # None or "": no arguments
    try:
        arguments = json.loads(text) if text else {}
    except json.JSONDecodeError:
        return f"{name}:{text}"  # unusable JSON: its own text is the key
    if isinstance(arguments, dict):  # null, [1] and 5 are valid JSON too, but no object
        for key, value in arguments.items():
            if key.endswith("path") and isinstance(value, str):
                arguments[key] = posixpath.normpath(value)
    canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"))  # nested keys too
    return f"{name}:{canonical}"


# (reason key, call a, call b, must the keys be equal?)
REPEAT_PAIRS = (
    (
        "spaces",
        ("analyze_csv", '{"relative_path": "sales.csv"}'),
        ("analyze_csv", '{ "relative_path":"sales.csv" }'),
        True,
    ),
    (
        "key_order",
        ("write_text", '{"rel_path": "a.md", "text": "x"}'),
        ("write_text", '{"text": "x", "rel_path": "a.md"}'),
        True,
    ),
    (
        "dot_path",
        ("analyze_csv", '{"relative_path": "./sales.csv"}'),
        ("analyze_csv", '{"relative_path": "sales.csv"}'),
        True,
    ),
    (
        "other_file",
        ("analyze_csv", '{"relative_path": "sales.csv"}'),
        ("analyze_csv", '{"relative_path": "sales_2023.csv"}'),
        False,
    ),
    (
        "other_tool",
        ("read_text", '{"rel_path": "a.md"}'),
        ("list_dir", '{"rel_path": "a.md"}'),
        False,
    ),
    (
        "parent_dir",
        ("read_text", '{"rel_path": "../secret.md"}'),
        ("read_text", '{"rel_path": "secret.md"}'),
        False,
    ),
    ("types", ("do_step", '{"n": 1}'), ("do_step", '{"n": "1"}'), False),
    ("case", ("read_text", '{"rel_path": "A.md"}'), ("read_text", '{"rel_path": "a.md"}'), False),
    (
        "nested",
        ("search", '{"filter": {"b": 1, "a": 2}, "limit": 5}'),
        ("search", '{"limit": 5, "filter": {"a": 2, "b": 1}}'),
        True,
    ),
    ("no_arguments", ("list_dir", None), ("list_dir", "{}"), True),
    # valid JSON that is no object: the key must not raise on it
    ("not_object", ("do_step", "[1, 2]"), ("do_step", "[1,2]"), True),
    ("not_object", ("do_step", "null"), ("do_step", " null"), True),
    ("not_object", ("do_step", "5"), ("do_step", "5 "), True),
    (
        "not_a_path",
        ("write_text", '{"rel_path": "a.md", "text": "./x"}'),
        ("write_text", '{"rel_path": "a.md", "text": "x"}'),
        False,
    ),
    # broken JSON: its own text is the key, with the tool's name (not the name alone, not "")
    (
        "broken_tool",
        ("analyze_csv", '{"relative_path": '),
        ("read_text", '{"relative_path": '),
        False,
    ),
    (
        "broken_text",
        ("analyze_csv", '{"relative_path": '),
        ("analyze_csv", '{"relative_path": "sales'),
        False,
    ),
)


def check_repeat_key(answer: Any) -> Verdict:
    need_callable(answer, "repeat_key")

    def key_of(call_: tuple[str, str | None]) -> Any:
        what = tr("exercise.03-repeat-key.what", call=_call(call_))
        try:
            return run_student(answer, *call_, what=what)
        except Judged as judged:
            if not _valid_json_no_object(call_[1]) or judged.verdict.status != WRONG:
                raise
            key = "exercise.03-repeat-key.raised_not_object"
            raise Judged(wrong(tr(key, call=_call(call_), error=judged.verdict.detail))) from None

    key = key_of(("analyze_csv", '{"relative_path": '))
    if not isinstance(key, str):
        return wrong(tr("exercise.03-repeat-key.not_str", got=type_name(key)))
    for reason, a, b, same in REPEAT_PAIRS:
        key_a, key_b = key_of(a), key_of(b)
        if not isinstance(key_a, str) or not isinstance(key_b, str):
            return wrong(tr("exercise.03-repeat-key.not_str", got=type_name(key_a)))
        if (key_a == key_b) != same:
            verdict = "same" if same else "different"
            why = tr(f"exercise.03-repeat-key.reason.{reason}")
            return wrong(
                tr(f"exercise.03-repeat-key.{verdict}", a=_call(a), b=_call(b), reason=why)
            )
    return passed(tr("exercise.03-repeat-key.passed"))


def _call(call_: tuple[str, str | None]) -> str:
    return f"{call_[0]}({call_[1]})"


def _valid_json_no_object(text: str | None) -> bool:
    try:
        return not isinstance(json.loads(text or "{}"), dict)
    except json.JSONDecodeError:
        return False


# -- 03-no-progress ----------------------------------------------------------------------


class NoProgress:
    def __init__(self, limit):
        self.limit = limit
        self.seen = set()  # every fingerprint the run has produced
        self.streak = 0  # steps in a row that brought nothing new

    def after_step(self, fingerprints):
        new = [f for f in fingerprints if f not in self.seen]
        self.seen.update(fingerprints)
        self.streak = 0 if new else self.streak + 1
        return self.streak >= self.limit


# (fingerprints of each step, limit, the step at which it must say stop)
NO_PROGRESS_SEQUENCES = (
    ([["a"], ["b"], ["a"], ["b"], ["a"], ["b"], ["a"]], 4, 6),
    ([["a"], ["a"], ["a"], ["b"], ["b"], ["b"], ["b"], ["b"]], 3, 7),
    ([["a"], ["a"], ["a"], ["a"], ["a"]], 3, 4),
    ([["a", "b"], ["b", "c"], ["c"], ["c"], ["a"]], 2, 4),
    ([["a"], [], [], ["b"], [], []], 2, 3),
    ([[], [], ["a"]], 2, 2),  # nothing new from the very first step
)


def check_no_progress(answer: Any) -> Verdict:
    need_callable(answer, "NoProgress")
    shared = _shared_by_the_class(answer)
    if shared:
        return wrong(tr("exercise.03-no-progress.class_state", name=shared))
    for steps, limit, expected in NO_PROGRESS_SEQUENCES:
        sequence = shown(steps, 120)
        what = tr("exercise.03-no-progress.what", sequence=sequence, limit=limit)
        counter = run_student(answer, limit, what=what)
        if not callable(getattr(counter, "after_step", None)):
            key = "exercise.03-no-progress.not_a_counter"
            return wrong(tr(key, limit=limit, got=type_name(counter)))
        stopped_at = None
        for number, fingerprints in enumerate(steps, start=1):
            stop = run_student(counter.after_step, list(fingerprints), what=what)
            # "continue" is as true as "stop"; numpy's bool is a bool too
            if not isinstance(stop, bool | int) and type(stop).__module__ != "numpy":
                key = "exercise.03-no-progress.not_bool"
                return wrong(tr(key, sequence=sequence, step=number, got=shown(stop)))
            if stop:
                stopped_at = number
                break
        if stopped_at != expected:
            key = "never" if stopped_at is None else "early" if stopped_at < expected else "late"
            return wrong(
                tr(
                    f"exercise.03-no-progress.{key}",
                    sequence=sequence,
                    limit=limit,
                    expected=expected,
                    got=stopped_at,
                )
            )
    return passed(tr("exercise.03-no-progress.passed", count=len(NO_PROGRESS_SEQUENCES)))


def _shared_by_the_class(answer: Any) -> str | None:
    """The name of a list, set or dict kept on the class that ``after_step`` changes: one
    object shared by every counter, so a new counter starts with what others saw.

    Probed with a fingerprint never used before, so the answer is the same however many
    counters the student's class has already made."""
    if not isinstance(answer, type):
        return None
    kept = {
        name: copy.copy(value)
        for name, value in vars(answer).items()
        if isinstance(value, list | set | dict)
    }
    if not kept:
        return None
    what = tr("exercise.03-no-progress.what", sequence="[[…]]", limit=2)
    counter = run_student(answer, 2, what=what)
    if callable(getattr(counter, "after_step", None)):
        run_student(counter.after_step, [f"probe-{uuid.uuid4().hex}"], what=what)
    return next((name for name, before in kept.items() if vars(answer)[name] != before), None)


# -- 03-deadline -------------------------------------------------------------------------


class SharedDeadline:
    def __init__(self, seconds, clock=time.monotonic):
        self.seconds = seconds
        self.clock = clock
        self.at = clock() + seconds  # ONE absolute deadline, set once, at the start

    def left(self):
        return max(0.0, self.at - self.clock())

    def run(self, work, name):
        return run_within(work, self.left(), name)


FAKE_BUDGET_S = 0.1  # the deadline under the fake clock
REAL_BUDGET_S = 0.3  # the deadline the real-time part runs under
MODEL_TAKES_S = 0.05  # the scripted model's delay before it asks for the hanging tool
HANG_S = 0.6  # how long the hanging model and tool would take
# After the model's 50 ms, a shared deadline has at most 250 ms left; a fresh per-phase
# budget has the whole 300 ms. Halfway between, 25 ms from either: no timing luck involved.
# (The 250 ms the model request may take beyond its 50 ms is the margin for a busy machine.)
FRESH_BUDGET_ABOVE_S = REAL_BUDGET_S - MODEL_TAKES_S / 2


class FakeClock:
    """A clock the check moves by hand, counting how often it is read."""

    def __init__(self, now: float) -> None:
        self.now = now
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        return self.now


def check_deadline(answer: Any) -> Verdict:
    need_callable(answer, "SharedDeadline")
    for part in (_check_with_fake_clock, _check_with_real_hangs, _check_run_gives_what_is_left):
        verdict = part(answer)
        if verdict is not None:
            return verdict
    return passed(tr("exercise.03-deadline.passed"))


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _check_with_fake_clock(answer: Any) -> Verdict | None:
    clock = FakeClock(100.0)
    what = tr("exercise.03-deadline.what_fake")
    deadline = run_student(answer, FAKE_BUDGET_S, clock, what=what)
    reads_at_start = clock.reads
    lefts = []
    for now in (100.03, 100.06, 101.0):
        clock.now = now
        lefts.append(run_student(deadline.left, what=what))
    if clock.reads == 0:
        if all(_is_number(v) and v == FAKE_BUDGET_S for v in lefts):  # left() is self.seconds
            return wrong(tr("exercise.03-deadline.full_no_clock", budget=FAKE_BUDGET_S))
        return wrong(tr("exercise.03-deadline.no_clock"))
    if clock.reads == reads_at_start:  # read once, at the start: left() cannot see time pass
        return wrong(tr("exercise.03-deadline.left_no_clock"))
    for value in lefts:
        if not _is_number(value):
            return wrong(tr("exercise.03-deadline.not_number", got=type_name(value)))
    first, second, last = (float(v) for v in lefts)

    def near(a: float, b: float) -> bool:
        return abs(a - b) < 1e-6

    if near(first, FAKE_BUDGET_S) and near(second, FAKE_BUDGET_S):
        return wrong(tr("exercise.03-deadline.per_phase", budget=FAKE_BUDGET_S))
    if near(first, FAKE_BUDGET_S) and near(second, FAKE_BUDGET_S - 0.03):
        return wrong(tr("exercise.03-deadline.lazy_start"))
    if last < 0:
        return wrong(tr("exercise.03-deadline.negative", got=round(last, 6)))
    for after, expected, got in ((0.03, 0.07, first), (0.06, 0.04, second), (1.0, 0.0, last)):
        if not near(got, expected):
            key = "exercise.03-deadline.left"
            return wrong(tr(key, after=after, expected=expected, got=round(got, 6)))
    return None


def _check_run_gives_what_is_left(answer: Any) -> Verdict | None:
    # With 10 ms left, a 30 ms job must time out; given the whole 100 ms it would return,
    # 70 ms early: no timing luck either way.
    clock = FakeClock(100.0)
    what = tr("exercise.03-deadline.what_fake")
    deadline = run_student(answer, FAKE_BUDGET_S, clock, what=what)
    clock.now = 100.0 + FAKE_BUDGET_S - 0.01
    job = functools.partial(time.sleep, 0.03)
    outcome = run_student(_attempt, deadline, job, "tool", what=what)
    if outcome != "timed_out":
        return _not_timed_out(outcome, "exercise.03-deadline.run_not_left", left=0.01, job=0.03)
    # Past the deadline: run() still raises TimedOut, it does not quietly skip the work.
    clock.now = 100.0 + FAKE_BUDGET_S + 1.0
    outcome = run_student(_attempt, deadline, job, "tool", what=what)
    if outcome == "other_timeout":
        return wrong(tr("exercise.03-deadline.other_timeout"))
    if outcome == "returned":  # e.g. run_within(work, self.left() or None): no limit at 0 s
        return wrong(tr("exercise.03-deadline.none_left_ran"))
    if outcome != "timed_out":
        return wrong(tr("exercise.03-deadline.none_left_skipped"))
    return None


def _attempt(deadline: Any, work: Any, name: str) -> str:
    """Run ``deadline.run(work, name)``: "returned", "timed_out", "other_timeout" (a
    TimeoutError that is not TimedOut), or "swallowed" (run() returned, yet the work had
    not finished: a TimedOut was caught and dropped, or the work skipped)."""
    finished: list[bool] = []

    def tracked() -> Any:
        value = work()
        finished.append(True)
        return value

    try:
        deadline.run(tracked, name)
    except TimedOut:
        return "timed_out"
    except TimeoutError:  # concurrent.futures' or asyncio's: not what the loop catches
        return "other_timeout"
    return "returned" if finished else "swallowed"


def _not_timed_out(outcome: str, key: str, **fields: Any) -> Verdict:
    """The verdict for a run() that should have raised TimedOut and did not."""
    if outcome == "other_timeout":
        return wrong(tr("exercise.03-deadline.other_timeout"))
    if outcome == "swallowed":
        return wrong(tr("exercise.03-deadline.swallowed"))
    return wrong(tr(key, **fields))


def _check_with_real_hangs(answer: Any) -> Verdict | None:
    # A model that takes 50 ms, then asks for a tool that hangs: one 300 ms deadline.
    what = tr("exercise.03-deadline.what_real")
    deadline = run_student(answer, REAL_BUDGET_S, what=what)
    model = ScriptedClient([Hang(MODEL_TAKES_S, then=call("hang"))])
    decided = run_student(_attempt, deadline, lambda: _ask(model), "decide", what=what)
    if decided != "returned":
        return wrong(tr("exercise.03-deadline.decide_cut"))
    left = run_student(deadline.left, what=what)
    if not isinstance(left, numbers.Real) or left > FRESH_BUDGET_ABOVE_S:
        key = "exercise.03-deadline.per_phase_real"
        return wrong(tr(key, budget=REAL_BUDGET_S, model=MODEL_TAKES_S))
    tool = HangingTool(HANG_S)
    outcome = run_student(_attempt, deadline, tool, "tool", what=what)
    if outcome != "timed_out":
        return _not_timed_out(outcome, "exercise.03-deadline.tool_waited", hang=HANG_S)
    # A model that hangs: the decide phase must give up at the deadline.
    deadline = run_student(answer, MODEL_TAKES_S, what=what)
    silent = ScriptedClient([Hang(HANG_S)])
    outcome = run_student(_attempt, deadline, lambda: _ask(silent), "decide", what=what)
    if outcome != "timed_out":
        return _not_timed_out(outcome, "exercise.03-deadline.model_waited", hang=HANG_S)
    return None


def _ask(client: ScriptedClient) -> Any:
    return client.chat.completions.create(
        model="agentlab-scripted", messages=[{"role": "user", "content": "等构建结果"}]
    )


# -- predict, then run -------------------------------------------------------------------


def _refused(run: Any) -> list[int]:
    """The steps whose call was refused as a repeat (REPEATED_CALL), in order."""
    codes = [(r["step"], (r["result"].get("error") or {}).get("code")) for r in run.tool_results]
    return [step for step, code in codes if code == "REPEATED_CALL"]


def alternate_jobs(conversation: Conversation) -> Reply:
    """Polls job "a", then "b", then "a" ... never answering."""
    return call("same_result", job="a" if conversation.request_number % 2 else "b")


PREDICT_ALTERNATE = {"stop_reason": "no_progress", "steps": 6, "repeated_call_refusals": 2}


def check_predict_alternate(answer: Any) -> Verdict:
    need_prediction(answer, list(PREDICT_ALTERNATE))
    client, budget = ScriptedClient(alternate_jobs), Budget.seed_table()
    run = run_agent(
        "等两个构建跑完", client=client, tools=fault_tools()[0], budget=budget, trace_dir=False
    )
    actual = {
        "stop_reason": run.stop_reason,
        "steps": run.steps,
        "repeated_call_refusals": len(_refused(run)),
    }
    return predict("03-predict-alternate", answer, actual)


PREDICT_NO_PROGRESS = {"stop_reason": "no_progress", "steps": 3, "tool_errors": 3}


def check_predict_no_progress(answer: Any) -> Verdict:
    need_prediction(answer, list(PREDICT_NO_PROGRESS))
    client = ScriptedClient(wanders("always_fails", "mirror"))
    budget = Budget.seed_table(max_no_progress=2)
    run = run_agent(
        "取回报表", client=client, tools=fault_tools()[0], budget=budget, trace_dir=False
    )
    actual = {"stop_reason": run.stop_reason, "steps": run.steps, "tool_errors": run.tool_errors}
    return predict("03-predict-no-progress", answer, actual)


PREDICT_THRESHOLD = {"stop_reason": "repeat_call", "steps": 4, "refused_at_step": 3}


def check_predict_threshold(answer: Any) -> Verdict:
    need_prediction(answer, list(PREDICT_THRESHOLD))
    client = ScriptedClient(keeps_calling("same_result", {"job": "nightly"}))
    budget = Budget.seed_table()
    run = run_agent(
        "等夜间构建跑完", client=client, tools=fault_tools()[0], budget=budget, trace_dir=False
    )
    refused = _refused(run)
    actual = {
        "stop_reason": run.stop_reason,
        "steps": run.steps,
        "refused_at_step": refused[0] if refused else None,
    }
    return predict("03-predict-threshold", answer, actual)


PREDICT_ABANDON = {
    "stop_reason": "deadline",
    "phase": "tool",
    "in_process_code": "TOOL_ABANDONED",
    "in_process_still_running": True,
    "isolated_code": "TOOL_KILLED",
    "isolated_exitcode": -9,
}


@functools.lru_cache(maxsize=1)
def abandon_runs() -> tuple[tuple[str, Any], ...]:
    """Both hanging-tool runs, once per process: each waits out its budget of 1 s (long
    enough for the scripted model's reply on a busy machine, so the deadline always
    falls in the tool phase; the isolated one may start the fork server first,
    ``isolation.py``), and what they show does not change between calls."""
    faults, hanging = fault_tools(hang_seconds=3.0)
    in_process = run_agent(
        "x",
        client=ScriptedClient([call("hang")]),
        tools=faults,
        budget=Budget(max_seconds=1.0),
        trace_dir=False,
    )
    # the tool thread may start late on a busy machine; it runs for 3 s once started
    still_running = hanging.started.wait(1.0) and not hanging.finished.is_set()
    isolated = run_agent(
        "x",
        client=ScriptedClient([call("hang_isolated")]),
        tools=faults,
        budget=Budget(max_seconds=1.0),
        trace_dir=False,
    )
    record = isolated.tool_results[-1]
    return (
        ("stop_reason", in_process.stop_reason),
        ("phase", in_process.phase),
        ("in_process_code", in_process.tool_results[-1]["result"]["error"]["code"]),
        ("in_process_still_running", still_running),
        ("isolated_code", record["result"]["error"]["code"]),
        ("isolated_exitcode", (record["process"] or {}).get("exitcode")),
    )


def check_predict_abandon(answer: Any) -> Verdict:
    need_prediction(answer, list(PREDICT_ABANDON))
    return predict("03-predict-abandon", answer, dict(abandon_runs()))


EXERCISES = [
    Exercise("03-repeat-key", check_repeat_key, repeat_key),
    Exercise("03-no-progress", check_no_progress, NoProgress),
    Exercise("03-deadline", check_deadline, SharedDeadline),
    Exercise("03-predict-alternate", check_predict_alternate, PREDICT_ALTERNATE),
    Exercise("03-predict-no-progress", check_predict_no_progress, PREDICT_NO_PROGRESS),
    Exercise("03-predict-threshold", check_predict_threshold, PREDICT_THRESHOLD),
    Exercise("03-predict-abandon", check_predict_abandon, PREDICT_ABANDON),
]
