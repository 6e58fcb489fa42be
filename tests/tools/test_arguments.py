"""A call's arguments: parsed, checked against the tool's schema, refused in one sentence.

The check is ``fastjsonschema``; its verdicts are compared with the
``jsonschema`` package (the reference implementation), and every refusal
must come out as a catalog message naming the argument.
"""

from __future__ import annotations

import json
import re
from typing import Literal

import fastjsonschema
import jsonschema  # the reference the check is compared with; agentlab does not use it
import pydantic
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agentlab.course.experiments import task_tools
from agentlab.course.faults import fault_tools
from agentlab.i18n import json_reason, tr
from agentlab.tools import Tool, ToolRegistry, file_tools, ok, sales_tools, sandbox_copy
from agentlab.tools._argument_errors import refused
from agentlab.tools._definition import schema_check
from agentlab.tools.result import MAX_NESTING

pytestmark = pytest.mark.usefixtures("english")  # these tests read messages


def echo(text: str, times: int = 1):
    return ok(text * times)


@pytest.fixture
def registry():
    schema = {
        "properties": {"text": {"type": "string"}, "times": {"type": "integer"}},
        "required": ["text"],
    }
    return ToolRegistry([Tool("echo", "repeat text", schema, echo)])


def problem(schema: dict, value: object) -> str | None:
    """What the check says about ``value``: None when it fits ``schema``."""
    try:
        schema_check("t", schema)(value)
    except fastjsonschema.JsonSchemaValueException as exc:
        return refused(exc, value)
    return None


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


def test_nested_schemas_enums_and_arrays():
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
    assert problem(schema, {"mode": "a", "tags": ["x"], "opts": {"n": None}}) is None
    assert "must be one of" in problem(schema, {"mode": "c"})
    assert problem(schema, {"tags": ["x", 2]}) == "tags: item 1: expected string, got integer"
    assert problem(schema, {"opts": {}}) == "opts: missing required argument(s): n"
    assert problem(schema, {"opts": {"n": "1"}}) == "opts: n: expected integer | null, got string"


RULES = [  # (schema, value, the catalog message every refusal of that rule gives)
    ({"type": "string"}, 3, "registry.wrong_type", {"expected": "string", "actual": "integer"}),
    ({"enum": ["a"]}, "b", "registry.not_in_enum", {"allowed": ["a"], "value": "'b'"}),
    ({"const": 1}, 2, "registry.not_const", {"expected": "1", "value": "2"}),
    ({"minimum": 1}, 0, "registry.too_small", {"limit": 1, "value": 0}),
    ({"maximum": 1}, 2, "registry.too_large", {"limit": 1, "value": 2}),
    ({"exclusiveMinimum": 1}, 1, "registry.not_above", {"limit": 1, "value": 1}),
    ({"exclusiveMaximum": 1}, 1, "registry.not_below", {"limit": 1, "value": 1}),
    ({"minLength": 2}, "a", "registry.too_short", {"limit": 2, "length": 1}),
    ({"maxLength": 1}, "ab", "registry.too_long", {"limit": 1, "length": 2}),
    ({"pattern": "^a"}, "b", "registry.no_match", {"pattern": "^a"}),
    ({"minItems": 1}, [], "registry.too_few_items", {"limit": 1, "count": 0}),
    ({"maxItems": 0}, [1], "registry.too_many_items", {"limit": 0, "count": 1}),
    ({"required": ["a", "b"]}, {"b": 1}, "registry.missing_required", {"names": "a"}),
    (
        {"properties": {"a": {}}, "additionalProperties": False},
        {"a": 1, "z": 2, "y": 3},
        "registry.unexpected",
        {"names": "y, z", "allowed": "a"},
    ),
    (
        {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "x",
        "registry.wrong_type",
        {"expected": "integer | null", "actual": "string"},
    ),
    ({"multipleOf": 2}, 3, "registry.breaks_rule", {"rule": "multipleOf"}),
    ({"not": {"type": "string"}}, "x", "registry.breaks_rule", {"rule": "not"}),
    ({"uniqueItems": True}, [1, 1], "registry.breaks_rule", {"rule": "uniqueItems"}),
]


def test_each_broken_rule_is_said_with_its_catalog_message():
    wrong = {
        json.dumps(schema): (problem(schema, value), tr(key, **fields))
        for schema, value, key, fields in RULES
        if problem(schema, value) != tr(key, **fields)
    }
    assert wrong == {}
    nothing_allowed = problem({"additionalProperties": False}, {"z": 1})
    assert nothing_allowed == tr("registry.unexpected", names="z", allowed=tr("registry.none"))


# -- the check agrees with the jsonschema package ---------------------------------------------


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
        # what pydantic writes for Optional[X]
        inner.map(lambda branch: {"anyOf": [branch, {"type": "null"}]}),
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
def test_the_check_agrees_with_jsonschema_and_says_why_in_words(schema, value):
    try:
        schema_check("t", schema)
    except ValueError as exc:  # required names a key additionalProperties forbids: refused
        assert "are required but not allowed" in str(exc)
        return
    theirs = jsonschema.Draft202012Validator(schema).is_valid(value)
    said = problem(schema, value)
    assert (said is None) == theirs, (schema, value, said)
    if said is not None:  # one sentence, in the catalog's words, never the library's English
        assert said and "data" not in said and "\n" not in said, said


# -- a schema made by pydantic ------------------------------------------------------------------


class Address(pydantic.BaseModel):
    city: str
    zip: str | None = None


class Order(pydantic.BaseModel):
    """An order."""

    item: str = pydantic.Field(description="what to order")
    quantity: int = pydantic.Field(ge=1, le=100)
    note: str | None = None
    mode: Literal["fast", "slow"] = "fast"
    ship_to: Address | None = None
    tags: list[str] = []


def place_order(**arguments) -> dict:
    return ok(Order(**arguments).model_dump())


def test_a_tool_whose_schema_comes_from_a_pydantic_model_works():
    """``anyOf`` with null for Optional fields, ``$defs``/``$ref``, defaults and titles."""
    schema = Order.model_json_schema()
    assert "$defs" in schema and any("anyOf" in p for p in schema["properties"].values())
    tools = ToolRegistry([Tool("place_order", "order something", schema, place_order)])
    assert tools.schemas()[0]["function"]["parameters"]["$defs"] == schema["$defs"]

    good = {"item": "键盘", "quantity": 2, "note": None, "ship_to": {"city": "上海"}}
    assert tools.call("place_order", json.dumps(good))["data"]["ship_to"] == {
        "city": "上海",
        "zip": None,
    }
    refusals = {
        '{"item": "键盘"}': "missing required argument(s): quantity",
        '{"item": "键盘", "quantity": 0}': "quantity: must be at least 1, got 0",
        '{"item": "键盘", "quantity": 1, "note": 5}': "note: expected string | null, got integer",
        '{"item": "键盘", "quantity": 1, "mode": "now"}': "mode: must be one of ['fast', 'slow']",
        '{"item": "键盘", "quantity": 1, "ship_to": {}}': (
            "ship_to: missing required argument(s): city"
        ),
        '{"item": "键盘", "quantity": 1, "ship_to": {"city": 1}}': (
            "ship_to: city: expected string, got integer"
        ),
        '{"item": "键盘", "quantity": 1, "tags": ["a", 2]}': (
            "tags: item 1: expected string, got integer"
        ),
        '{"item": "键盘", "quantity": 1, "colour": "red"}': "unexpected argument(s): colour",
    }
    said = {}
    for arguments, expected in refusals.items():
        result = tools.call("place_order", arguments)
        said[arguments] = (result["error"] or {}).get("code"), expected in str(result["error"])
    assert said == {arguments: ("INVALID_ARGUMENTS", True) for arguments in refusals}


@pytest.mark.parametrize(
    "schema, where",
    [
        ({"properties": {"s": {"type": "string", "pattern": "("}}}, "unterminated subpattern"),
        ({"properties": {"n": {"type": "integer", "minimum": "3"}}}, "minimum must be a number"),
        ({"properties": {"n": {"type": "int"}}}, "Unknown type"),
        ({"properties": {"n": "integer"}}, "must be object"),
        ({"$ref": "#/x"}, "Unresolvable ref"),
        ({"properties": {"xy": {"prefixItems": [{"type": "integer"}]}}}, "xy.prefixItems"),
        ({"$defs": {"P": {"dependentRequired": {}}}}, "P.dependentRequired"),
        ({"properties": {"a": {}}, "required": ["b"]}, "required but not allowed"),
    ],
)
def test_a_schema_the_check_cannot_read_is_refused_when_the_tool_is_made(schema, where):
    """Nothing a schema says goes unchecked: a keyword newer than draft 7 would be
    skipped by the check, so it is refused, like a schema that is not JSON Schema."""
    with pytest.raises(ValueError, match=re.escape(where)) as refused_schema:
        Tool("t", "d", schema, lambda **_: ok(1))
    assert str(refused_schema.value).startswith(tr("registry.bad_schema", name="t", problem=""))


def test_tuple_items_and_schema_valued_additional_properties_are_checked():
    """Draft 7 forms the hand-written check used to refuse now work."""
    schema = {
        "properties": {"xs": {"type": "array", "items": [{"type": "integer"}]}},
        "additionalProperties": {"type": "string"},
    }
    tools = ToolRegistry([Tool("t", "d", schema, lambda **kw: ok(kw))])
    assert tools.call("t", '{"xs": [1, "a"], "extra": "x"}')["status"] == "ok"
    assert "xs: item 0" in tools.call("t", '{"xs": ["a"]}')["error"]["message"]
    assert "extra: expected string" in tools.call("t", '{"extra": 1}')["error"]["message"]


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


def test_arguments_are_checked_not_changed():
    """Defaults in a schema are not filled in: the function's own defaults apply."""
    schema = {"properties": {"n": {"type": "integer", "default": 5}}}
    tools = ToolRegistry([Tool("t", "d", schema, lambda **kw: ok(kw))])
    assert tools.call("t", "{}")["data"] == {}


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


def generated_arguments_pass(tool: Tool) -> str | None:
    """Why arguments generated from ``tool``'s schema do not pass both checks (None: they do)."""
    schema = tool.strict_parameters()
    validator = jsonschema.Draft202012Validator(schema)

    @settings(max_examples=20, deadline=None)
    @given(arguments_for(schema))
    def check(arguments):
        assert validator.is_valid(arguments)
        assert problem(schema, arguments) is None
        extra = {**arguments, "surplus": 1}  # a made-up argument is refused by both
        assert problem(schema, extra) and not validator.is_valid(extra)

    try:
        check()
    except AssertionError as exc:
        return f"{tool.name}: {exc}"
    return None


def test_arguments_generated_from_each_course_tools_schema_pass_the_check():
    registries = [sales_tools(), file_tools(sandbox_copy()), fault_tools(0.0)[0], task_tools()]
    tools = [tool for registry in registries for tool in registry._tools.values()]
    assert len(tools) >= 12
    failures = [why for why in map(generated_arguments_pass, tools) if why]
    assert failures == []


# -- arguments that are not a JSON object ------------------------------------------------------


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
    # 500 levels used to overflow a recursive argument check: run_agent raised
    for depth in (MAX_NESTING + 1, 500, 900):
        result = loose.call("take", json.dumps(nested(depth)))
        assert result["error"]["code"] == "INVALID_ARGUMENTS"
        assert f"more than {MAX_NESTING} levels" in result["error"]["message"]


@pytest.mark.parametrize("blank", ["", " ", "\n", " \t\r\n "])
def test_blank_arguments_mean_no_arguments(blank):
    """Arguments that are empty or only whitespace are read as {}."""
    tools = ToolRegistry([Tool("now", "no parameters", {}, lambda: ok("12:00"))])
    assert tools.call("now", blank) == ok("12:00")


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


def test_why_arguments_are_not_json_is_said_in_the_current_language(registry, monkeypatch):
    """Python's decoder speaks English ("Expecting value"); a student reads why in Chinese."""
    wrong = []
    for arguments in NOT_JSON:
        with pytest.raises(json.JSONDecodeError) as python:
            json.loads(arguments)
        monkeypatch.setenv("AGENTLAB_LANG", "zh")
        chinese = registry.call("echo", arguments)["error"]["message"]
        why = re.findall(r"位置 \d+：(.*?)）：", chinese)
        monkeypatch.setenv("AGENTLAB_LANG", "en")
        english = registry.call("echo", arguments)["error"]["message"]
        if (
            python.value.msg in chinese
            or len(why) != 1
            or re.search("[A-Za-z]", why[0])
            or not english.startswith("arguments are not valid JSON")
            or python.value.msg in english
        ):
            wrong.append((arguments, chinese, english))
    assert wrong == []


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
    message = tr("registry.arguments_not_text", type=type(arguments).__name__)
    for ran in (registry.call("echo", arguments), registry.run("echo", arguments, 1.0).result):
        assert ran["error"] == {"code": "INVALID_ARGUMENTS", "message": message}


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
