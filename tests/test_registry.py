"""The tool registry: whitelist dispatch, argument validation, no exceptions out."""

from __future__ import annotations

import json
import re

import jsonschema  # the reference the argument check is compared with; agentlab does not use it
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agentlab.course.experiments import task_tools
from agentlab.course.faults import fault_tools
from agentlab.i18n import json_reason, tr
from agentlab.tools import Tool, ToolRegistry, error, file_tools, ok, sales_tools, sandbox_copy
from agentlab.tools.registry import MAX_NESTING, call_key, schema_problem, too_deep

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


# -- the argument check agrees with the jsonschema package --------------------------------


json_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-5, 5),
        st.sampled_from([0.5, 1.0, -2.0]),
        st.text(alphabet="ab1_", max_size=6),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.sampled_from("nmxy"), inner, max_size=3)
    ),
    max_leaves=12,
)


def leaf_schemas() -> st.SearchStrategy[dict]:
    return st.one_of(
        st.fixed_dictionaries(
            {"type": st.sampled_from(["integer", "number"])},
            optional={
                "minimum": st.integers(-3, 3),
                "maximum": st.integers(-3, 3),
                "exclusiveMinimum": st.integers(-3, 3),
                "exclusiveMaximum": st.integers(-3, 3),
            },
        ),
        st.fixed_dictionaries(
            {"type": st.just("string")},
            optional={
                "minLength": st.integers(0, 3),
                "maxLength": st.integers(0, 5),
                "pattern": st.sampled_from(["^a", "1$", "_"]),
                "enum": st.lists(st.text(alphabet="ab", max_size=2), min_size=1, max_size=3),
            },
        ),
        st.fixed_dictionaries({"type": st.sampled_from(["boolean", "null", ["string", "null"]])}),
        st.fixed_dictionaries({"const": json_values}),
        st.fixed_dictionaries({"enum": st.lists(json_values, min_size=1, max_size=3)}),
        st.just({}),
    )


schemas = st.recursive(
    leaf_schemas(),
    lambda inner: st.one_of(
        st.fixed_dictionaries(
            {"type": st.just("array")},
            optional={
                "items": inner,
                "minItems": st.integers(0, 2),
                "maxItems": st.integers(0, 3),
            },
        ),
        st.fixed_dictionaries(
            {
                "type": st.just("object"),
                "properties": st.dictionaries(st.sampled_from("nmxy"), inner, max_size=3),
            },
            optional={
                "required": st.lists(st.sampled_from("nmxy"), max_size=2, unique=True),
                "additionalProperties": st.just(False),
            },
        ),
    ),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schemas, json_values)
@example({"const": [True]}, [1])  # True is not 1 inside a list either
@example({"enum": [[False]]}, [0])
@example({"const": {"a": True}}, {"a": 1})
@example({"type": "integer", "minimum": 1}, 1)  # the bounds themselves: inclusive,
@example({"exclusiveMinimum": 1}, 1)  # and exclusive
@example({"type": "string", "pattern": "b"}, "ab")  # a pattern matches anywhere
@example({"type": "integer"}, 1.0)  # 1.0 is an integer to JSON Schema
def test_the_argument_check_agrees_with_jsonschema(schema, value):
    ours = schema_problem(schema, value) is None
    theirs = jsonschema.Draft202012Validator(schema).is_valid(value)
    assert ours == theirs, (schema, value, schema_problem(schema, value))


def test_keywords_the_check_does_not_know_are_refused_when_the_tool_is_made():
    with pytest.raises(ValueError, match=r"n\.anyOf"):
        Tool("t", "d", {"properties": {"n": {"anyOf": [{"type": "integer"}]}}}, lambda n: ok(n))
    with pytest.raises(ValueError, match=r"\$ref"):
        Tool("t", "d", {"$ref": "#/x"}, lambda: ok(1))


def test_bounds_are_checked_not_just_types():
    tool = Tool(
        "pick",
        "d",
        {"properties": {"n": {"type": "integer", "minimum": 1}, "p": {"pattern": "^a"}}},
        lambda n=1, p="a": ok(n),
    )
    result = ToolRegistry([tool]).call("pick", '{"n": 0}')
    assert result["error"]["code"] == "INVALID_ARGUMENTS"
    assert ToolRegistry([tool]).call("pick", '{"n": 2, "p": "zz"}')["status"] == "error"
    assert ToolRegistry([tool]).call("pick", '{"n": 2, "p": "ab"}')["status"] == "ok"


def arguments_for(schema: dict) -> st.SearchStrategy[dict]:
    """Arguments generated from a tool's schema (the kinds the course's tools use)."""
    kinds = {
        "string": st.text(alphabet="abc./_-", min_size=1, max_size=8),
        "integer": st.integers(0, 5),
        "number": st.floats(0, 1),
    }
    properties = {
        name: kinds[spec.get("type", "string")] for name, spec in schema["properties"].items()
    }
    required = set(schema.get("required", []))
    return st.fixed_dictionaries(
        {k: v for k, v in properties.items() if k in required},
        optional={k: v for k, v in properties.items() if k not in required},
    )


def assert_generated_arguments_pass(tool: Tool) -> None:
    schema = tool.strict_parameters()
    validator = jsonschema.Draft202012Validator(schema)

    @settings(max_examples=20, deadline=None)
    @given(arguments_for(schema))
    def check(arguments):
        assert validator.is_valid(arguments)
        assert schema_problem(schema, arguments) is None, tool.name
        extra = {**arguments, "surplus": 1}  # a made-up argument is refused by both
        assert schema_problem(schema, extra) and not validator.is_valid(extra)

    check()


def test_arguments_generated_from_each_course_tools_schema_pass_the_check():
    registries = [sales_tools(), file_tools(sandbox_copy()), fault_tools(0.0)[0], task_tools()]
    tools = [tool for registry in registries for tool in registry._tools.values()]
    assert len(tools) >= 12
    for tool in tools:
        assert_generated_arguments_pass(tool)


@pytest.mark.parametrize(
    "returned, code_or_none",
    [
        ({"status": "ok", "data": 1, "source": "t", "error": None}, None),
        ({"status": "ok", "data": 1, "source": "t", "error": {"code": "X"}}, "TOOL_EXCEPTION"),
        ({"status": "error", "data": None, "source": "t", "error": None}, "TOOL_EXCEPTION"),
        ({"status": "error", "data": None, "source": "t", "error": {"code": 3}}, "TOOL_EXCEPTION"),
        ({"status": "done", "data": 1, "source": "t", "error": None}, "TOOL_EXCEPTION"),
        ({"status": "ok", "data": {1, 2}, "source": "t", "error": None}, "TOOL_EXCEPTION"),
    ],
)
def test_only_well_formed_json_results_reach_the_model(returned, code_or_none):
    registry = ToolRegistry([Tool("t", "d", {}, lambda: returned)])
    result = registry.call("t", "{}")
    if code_or_none is None:
        assert result == returned
    else:
        assert result["error"]["code"] == code_or_none


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


@pytest.mark.parametrize(
    "arguments, fragment",
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"text": ' + "9" * 5000 + "}", "number that cannot be read"),
    ],
)
def test_arguments_json_cannot_read_is_an_error_not_a_crash(registry, arguments, fragment):
    result = registry.call("echo", arguments)
    assert result["error"]["code"] == "INVALID_ARGUMENTS"
    assert fragment in result["error"]["message"]


def nested(depth: int) -> dict:
    """``{"a": {"a": ... 1}}`` with ``depth`` dicts."""
    value: object = 1
    for _ in range(depth):
        value = {"a": value}
    return value  # type: ignore[return-value]


def test_arguments_nested_past_the_limit_are_refused_at_any_depth():
    loose = ToolRegistry([Tool("take", "d", {"additionalProperties": True}, lambda **kw: ok("ok"))])
    assert loose.call("take", json.dumps(nested(MAX_NESTING)))["status"] == "ok"
    # 500 levels used to overflow the recursive argument check: run_agent raised
    for depth in (MAX_NESTING + 1, 500, 900):
        result = loose.call("take", json.dumps(nested(depth)))
        assert result["error"]["code"] == "INVALID_ARGUMENTS"
        assert f"more than {MAX_NESTING} levels" in result["error"]["message"]


def test_a_result_nested_past_the_limit_is_the_tools_bug():
    deep = ToolRegistry([Tool("deep", "d", {}, lambda: ok(nested(900)))])
    result = deep.call("deep", "{}")
    assert result["error"]["code"] == "TOOL_EXCEPTION"
    assert f"nested more than {MAX_NESTING} levels" in result["error"]["message"]


def test_too_deep_measures_without_recursion():
    assert too_deep({"a": {"b": 1}}, limit=1) and not too_deep({"a": 1}, limit=1)
    assert too_deep([[[1]]], limit=2) and not too_deep([[1]], limit=2)
    assert too_deep(nested(200_000)) and not too_deep("x" * 10)


@pytest.mark.parametrize(
    "schema, where",
    [
        ({"properties": {"s": {"type": "string", "pattern": "("}}}, "s.pattern"),
        ({"properties": {"n": {"type": "integer", "minimum": "3"}}}, "n.minimum"),
        ({"properties": {"xs": {"type": "array", "items": [{"type": "integer"}]}}}, "xs.items"),
        ({"properties": {"n": {"type": "int"}}}, "n.type"),
        ({"additionalProperties": {"type": "string"}}, "additionalProperties"),
        ({"properties": {"n": "integer"}}, "n"),
    ],
)
def test_a_keyword_written_in_a_form_the_check_cannot_read_is_refused(schema, where):
    with pytest.raises(ValueError, match=where.replace(".", r"\.")):
        Tool("t", "d", schema, lambda **_: ok(1))


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


# -- result shape and blank arguments: rules the mutation audit found unpinned ----------


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


@pytest.mark.parametrize("blank", ["", " ", "\n", " \t\r\n "])
def test_blank_arguments_mean_no_arguments(blank):
    """Arguments that are empty or only whitespace are read as {}, as call_key reads them."""
    tools = ToolRegistry([Tool("now", "no parameters", {}, lambda: ok("12:00"))])
    assert tools.call("now", blank) == ok("12:00")
    assert call_key("now", blank) == call_key("now", "{}")


NOT_JSON = [
    '{"text": ',
    '{text: "hi"}',
    '{"text" "hi"}',
    '{"text": "hi" "x": 1}',
    '{"t": "h',
    "{} []",
    '{"path": "C:\\Users\\me"}',  # a Windows path's backslashes, not doubled
    '{"t": "\\u12"}',
]


@pytest.mark.parametrize("arguments", NOT_JSON)
def test_why_arguments_are_not_json_is_said_in_the_current_language(
    registry, arguments, monkeypatch
):
    """Python's decoder speaks English ("Expecting value"); a student reads why in Chinese."""
    with pytest.raises(json.JSONDecodeError) as python:
        json.loads(arguments)
    monkeypatch.setenv("AGENTLAB_LANG", "zh")
    chinese = registry.call("echo", arguments)["error"]["message"]
    assert python.value.msg not in chinese
    [why] = re.findall(r"位置 \d+：(.*?)）：", chinese)
    assert why and not re.search("[A-Za-z]", why)
    monkeypatch.setenv("AGENTLAB_LANG", "en")
    english = registry.call("echo", arguments)["error"]["message"]
    assert english.startswith("arguments are not valid JSON") and python.value.msg not in english


@pytest.mark.parametrize(
    "message",
    # Python 3.13's words for a comma before } or ]: older ones said "Expecting ..."
    ["Illegal trailing comma before end of object", "Illegal trailing comma before end of array"],
)
def test_newer_python_decoder_messages_are_said_in_the_current_language(message, monkeypatch):
    monkeypatch.setenv("AGENTLAB_LANG", "zh")
    why = json_reason(json.JSONDecodeError(message, '{"a": 1,}', 7))
    assert why and not re.search("[A-Za-z]", why)


@pytest.mark.parametrize("arguments", [{"text": "hi"}, b'{"text": "hi"}', 42, ["text"]])
def test_arguments_that_are_not_json_text_are_an_error_result_not_a_crash(registry, arguments):
    """``tools.call("echo", {"text": "hi"})`` is what a person types first: never raises."""
    for ran in (registry.call("echo", arguments), registry.run("echo", arguments, 1.0).result):
        assert ran["error"] == {
            "code": "INVALID_ARGUMENTS",
            "message": tr("registry.arguments_not_text", type=type(arguments).__name__),
        }


@pytest.mark.parametrize(
    "arguments, json_type",
    [
        ("[1, 2]", "array"),
        ('"text"', "string"),
        ("null", "null"),
        ("7", "integer"),
        ("1.5", "number"),
        ("true", "boolean"),
    ],
)
def test_arguments_of_another_json_type_are_named_in_json_words(registry, arguments, json_type):
    """The model wrote JSON: its mistake is told in JSON's words (array, null), not Python's."""
    message = registry.call("echo", arguments)["error"]["message"]
    assert message == tr("registry.not_an_object", type=json_type)


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


@pytest.mark.parametrize("timeout", ["5", True, [5]])
def test_a_tool_timeout_that_is_no_number_is_refused_naming_it(timeout):
    message = tr("isolation.bad_timeout", name="t", timeout=timeout)
    with pytest.raises(ValueError, match=re.escape(message)):
        Tool("t", "d", {}, echo, timeout=timeout)
