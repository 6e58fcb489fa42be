"""Gathering one run for the display (``agentlab.course.run_view``).

A ``RunResult`` and its JSONL trace give the same :class:`RunView` for every
scenario the chapters show (``tests/display_scenarios.py``), except what only
the result knows. A trace file left by another run is not used; a result
without events, an older trace and a broken one give what they have and mark
what they lack. How a view is drawn is tested in ``test_display.py``.
"""

from __future__ import annotations

import copy
import dataclasses
import json

import pytest

from agentlab import Budget, run_agent
from agentlab.clients import ScriptedClient, call, say
from agentlab.course.run_view import RunView, events_of, view_of_events, view_of_result
from agentlab.loop.trace import read_trace
from agentlab.tools import Tool, ToolRegistry, ok, sales_tools

from ..display_scenarios import ALL as SCENARIOS


def skeleton(view: RunView) -> list[tuple]:
    """Per step: each call's (tool, kind, code), each check's status, failed attempts."""
    return [
        (
            step.number,
            [(c.name, c.kind, c.code) for c in step.calls],
            [check.get("status") for check in step.checks],
            [failure.get("status") for failure in step.failures],
        )
        for step in view.steps
    ]


# What only the result knows: its own clock, the system prompt it was sent
# with, and the child process a call ran in.
ONLY_IN_THE_RESULT = {"elapsed_s": None, "end_s": None, "system_prompt": None}


@pytest.mark.parametrize("name", SCENARIOS)
def test_a_trace_gives_the_view_its_run_gives(runs, name):
    result = runs[name]
    views = [view_of_result(result), view_of_events(read_trace(result.trace_path))]
    for view in views:
        for step in view.steps:
            step.calls = [dataclasses.replace(c, process=None) for c in step.calls]
    from_result, from_trace = (dataclasses.replace(v, **ONLY_IN_THE_RESULT) for v in views)
    assert from_trace == from_result
    assert views[1].elapsed_s == pytest.approx(result.elapsed_s, abs=1e-4)


def test_a_trace_from_another_run_with_the_same_id_is_not_used(runs, tmp_path):
    result = copy.copy(runs["loop"])
    result.events = None  # so the trace file is read
    trace = tmp_path / "trace.jsonl"
    events = read_trace(runs["capped"].trace_path)  # a different run
    trace.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    result.trace_path = str(trace)
    assert events_of(result) == [] and view_of_result(result).spans == []
    result.trace_path = runs["loop"].trace_path  # its own trace is used
    assert events_of(result) == read_trace(runs["loop"].trace_path)


def test_a_result_without_events_still_has_its_conversation():
    client = ScriptedClient([call("always", x=1), say("好了")])
    tools = ToolRegistry([Tool("always", "x", {"properties": {"x": {}}}, lambda x: ok(x))])
    result = run_agent("任务", client=client, tools=tools, trace_dir=False, task_id="no-trace")
    result.events = None  # as a RunResult from before the core kept its events
    view = view_of_result(result)
    assert view.spans == [] and view.task == "任务" and view.answer == "好了"
    assert skeleton(view) == [(1, [("always", "ok", None)], [], []), (2, [], [], [])]
    assert json.loads(view.steps[0].calls[0].content)["data"] == 1


OLDER_FIELDS = ("t", "call_id", "content", "reasoning", "answer", "partial_answer", "refused_by")


@pytest.mark.parametrize("name", ["repeat", "huge", "done-when", "sales-ok"])
def test_an_older_trace_gives_what_it_has_and_marks_what_it_lacks(runs, name):
    """Traces written before the core recorded contents (no t, ids, contents, answer)."""
    result = runs[name]
    older = [{k: v for k, v in e.items() if k not in OLDER_FIELDS} for e in result.events]
    for event in older:
        if event.get("phase") == "decide" and event.get("calls"):
            event["calls"] = [c["name"] for c in event["calls"]]  # names only, back then
    view = view_of_events(older)
    assert skeleton(view) == skeleton(view_of_result(result))
    assert all(c.content is None for step in view.steps for c in step.calls)
    assert view.answer is None and not view.answer_recorded and view.finished
    assert [s.step for s in view.spans] == [s.step for s in view_of_result(result).spans]


def test_a_broken_or_unfinished_trace_gives_what_it_has():
    events = [
        {"event": "start", "task": "半截", "budget": {"max_seconds": 1}},
        {"event": "phase", "phase": "decide", "step": 1, "status": "ok", "calls": ["x"]},
        {"event": "phase", "phase": "tool", "step": 1, "tool": "x", "status": "error"},
        "not an event",
        {"event": "warning", "step": 1, "message": "<b>careful</b>"},
    ]
    view = view_of_events(events)  # type: ignore[arg-type]
    assert not view.finished and view.task == "半截" and view.max_seconds == 1
    assert skeleton(view) == [(1, [("x", "error", None)], [], [])]
    assert view.steps[0].warnings == ["<b>careful</b>"]  # as written: the display escapes it
    assert view.counts["tool_errors"] == 1 and view.counts["steps"] == 1
    empty = view_of_events([])
    assert (empty.steps, empty.spans, empty.finished) == ([], [], False)


def test_the_budget_deadline_in_the_start_event_reaches_the_view(tmp_path):
    result = run_agent(
        "x",
        client=ScriptedClient([say("好")]),
        tools=sales_tools(),
        budget=Budget(max_seconds=30),
        trace_dir=tmp_path,
        task_id="far",
    )
    assert view_of_result(result).max_seconds == 30
    assert view_of_events(read_trace(result.trace_path)).max_seconds == 30


@pytest.mark.parametrize("name", ["repeat", "strict"])
def test_a_trace_without_ran_counts_refused_and_unrun_calls_apart(runs, name):
    """Traces written before ``ran`` was recorded: a refused call (it has ``refused_by``)
    and a NOT_RUN one still count apart from the tool calls and the tool errors."""
    result = runs[name]
    older = [{k: v for k, v in e.items() if k != "ran"} for e in result.events]
    counts = view_of_events(older).counts
    assert counts == view_of_result(result).counts
    assert counts["calls_not_run"] == result.calls_not_run > 0
    assert (counts["tool_calls"], counts["tool_errors"]) == (result.tool_calls, result.tool_errors)
