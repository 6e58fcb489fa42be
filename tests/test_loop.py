"""run_agent: the three outcomes, the cap, the history, and endings that never raise."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import httpx2
import pytest

from agentlab import DEMO_MAX_STEPS as MAX_STEPS
from agentlab import Budget, run_agent
from agentlab.clients import HttpError, Reply, ScriptedClient, ToolCall, call, say, scripted
from agentlab.i18n import tr
from agentlab.tools import Tool, ToolRegistry, ok, sales_tools

from .conftest import SEED_QUESTION, plain_client, write_csv


def run(client, data_dir=None, task=SEED_QUESTION, max_steps=MAX_STEPS, **options):
    limits = {"max_tool_output_chars": options.pop("max_tool_output_chars", 8000)}
    budget = Budget(max_steps, **limits)
    return run_agent(task, client=client, tools=sales_tools(data_dir), budget=budget, **options)


def test_honest_analyst_completes_with_the_numbers_the_tool_returned():
    result = run(scripted("honest_analyst"))
    assert (result.status, result.outcome, result.stop_reason) == (
        "completed",
        "completed",
        "answered",
    )
    assert (result.steps, result.model_requests, result.tool_calls, result.tool_errors) == (
        2,
        2,
        1,
        0,
    )
    assert "显示器" in result.answer and "4495" in result.answer and "9692" in result.answer
    assert result.warnings == []


def test_the_answer_follows_the_csv(data_dir):
    write_csv(data_dir, "sales.csv", "category,quantity,unit_price\n键盘,100,199\n鼠标,1,79\n")
    result = run(scripted("honest_analyst"), data_dir)
    assert result.outcome == "completed"
    assert "键盘，为 19900" in result.answer
    assert "19979" in result.answer
    assert "4495" not in result.answer


@pytest.mark.parametrize("limit", [200, 400])
def test_a_cut_off_result_is_said_to_be_cut_not_blamed_on_the_model(data_dir, limit):
    rows = "".join(f"类别{i},{i % 5 + 1},{10 + i}\n" for i in range(40))
    write_csv(data_dir, "sales.csv", "category,quantity,unit_price\n" + rows)
    result = run(scripted("honest_analyst"), data_dir, max_tool_output_chars=limit)
    assert result.stop_reason == "answered", result.warnings
    assert "截断" in result.answer and "row_count = 40" in result.answer  # what it did see
    seen = result.messages[-2]["content"]  # the cut tool result, as the model received it
    assert all(number in seen for number in re.findall(r"\d{3,}", result.answer))


def test_missing_file_is_a_tool_error_without_numbers():
    result = run(scripted("honest_analyst"), task="分析 data/input/missing.csv 的销售额")
    assert (result.status, result.outcome, result.stop_reason) == (
        "failed",
        "tool_error",
        "answered",
    )
    assert "FILE_NOT_FOUND" in result.answer
    assert not any(n in result.answer for n in ("4495", "9692", "2985"))
    assert any("FILE_NOT_FOUND" in w for w in result.warnings)


@pytest.mark.parametrize("cap", [1, 2, MAX_STEPS, 7])
def test_never_stopping_model_makes_exactly_max_steps_requests(cap):
    client = scripted("never_stops")
    result = run(client, max_steps=cap)
    assert len(client.requests) == cap
    assert (result.status, result.outcome, result.stop_reason) == (
        "failed",
        "budget_exhausted",
        "max_steps",
    )
    assert result.steps == result.model_requests == result.tool_calls == cap
    assert result.answer is None
    assert f"max_steps={cap}" in result.warnings[0]


def test_a_stub_that_always_calls_a_tool_cannot_pass_the_cap():
    """The seed's unit test: a stub whose every reply is a well-formed tool call."""
    stub = ScriptedClient([call("analyze_csv", relative_path="sales.csv")] * 50)
    result = run(stub)
    assert len(stub.requests) == MAX_STEPS
    assert result.status == "failed"


def test_every_tool_message_answers_its_call_id():
    two_calls = Reply(
        tool_calls=(
            ToolCall("analyze_csv", {"relative_path": "sales.csv"}),
            ToolCall("analyze_csv", {"relative_path": "nope.csv"}),
        )
    )
    client = ScriptedClient([two_calls, say("done")])
    result = run(client)
    assistant = result.messages[2]
    assert assistant["role"] == "assistant"
    ids = [tc["id"] for tc in assistant["tool_calls"]]
    tool_messages = result.messages[3:5]
    assert [m["tool_call_id"] for m in tool_messages] == ids
    assert [json.loads(m["content"])["status"] for m in tool_messages] == ["ok", "error"]
    # The second request carried the whole history back to the model.
    assert client.requests[1].messages == result.messages[:5]
    # One of two parallel calls failed just before the answer: not completed.
    assert result.outcome == "tool_error"
    assert result.steps == 2 and result.tool_calls == 2


def test_a_tool_error_the_model_recovers_from_still_completes():
    client = ScriptedClient(
        [
            call("analyze_csv", relative_path="nope.csv"),
            call("analyze_csv", relative_path="sales.csv"),
            say("显示器 4495"),
        ]
    )
    result = run(client)
    assert result.outcome == "completed"
    assert result.tool_errors == 1


@pytest.mark.parametrize(
    "turn, code",
    [
        (Reply(tool_calls=(ToolCall("analyze_csv", '{"relative_path": '),)), "INVALID_ARGUMENTS"),
        (call("delete_everything"), "UNKNOWN_TOOL"),
        (call("analyze_csv", relative_path="../../etc/passwd"), "PATH_NOT_ALLOWED"),
    ],
)
def test_bad_calls_are_fed_back_not_raised(turn, code):
    client = ScriptedClient([turn, say("对不起，调用失败了")])
    result = run(client, permission_errors="feed_back")
    assert result.tool_results[0]["result"]["error"]["code"] == code
    assert client.requests[1].messages[-1]["role"] == "tool"
    assert code in client.requests[1].messages[-1]["content"]
    assert result.outcome == "tool_error"


def test_model_error_keeps_the_history():
    client = ScriptedClient(
        [call("analyze_csv", relative_path="sales.csv"), HttpError(500, "boom")]
    )
    result = run(client)
    assert (result.status, result.outcome, result.stop_reason) == (
        "failed",
        "model_error",
        "model_error",
    )
    assert result.model_requests == 2 and result.tool_calls == 1
    assert [m["role"] for m in result.messages] == ["system", "user", "assistant", "tool"]
    assert "HTTP 500" in result.warnings[-1] and "boom" in result.warnings[-1]


def test_unreachable_service_is_a_model_error():
    def refuse(request):
        raise httpx2.ConnectError("connection refused")

    result = run(plain_client(refuse))
    assert result.outcome == "model_error"
    assert result.messages[-1]["role"] == "user"


@pytest.mark.parametrize("task", ["", "   \n", None])
def test_empty_task_fails_at_once_without_a_request(task):
    client = scripted("honest_analyst")
    result = run(client, task=task)
    assert result.status == "failed"
    assert result.stop_reason == "invalid_task"
    assert client.requests == []
    assert result.warnings


@pytest.mark.parametrize("text", ["", "  \n"])
def test_an_empty_reply_ends_the_run_with_a_warning_saying_so(text):
    result = run(ScriptedClient([say(text)]), trace_dir=False)
    assert (result.outcome, result.answer) == ("completed", "")
    assert tr("loop.empty_answer") in result.warnings


def test_a_real_answer_carries_no_empty_reply_warning():
    result = run(ScriptedClient([say("没有数据")]), trace_dir=False)
    assert tr("loop.empty_answer") not in result.warnings


def test_to_dict_has_the_seed_shape():
    result = run_agent(
        SEED_QUESTION,
        client=scripted("honest_analyst"),
        tools=sales_tools(),
        budget=Budget(MAX_STEPS),
        task_id="demo-1",
    )
    d = result.to_dict()
    assert list(d)[:5] == ["task_id", "status", "report_path", "summary", "warnings"]
    assert d["task_id"] == "demo-1" and d["report_path"] is None
    assert d["outcome"] == "completed" and d["stop_reason"] == "answered"
    assert d["summary"]["tool_calls_used"] == 1
    assert d["summary"]["tool_results"][0]["result"]["data"]["total_revenue"] == 9692
    json.dumps(d, ensure_ascii=False)  # serialisable as it is


def test_tokens_add_up_the_usage_of_every_reply():
    client = scripted("never_stops")
    result = run(client, max_steps=3)
    assert result.tokens > 0
    # Every request's prompt includes the whole (growing) history.
    assert result.tokens >= 3 * len(json.dumps(result.messages[:2], ensure_ascii=False)) // 4


def test_works_with_any_openai_client_not_only_scripted_ones():
    """A hand-made service that answers like a real provider: extra fields,
    an empty-string content beside tool calls, and no usage block."""
    replies = iter(
        [
            {
                "id": "x1",
                "object": "chat.completion",
                "created": 1,
                "model": "real",
                "system_fingerprint": "fp",
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "tool_calls",
                        "logprobs": None,
                        "message": {
                            "role": "assistant",
                            "content": "",
                            "tool_calls": [
                                {
                                    "id": "call_abc",
                                    "type": "function",
                                    "function": {
                                        "name": "analyze_csv",
                                        "arguments": '{"relative_path":"sales.csv"}',
                                    },
                                }
                            ],
                        },
                    }
                ],
            },
            {
                "id": "x2",
                "object": "chat.completion",
                "created": 2,
                "model": "real",
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": "显示器最高。"},
                    }
                ],
            },
        ]
    )
    client = plain_client(lambda request: httpx2.Response(200, json=next(replies)))
    result = run(client)
    assert result.outcome == "completed"
    assert result.answer == "显示器最高。"
    assert result.messages[3]["tool_call_id"] == "call_abc"
    assert result.tokens == 0 and tr("model.no_usage") in result.warnings


@pytest.mark.parametrize(
    "limits",
    [
        {"max_steps": 0},
        {"max_steps": True},
        {"max_steps": 2.5},
        {"max_seconds": float("nan")},
        {"max_seconds": float("inf")},
        {"max_seconds": 0},
        {"max_repeats": 0},
        {"max_repeats": 1},  # the 1st call repeats nothing: it would stop every run at once
        {"repeat_hint_at": 1},
        {"max_no_progress": False},
        {"max_tokens": -1},
        {"max_tool_output_chars": 10},
        {"max_retries": -1},
        {"retry_backoff_s": float("nan")},
        {"wrap_up": "yes"},
    ],
)
def test_budget_rejects_nonsense(limits):
    [(name, value)] = limits.items()
    with pytest.raises(ValueError, match=name) as refused:
        Budget(**limits)
    assert repr(value) in str(refused.value)


def test_budget_accepts_every_limit_switched_off_or_at_its_least():
    Budget(max_seconds=None, max_tool_output_chars=None, max_retries=0, retry_backoff_s=0)
    Budget(
        max_steps=1, max_seconds=0.5, max_repeats=2, repeat_hint_at=2, max_tokens=1, wrap_up=True
    )


@pytest.mark.parametrize("value", [0, -2, True, 1.5])
def test_fold_after_steps_must_be_a_count(value):
    with pytest.raises(ValueError, match="fold_after_steps"):
        run_agent(
            "x", client=scripted("honest_analyst"), tools=sales_tools(), fold_after_steps=value
        )


def test_an_unwritable_trace_folder_is_a_warning_not_a_crash(tmp_path):
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the runs folder should be", encoding="utf-8")
    result = run_agent(
        SEED_QUESTION, client=scripted("honest_analyst"), tools=sales_tools(), trace_dir=blocked
    )
    assert result.outcome == "completed" and result.trace_path is None
    assert result.events and result.events[-1]["event"] == "stop"  # kept in memory
    assert any(str(blocked) in w for w in result.warnings)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs Linux's /dev/full")
def test_a_full_disk_mid_run_is_a_warning_not_a_crash(tmp_path):
    full = tmp_path / "runs" / "full-disk"
    full.mkdir(parents=True)
    (full / "trace.jsonl").symlink_to("/dev/full")  # every write fails with ENOSPC
    result = run_agent(
        SEED_QUESTION,
        client=scripted("honest_analyst"),
        tools=sales_tools(),
        trace_dir=tmp_path / "runs",
        task_id="full-disk",
    )
    assert result.outcome == "completed" and result.trace_path is None
    assert any("full-disk" in w for w in result.warnings)


def test_a_result_whose_keys_do_not_sort_is_read_not_raised():
    """JSON keys are text, but a tool may return ``{2024: ..., "total": ...}``: it is
    written out for the model all the same, and the no-progress fingerprint, which
    sorts the keys, must not stop the run with a TypeError."""
    by_year = Tool("by_year", "d", {}, lambda: ok({2024: 5, "total": 5, None: 0}))
    client = ScriptedClient([call("by_year"), call("by_year"), say("5")])
    result = run_agent("sum", client=client, tools=ToolRegistry([by_year]), trace_dir=False)
    assert (result.outcome, result.tool_calls) == ("completed", 2)
    assert '"2024": 5' in result.messages[3]["content"]


class Unprintable(Exception):
    def __str__(self) -> str:
        raise ValueError("no words for this")


@pytest.mark.parametrize(
    "raised, shown",
    [
        (RuntimeError("printer on fire"), "RuntimeError: printer on fire"),
        (SystemExit("printer on fire"), "SystemExit: printer on fire"),
        (GeneratorExit("printer on fire"), "GeneratorExit: printer on fire"),
        (Unprintable(), "Unprintable"),  # its __str__ raises: the class name is all there is
    ],
)
def test_a_display_callback_that_raises_is_not_blamed_on_the_model(raised, shown):
    """A student's printer failing, even by calling exit(), is a warning; the run
    reads the reply and goes on."""

    def broken_printer(text: str) -> None:
        raise raised

    result = run_agent(
        SEED_QUESTION,
        client=scripted("honest_analyst"),
        tools=sales_tools(),
        stream=True,
        on_text=broken_printer,
        trace_dir=False,
    )
    assert result.outcome == "completed"
    assert tr("loop.display_failed", error=shown) in result.warnings


def test_tools_that_are_not_a_registry_are_refused_with_a_clear_message():
    with pytest.raises(TypeError, match="ToolRegistry"):
        run_agent("x", client=scripted("honest_analyst"), tools=None, trace_dir=False)


@pytest.mark.parametrize(
    "options, name",
    [
        ({"budget": 4}, "budget"),
        ({"budget": {"max_steps": 4}}, "budget"),
        ({"done_when": "答案里有 9692"}, "done_when"),
        ({"client": None}, "client"),
        ({"client": "honest_analyst"}, "client"),
        ({"model": None}, "model"),
        ({"system_prompt": 42}, "system_prompt"),
    ],
)
def test_a_caller_argument_of_the_wrong_kind_is_refused_naming_it(options, name):
    """An instructor's typo raises at once, naming the argument, not mid-run."""
    given = {"client": scripted("honest_analyst"), "tools": sales_tools(), **options}
    with pytest.raises(TypeError, match=name) as refused:
        run_agent(SEED_QUESTION, trace_dir=False, **given)
    given = options[name]
    assert type(given).__name__ in str(refused.value) or repr(given) in str(refused.value)


@pytest.mark.parametrize("task", [123, ["分析 sales.csv"], b"\xe5\x88\x86"])
def test_a_task_that_is_not_text_is_said_to_be_so_not_empty(task):
    client = scripted("honest_analyst")
    result = run(client, task=task)
    assert result.stop_reason == "invalid_task" and client.requests == []
    assert result.warnings == [tr("loop.task_not_text", type=type(task).__name__)]


@pytest.mark.parametrize("trace_dir", [0, 5, "", "  ", b"runs"])
def test_a_trace_dir_that_is_no_folder_is_refused_naming_it(trace_dir):
    """0 is not False, and "" would scatter run folders over the working folder."""
    client = scripted("honest_analyst")
    with pytest.raises((TypeError, ValueError), match="trace_dir") as refused:
        run_agent(SEED_QUESTION, client=client, tools=sales_tools(), trace_dir=trace_dir)
    assert str(refused.value) == tr("loop.bad_trace_dir", value=trace_dir)
    assert client.requests == []


def test_numpy_numbers_from_a_sweep_table_are_limits_like_python_ones(tmp_path):
    """summary["cap"].min() is numpy.int64: Budget takes it (as int, so the trace is JSON)."""
    np = pytest.importorskip("numpy")
    budget = Budget(max_steps=np.int64(4), max_seconds=np.float32(30), max_tokens=np.int32(9999))
    assert (budget.max_steps, budget.max_seconds, budget.max_tokens) == (4, 30.0, 9999)
    assert type(budget.max_steps) is int and type(budget.max_seconds) is float
    result = run_agent(
        SEED_QUESTION, client=scripted("honest_analyst"), tools=sales_tools(), budget=budget,
        trace_dir=tmp_path,
    )  # fmt: skip
    assert result.outcome == "completed" and result.trace_path is not None
    first_line = Path(result.trace_path).read_text(encoding="utf-8").splitlines()[0]
    assert json.loads(first_line)["budget"]["max_steps"] == 4  # the trace could write it
    with pytest.raises(ValueError, match="max_steps"):
        Budget(max_steps=np.float64(4.5))


def test_an_empty_model_name_is_refused_naming_model():
    """A real service answers an empty model name with HTTP 400 or 404: say so before asking."""
    with pytest.raises(ValueError, match="model"):
        run_agent("x", client=scripted("honest_analyst"), tools=sales_tools(), model="  ")


def test_a_trace_that_cannot_be_written_does_not_take_the_stop_messages_place(tmp_path):
    """The chapters print warnings[-1] as why a run stopped; a read-only runs folder
    must not turn that into "could not write the trace"."""
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the runs folder should be", encoding="utf-8")
    result = run_agent(
        SEED_QUESTION, client=scripted("never_stops"), tools=sales_tools(),
        budget=Budget(max_steps=2), trace_dir=blocked,
    )  # fmt: skip
    assert result.trace_path is None and any(str(blocked) in w for w in result.warnings)
    assert result.warnings[-1] == tr("guard.max_steps", cap=2)
