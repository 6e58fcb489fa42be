"""The tool result contract: its shape, what reaches the model, and the classes of errors."""

from __future__ import annotations

import json

import pytest

from agentlab.i18n import tr
from agentlab.tools import Tool, ToolRegistry, error, ok
from agentlab.tools.result import MAX_NESTING, too_deep, tool_error_class

pytestmark = pytest.mark.usefixtures("english")  # these tests read messages


def test_result_shape():
    assert error("X", "y") == {
        "status": "error",
        "data": None,
        "source": [],
        "error": {"code": "X", "message": "y"},
    }
    assert ok(1, ["input/a.csv"]) == {
        "status": "ok",
        "data": 1,
        "source": ["input/a.csv"],
        "error": None,
    }


@pytest.mark.parametrize(
    "returned, code_or_none",
    [
        ({"status": "ok", "data": 1, "source": "t", "error": None}, None),
        ({"status": "ok", "data": 1, "source": "t", "error": {"code": "X"}}, "TOOL_EXCEPTION"),
        ({"status": "error", "data": None, "source": "t", "error": None}, "TOOL_EXCEPTION"),
        ({"status": "error", "data": None, "source": "t", "error": {"code": 3}}, "TOOL_EXCEPTION"),
        ({"status": "done", "data": 1, "source": "t", "error": None}, "TOOL_EXCEPTION"),
        ({"status": "ok", "data": {1, 2}, "source": "t", "error": None}, "TOOL_EXCEPTION"),
        ("not a result", "TOOL_EXCEPTION"),
    ],
)
def test_only_well_formed_json_results_reach_the_model(returned, code_or_none):
    registry = ToolRegistry([Tool("t", "d", {}, lambda: returned)])
    result = registry.call("t", "{}")
    if code_or_none is None:
        assert result == returned
    else:
        assert result["error"]["code"] == code_or_none


@pytest.mark.parametrize("missing", sorted(["status", "data", "source", "error"]))
def test_a_result_missing_any_of_the_four_keys_is_the_tools_bug(missing):
    """A tool result has all of status, data, source and error; one without is TOOL_EXCEPTION."""
    returned = {key: value for key, value in ok(1).items() if key != missing}
    run = ToolRegistry([Tool("t", "d", {}, lambda: returned)]).run("t", "{}")
    assert run.result["error"]["code"] == "TOOL_EXCEPTION"
    assert run.result["error"]["message"] == tr("registry.not_a_result", name="t")


@pytest.mark.parametrize("code", [3, None, ["X"]])
def test_an_error_result_needs_a_text_code(code):
    """An error result's code is text the loop can classify; any other code is the tool's bug."""
    returned = {"status": "error", "data": None, "source": [], "error": {"code": code}}
    returned["error"]["message"] = "went wrong"
    result = ToolRegistry([Tool("t", "d", {}, lambda: returned)]).call("t", "{}")
    assert result["error"]["code"] == "TOOL_EXCEPTION"
    assert result["error"]["message"] == tr("registry.not_a_result", name="t")


def test_a_result_that_contains_itself_is_not_json_and_each_good_result_keeps_its_json():
    looped = ok({"rows": []})
    looped["data"]["rows"].append(looped)
    tools = ToolRegistry(
        [Tool("loop", "d", {}, lambda: looped), Tool("fine", "d", {}, lambda: ok({"销售额": 1}))]
    )
    cycle = tools.run("loop", "{}")
    assert cycle.result["error"]["code"] == "TOOL_EXCEPTION" and cycle.as_json is None
    assert cycle.result["error"]["message"] == tr("registry.not_json", name="loop")
    fine = tools.run("fine", "{}")
    assert json.loads(fine.as_json) == fine.result == ok({"销售额": 1})


def nested(depth: int) -> dict:
    """``{"a": {"a": ... 1}}`` with ``depth`` dicts."""
    value: object = 1
    for _ in range(depth):
        value = {"a": value}
    return value  # type: ignore[return-value]


@pytest.mark.parametrize("depth", [MAX_NESTING, 900, 100_000])  # json.dumps: fine, fine, too deep
def test_a_result_nested_past_the_limit_is_the_tools_bug(depth):
    deep = ToolRegistry([Tool("deep", "d", {}, lambda: ok(nested(depth)))])
    result = deep.call("deep", "{}")
    assert result["error"]["code"] == "TOOL_EXCEPTION"
    assert f"nested more than {MAX_NESTING} levels" in result["error"]["message"]


def test_too_deep_measures_without_recursion():
    assert too_deep({"a": {"b": 1}}, limit=1) and not too_deep({"a": 1}, limit=1)
    assert too_deep([[[1]]], limit=2) and not too_deep([[1]], limit=2)
    assert too_deep(nested(200_000)) and not too_deep("x" * 10)


@pytest.mark.parametrize(
    "code, expected",
    [
        ("TIMEOUT", "transient"),
        ("PATH_NOT_ALLOWED", "permission"),
        ("POLICY_DENIED", "permission"),
        ("CHECK_FAILED", "logic"),
        ("FILE_NOT_FOUND", "invalid_input"),
        (None, "invalid_input"),
    ],
)
def test_each_tool_error_code_has_its_class(code, expected):
    assert tool_error_class(code) == expected
