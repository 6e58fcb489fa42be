"""The tool registry: whitelist dispatch, argument validation, no exceptions out."""

from __future__ import annotations

import pytest

from agentlab.tools import Tool, ToolRegistry, error, ok

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


@pytest.mark.parametrize(
    "arguments, fragment",
    [
        ('{"text": ', "not valid JSON"),
        ("[1, 2]", "JSON object"),
        ('"text"', "JSON object"),
        ("{}", "missing required argument(s): text"),
        ('{"text": 3}', "text: expected string, got integer"),
        ('{"text": "a", "times": "2"}', "times: expected integer, got string"),
        ('{"text": "a", "times": true}', "times: expected integer, got boolean"),
        ('{"text": "a", "times": 1.5}', "times: expected integer, got number"),
        ('{"text": "a", "colour": "red"}', "unexpected argument(s): colour (allowed: text, times)"),
    ],
)
def test_invalid_arguments(registry, arguments, fragment):
    result = registry.call("echo", arguments)
    assert result["status"] == "error"
    assert result["error"]["code"] == "INVALID_ARGUMENTS"
    assert fragment in result["error"]["message"]


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


def test_result_shape():
    assert error("X", "y") == {
        "status": "error",
        "data": None,
        "source": [],
        "error": {"code": "X", "message": "y"},
    }


def test_nested_schemas_enums_and_arrays():
    from agentlab.tools.registry import schema_problem

    schema = {
        "properties": {
            "mode": {"type": "string", "enum": ["a", "b"]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "opts": {
                "type": "object",
                "properties": {"n": {"type": ["integer", "null"]}},
                "required": ["n"],
            },
        },
        "additionalProperties": False,
    }
    assert schema_problem(schema, {"mode": "a", "tags": ["x"], "opts": {"n": None}}) is None
    assert "must be one of" in schema_problem(schema, {"mode": "c"})
    assert (
        schema_problem(schema, {"tags": ["x", 2]}) == "tags: item 1: expected string, got integer"
    )
    assert "missing required" in schema_problem(schema, {"opts": {}})
