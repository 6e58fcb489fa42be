"""The tool registry: whitelist dispatch, a tool checked when it is made, no exceptions
out, and each call within its time (the tool's own cap, the run's deadline, no threads).

The arguments (``test_arguments.py``) and the result contract (``test_result.py``)
have files of their own; isolated tools are in ``test_isolation.py``.
"""

from __future__ import annotations

import re
import time

import pytest

from agentlab import Budget, run_agent
from agentlab.clients import ScriptedClient, call, say
from agentlab.i18n import tr
from agentlab.tools import Tool, ToolRegistry, ok

SAFETY = 1.0

pytestmark = pytest.mark.usefixtures("english")  # these tests read messages


def echo(text: str, times: int = 1):
    return ok(text * times)


def boom():
    raise RuntimeError("disk on fire")


@pytest.fixture
def registry():
    return ToolRegistry(
        [
            Tool(
                "echo",
                "repeat text",
                {
                    "properties": {"text": {"type": "string"}, "times": {"type": "integer"}},
                    "required": ["text"],
                },
                echo,
            ),
            Tool("boom", "always raises", {}, boom),
            Tool("liar", "returns junk", {}, lambda: "not a result"),
        ]
    )


def test_schemas_are_openai_tools_entries(registry):
    first = registry.schemas()[0]
    assert first["type"] == "function"
    assert first["function"]["name"] == "echo"
    assert first["function"]["parameters"]["additionalProperties"] is False
    assert registry.names == ["echo", "boom", "liar"]


def test_ok_call(registry):
    assert registry.call("echo", '{"text": "ab", "times": 2}') == ok("abab")


class OwnBaseError(BaseException):
    """Not an Exception, not one of the named ones."""


@pytest.mark.parametrize("raised", [GeneratorExit, SystemExit])
@pytest.mark.parametrize("seconds", [None, 5.0])  # in this thread, and on a worker thread
def test_a_tool_raising_a_base_exception_gives_an_error_result(raised, seconds):
    def broken():
        raise raised("deep inside")

    run = ToolRegistry([Tool("broken", "d", {}, broken)]).run("broken", "{}", seconds)
    assert run.result["error"]["code"] == "TOOL_EXCEPTION"
    assert raised.__name__ in run.result["error"]["message"]


@pytest.mark.parametrize("raised", [KeyboardInterrupt, OwnBaseError])
def test_a_keyboard_interrupt_or_a_checker_signal_inside_a_tool_passes_through(raised):
    # OwnBaseError stands for the exercise checker's TimeUp: a BaseException on purpose.
    def interrupted():
        raise raised

    with pytest.raises(raised):
        ToolRegistry([Tool("wait", "d", {}, interrupted)]).call("wait", "{}")


def test_unknown_tool_is_refused_and_names_the_whitelist(registry):
    result = registry.call("rm_rf", "{}")
    assert result["error"]["code"] == "UNKNOWN_TOOL"
    assert "echo" in result["error"]["message"]


def test_a_raising_tool_becomes_an_error_result(registry):
    result = registry.call("boom", "")
    assert result["error"]["code"] == "TOOL_EXCEPTION"
    assert "RuntimeError: disk on fire" in result["error"]["message"]


def test_a_tool_returning_junk_becomes_an_error_result(registry):
    assert registry.call("liar", "{}")["error"]["code"] == "TOOL_EXCEPTION"


def test_duplicate_names_are_refused(registry):
    with pytest.raises(ValueError):
        registry.register(Tool("echo", "again", {}, echo))


def test_a_tool_calling_sys_exit_does_not_end_the_run():
    import sys

    registry = ToolRegistry([Tool("quit", "d", {}, lambda: sys.exit(3))])
    result = registry.call("quit", "{}")
    assert result["error"]["code"] == "TOOL_EXCEPTION"
    assert "SystemExit" in result["error"]["message"]


def test_an_exception_that_cannot_be_written_out_is_still_an_error_result():
    class Unprintable(Exception):
        def __str__(self) -> str:
            raise ValueError("no words for this")

    def broken() -> dict:
        raise Unprintable

    result = ToolRegistry([Tool("broken", "d", {}, broken)]).call("broken", "{}")
    assert result["error"]["code"] == "TOOL_EXCEPTION"
    assert "Unprintable" in result["error"]["message"]


@pytest.mark.parametrize("name", ["查询天气", "my tool", "", "a" * 65, None, "read.text"])
def test_a_tool_name_services_would_refuse_is_refused_when_the_tool_is_made(name):
    """The scripted model takes any name; a real service answers HTTP 400 for these."""
    with pytest.raises(ValueError, match=re.escape(tr("registry.bad_tool_name", name=name))):
        Tool(name, "d", {}, echo)


@pytest.mark.parametrize("function", [None, "echo", ok("x")])
def test_a_tool_without_a_function_to_call_is_refused_naming_it(function):
    message = tr("registry.not_callable", name="t", type=type(function).__name__)
    with pytest.raises(TypeError, match=re.escape(message)):
        Tool("t", "d", {}, function)


@pytest.mark.parametrize(
    ("schema", "shown"), [(..., None), (None, "NoneType"), ("{}", "str"), ([], "list")]
)
def test_a_schema_that_is_not_a_dict_is_refused_naming_what_it_is(schema, shown):
    """01-append-text's starter has `schema = ...`: a student who writes the function and
    the registration but leaves that line is told the schema is still the placeholder,
    not that it has "unsupported keywords: (schema)"."""
    shown = shown or tr("registry.schema_placeholder")
    message = tr("registry.schema_not_dict", name="t", got=shown)
    with pytest.raises(TypeError, match=re.escape(message)):
        Tool("t", "d", schema, echo)


@pytest.mark.parametrize("tools", [None, 5, [echo], ["echo"]])
def test_a_registry_of_things_that_are_not_tools_is_refused(tools):
    with pytest.raises(TypeError, match="Tool"):
        ToolRegistry(tools)


@pytest.mark.parametrize("kind", ["a lone tool", "a dict of tools"])
def test_one_tool_or_a_dict_of_them_is_told_to_come_as_a_list(kind):
    tool = Tool("echo", "d", {}, echo)
    tools = tool if kind == "a lone tool" else {"echo": tool}
    message = tr("registry.not_a_list", type=type(tools).__name__)
    with pytest.raises(TypeError, match=re.escape(message)):
        ToolRegistry(tools)


@pytest.mark.parametrize("timeout", ["5", True, [5], 0, -1])
def test_a_tool_timeout_that_is_no_positive_number_is_refused_naming_it(timeout):
    message = tr("isolation.bad_timeout", name="t", timeout=timeout)
    with pytest.raises(ValueError, match=re.escape(message)):
        Tool("t", "d", {}, echo, timeout=timeout)


# -- each call within its time --------------------------------------------------------------


def run(script, tools, budget, tmp_path, **options):
    options.setdefault("trace_dir", tmp_path)
    return run_agent("等一等", client=ScriptedClient(script), tools=tools, budget=budget, **options)


def sleeps(seconds: float, answer: str = "x", **options) -> Tool:
    return Tool("slow", f"{seconds} s", {}, lambda: (time.sleep(seconds), ok(answer))[1], **options)


@pytest.mark.parametrize("max_seconds", [30, None], ids=["with-deadline", "no-deadline"])
def test_a_tool_over_its_own_timeout_is_an_error_and_the_run_goes_on(tmp_path, max_seconds):
    tools = ToolRegistry([sleeps(2, "late", timeout=0.05)])
    result = run([call("slow"), say("它太慢了")], tools, Budget(max_seconds=max_seconds), tmp_path)
    record = result.tool_results[0]
    assert record["result"]["error"]["code"] == "TIMEOUT"
    assert record["error_class"] == "transient"
    assert result.stop_reason == "answered" and result.answer == "它太慢了"
    assert result.elapsed_s < 0.05 + SAFETY


def test_a_call_the_run_runs_out_of_time_for_is_abandoned_and_ends_the_run(tmp_path):
    tools = ToolRegistry([sleeps(3)])
    result = run([call("slow"), say("x")], tools, Budget(max_seconds=0.2), tmp_path)
    assert (result.stop_reason, result.phase) == ("deadline", "tool")
    assert result.tool_results[0]["result"]["error"]["code"] == "TOOL_ABANDONED"


# -- where no thread can start (Pyodide): the time is still kept, between phases --------------


def test_without_threads_a_run_warns_once_and_the_deadline_still_stops_it(no_threads, tmp_path):
    script = [call("slow")] * 40  # without the deadline: 40 x 0.1 s
    tools = ToolRegistry([sleeps(0.1, "tick")])
    result = run(script, tools, Budget(max_seconds=0.5, max_steps=40), tmp_path)
    assert result.stop_reason == "deadline" and result.outcome == "budget_exhausted"
    warning = tr("isolation.no_threads", seconds=0.5)
    assert result.warnings.count(warning) == 1
    assert result.elapsed_s < 0.5 + SAFETY


def test_without_threads_a_late_tool_keeps_its_result_and_ends_the_run(no_threads, tmp_path):
    tools = ToolRegistry([sleeps(0.3, "done late")])
    result = run([call("slow"), say("x")], tools, Budget(max_seconds=0.1), tmp_path)
    assert (result.stop_reason, result.phase) == ("deadline", "tool")
    assert result.tool_results[0]["result"] == ok("done late")  # it did run; nothing pretends not


def test_without_threads_a_tool_over_its_timeout_is_still_a_timeout(no_threads, tmp_path):
    tools = ToolRegistry([sleeps(0.2, timeout=0.05)])
    result = run([call("slow"), say("好")], tools, Budget(max_seconds=30), tmp_path)
    assert result.tool_results[0]["result"]["error"]["code"] == "TIMEOUT"
    assert result.stop_reason == "answered"


@pytest.mark.parametrize("stream", [False, True])
def test_without_threads_every_phase_still_works(no_threads, tmp_path, stream):
    options = {"stream": stream, "on_text": None, "done_when": lambda answer: "好" in answer}
    tools = ToolRegistry([sleeps(0.0)])
    result = run([call("slow"), say("好了")], tools, Budget(max_seconds=30), tmp_path, **options)
    assert result.outcome == "completed" and result.answer == "好了"
