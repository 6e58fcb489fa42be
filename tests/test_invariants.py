"""The course's promise, checked on generated runs: the loop always stops,
honestly, and keeps everything.

Hypothesis generates scripted models (tool calls known and unknown, broken
JSON, repeats, parallel calls, answers, empty and ``null`` content, HTTP
429/500/401, hangs, cut-off replies), streamed or not, under random budgets.
For every run:

- ``run_agent`` returns a ``RunResult`` (it never raises);
- model requests <= ``max_steps * (1 + max_retries)``;
- elapsed <= deadline + 50 ms, when there is a deadline;
- the stop reason and the outcome (and the run status) agree;
- every ``role: tool`` message answers exactly one earlier call, and is no
  longer than ``max_tool_output_chars``;
- the trace file is complete: ``start`` ... ``stop``, one ``decide`` event
  per model request and one ``tool`` event per tool result.

``make test`` checks ``AGENTLAB_SOAK_EXAMPLES`` (default 150) runs;
``make soak`` checks 10 000 and prints the count.
"""

from __future__ import annotations

import gc
import os
import tempfile
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentlab import OUTCOMES, STOP_REASONS, Budget, RunResult, run_agent
from agentlab.clients import Hang, HttpError, Reply, ScriptedClient, ToolCall
from agentlab.loop.result import ENDINGS
from agentlab.loop.trace import read_trace
from agentlab.tools import Tool, ToolRegistry, ok
from agentlab.tools.registry import error

from .conftest import assert_well_formed

EXAMPLES = int(os.environ.get("AGENTLAB_SOAK_EXAMPLES", "150"))
DEADLINE_SLACK_S = 0.05
TRACES = tempfile.mkdtemp(prefix="agentlab-invariants-")


def nap(seconds: float) -> dict:
    time.sleep(seconds)
    return ok({"slept": seconds})


def echo(text: str) -> dict:
    return ok({"echo": text})


def deny() -> dict:
    return error("PERMISSION_DENIED", "not allowed here")


def flaky(n: int) -> dict:
    return ok({"n": n}) if n % 2 else error("UNAVAILABLE", "try later")


def schema(**properties: str) -> dict:
    return {
        "type": "object",
        "properties": {k: {"type": v} for k, v in properties.items()},
        "required": list(properties),
    }


TOOLS = ToolRegistry(
    [
        Tool("echo", "Echo text.", schema(text="string"), echo),
        Tool("nap", "Sleep a little.", schema(seconds="number"), nap),
        Tool("deny", "Always refused.", schema(), deny),
        Tool("flaky", "Fails on even n.", schema(n="integer"), flaky),
    ]
)

# -- what the scripted model may say ------------------------------------------------------

tool_calls = st.one_of(
    st.builds(lambda t: ToolCall("echo", {"text": t}), st.sampled_from(["a", "b", "数据"])),
    st.builds(lambda s: ToolCall("nap", {"seconds": s}), st.sampled_from([0.0, 0.01, 0.03])),
    st.just(ToolCall("deny", {})),
    st.builds(lambda n: ToolCall("flaky", {"n": n}), st.integers(0, 3)),
    st.just(ToolCall("no_such_tool", {})),
    st.sampled_from([ToolCall("echo", '{"text": '), ToolCall("echo", "[1]"), ToolCall("echo", "")]),
    st.just(ToolCall("echo", {"text": "a", "extra": 1})),
)
answers = st.one_of(
    st.builds(Reply, content=st.sampled_from(["done", "完成", "", None])),
    st.just(Reply(content="the answer is", finish_reason="length")),
)
calls = st.builds(
    lambda cs, text, cut: Reply(
        content=text, tool_calls=tuple(cs), finish_reason="length" if cut else None
    ),
    st.lists(tool_calls, min_size=1, max_size=3),
    st.sampled_from([None, "", "let me check"]),
    st.booleans(),
)
replies = st.one_of(calls, calls, answers)  # tool calls twice as likely as answers
turns = st.one_of(
    replies,
    replies,
    replies,
    st.builds(HttpError, st.sampled_from([429, 500, 503, 401, 400])),
    st.builds(Hang, st.sampled_from([0.01, 0.05, 0.12]), replies),
)
budgets = st.builds(
    Budget,
    max_steps=st.integers(1, 8),
    max_seconds=st.sampled_from([None, None, 0.05, 0.15, 0.4]),
    max_repeats=st.sampled_from([None, 2, 3]),
    repeat_hint_at=st.sampled_from([None, 2]),
    max_no_progress=st.sampled_from([None, 1, 3]),
    max_tool_calls_per_turn=st.sampled_from([None, 1, 2]),
    max_tool_output_chars=st.sampled_from([None, 8000, 200]),
    max_tokens=st.sampled_from([None, 400, 5000]),
    max_retries=st.integers(0, 2),
    retry_backoff_s=st.sampled_from([0.0, 0.005]),
    wrap_up=st.booleans(),
)
scenarios = st.fixed_dictionaries(
    {
        "turns": st.one_of(
            st.lists(turns, min_size=1, max_size=10),
            st.builds(lambda t, n: [t] * n, calls, st.integers(2, 8)),  # one call, repeated
        ),
        "budget": budgets,
        "stream": st.booleans(),
        "permission_errors": st.sampled_from(["stop", "feed_back"]),
        "fold_after_steps": st.sampled_from([None, None, 2]),
    }
)

# -- the promises --------------------------------------------------------------------------


def check(result: RunResult, budget: Budget, elapsed: float, folded: bool) -> None:
    assert isinstance(result, RunResult)
    assert result.stop_reason in STOP_REASONS and result.outcome in OUTCOMES
    allowed = {ENDINGS[result.stop_reason]}
    if result.stop_reason == "answered":  # an answer right after a failed tool call
        allowed.add("tool_error")
    assert result.outcome in allowed, (result.stop_reason, result.outcome)
    assert (result.status == "completed") == (result.outcome == "completed")
    if result.stop_reason == "answered":
        assert result.answer is not None and result.partial_answer is None
    else:
        assert result.warnings, "a run that did not answer says why"
    if result.partial_answer is not None:  # the wrap-up: a budget ran out, marked as such
        assert budget.wrap_up and result.answer is None
        assert result.stop_reason in ("max_steps", "deadline", "max_tokens")
        assert result.outcome == "budget_exhausted" and result.status == "failed"

    assert result.steps <= budget.max_steps
    assert result.model_requests <= budget.max_steps * (1 + budget.max_retries)
    if budget.max_seconds is not None:
        assert elapsed <= budget.max_seconds + DEADLINE_SLACK_S, elapsed

    assert_well_formed(result.messages)
    tool_messages = [m for m in result.messages if m["role"] == "tool"]
    assert len(tool_messages) == len(result.tool_results)
    if budget.max_tool_output_chars:  # what the model receives is bounded
        assert all(len(m["content"]) <= budget.max_tool_output_chars for m in tool_messages)
    if not folded:  # what the model was told is what the record says it was told
        for message, record in zip(tool_messages, result.tool_results, strict=True):
            assert message["tool_call_id"] == record["call_id"]

    events = read_trace(result.trace_path)
    assert events[0]["event"] == "start" and events[-1]["event"] == "stop"
    assert events[-1]["stop_reason"] == result.stop_reason
    phases = [e["phase"] for e in events if e["event"] == "phase"]
    assert phases.count("decide") == result.model_requests
    assert phases.count("tool") == len(result.tool_results)


def test_every_generated_run_keeps_the_promises():
    checked = []

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(scenarios)
    def one_run(scenario: dict) -> None:
        client = ScriptedClient(scenario["turns"])
        budget = scenario["budget"]
        # A full garbage collection of this long-lived test process can pause
        # every thread for up to ~0.4 s (measured with gc.callbacks over 3 000
        # runs); no loop can pre-empt that, so the collector waits between runs.
        gc.disable()
        started = time.monotonic()
        try:
            result = run_agent(
                "use the tools, then answer",
                client=client,
                tools=TOOLS,
                budget=budget,
                stream=scenario["stream"],
                on_text=None,
                permission_errors=scenario["permission_errors"],
                fold_after_steps=scenario["fold_after_steps"],
                trace_dir=TRACES,
            )
            elapsed = time.monotonic() - started
        finally:
            gc.enable()
            client.close()
        check(result, budget, elapsed, bool(scenario["fold_after_steps"]))
        checked.append(result.stop_reason)

    one_run()
    reasons = {r: checked.count(r) for r in sorted(set(checked))}
    print(f"\n{len(checked)} generated runs checked, no violation; stop reasons: {reasons}")
    assert len(checked) >= EXAMPLES * 0.9  # hypothesis really ran them
    assert len(reasons) >= 5  # and the generator reaches many endings
