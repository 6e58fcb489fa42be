"""The tool registry: a whitelist of tools, each a JSON schema plus a function.

The model only ever *names* a tool and sends its arguments as a JSON string.
The registry is the one place that turns that request into a Python call:

1. the name must be registered (whitelist dispatch, ``UNKNOWN_TOOL``);
2. the arguments must parse as a JSON object that fits the tool's schema
   (required keys, types, no extra keys: ``INVALID_ARGUMENTS``);
3. the function runs; whatever it raises becomes an error result
   (``TOOL_EXCEPTION``), never an exception out of the agent loop.

Every answer is a structured *tool result*:
``{"status": "ok"|"error", "data", "source", "error": {"code", "message"}}``.
``status`` is the **tool status** of one execution. It says nothing about
whether the run as a whole succeeded (that is the run status).

This module deliberately does not know about budgets, the loop or the model:
it executes one call and reports what happened.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

ToolResult = dict[str, Any]


def ok(data: Any, source: list[str] | None = None) -> ToolResult:
    """A successful tool result."""
    return {"status": "ok", "data": data, "source": source or [], "error": None}


def error(code: str, message: str, source: list[str] | None = None) -> ToolResult:
    """A failed tool result with a machine-readable code and a readable message."""
    return {
        "status": "error",
        "data": None,
        "source": source or [],
        "error": {"code": code, "message": message},
    }


@dataclass(frozen=True)
class Tool:
    """One tool: the name and schema the model sees, the function we run.

    ``parameters`` is a JSON schema for an object. Unless it says otherwise,
    extra keys are refused (``additionalProperties: false``), because a model
    that invents an argument has misunderstood the tool.
    """

    name: str
    description: str
    parameters: dict[str, Any]
    function: Callable[..., ToolResult]
    # Run in a child process that is killed when the run's time is up. The
    # function must then be defined at module level (it is sent by name).
    isolated: bool = False

    def schema(self) -> dict[str, Any]:
        """The entry for the ``tools=`` list of a chat-completions request."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.strict_parameters(),
            },
        }

    def strict_parameters(self) -> dict[str, Any]:
        params = {"type": "object", "properties": {}, **self.parameters}
        params.setdefault("additionalProperties", False)
        return params


class ToolRegistry:
    """Holds tools by name and executes calls to them safely."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> Tool:
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool
        return tool

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def schemas(self) -> list[dict[str, Any]]:
        """The ``tools=`` list sent to the model, in registration order."""
        return [tool.schema() for tool in self._tools.values()]

    def call(self, name: str, arguments_json: str | None) -> ToolResult:
        """Run one tool call exactly as the model asked for it."""
        prepared = self.prepare(name, arguments_json)
        if isinstance(prepared, dict):
            return prepared
        tool, arguments = prepared
        return execute(tool, arguments)

    def prepare(
        self, name: str, arguments_json: str | None
    ) -> tuple[Tool, dict[str, Any]] | ToolResult:
        """The tool and its checked arguments, or the error result explaining why not."""
        tool = self._tools.get(name)
        if tool is None:
            allowed = ", ".join(self._tools) or "(none)"
            return error("UNKNOWN_TOOL", f"no tool named {name!r}; allowed tools: {allowed}")
        arguments = parse_arguments(arguments_json)
        if isinstance(arguments, str):
            return error("INVALID_ARGUMENTS", arguments)
        problem = schema_problem(tool.strict_parameters(), arguments)
        if problem:
            return error("INVALID_ARGUMENTS", f"{name}: {problem}")
        return tool, arguments


def execute(tool: Tool, arguments: dict[str, Any]) -> ToolResult:
    """Call the tool's function; whatever it raises or returns becomes a result."""
    try:
        result = tool.function(**arguments)
    except Exception as exc:  # a tool bug must not end the run
        return error("TOOL_EXCEPTION", f"{tool.name} raised {type(exc).__name__}: {exc}")
    return checked_result(tool.name, result)


def checked_result(name: str, result: Any) -> ToolResult:
    if not is_tool_result(result):
        return error("TOOL_EXCEPTION", f"{name} returned something that is not a tool result")
    return result


def parse_arguments(arguments_json: str | None) -> dict[str, Any] | str:
    """The arguments as a dict, or a message saying why they are unusable."""
    if arguments_json is None or not arguments_json.strip():
        return {}  # some providers send "" for a tool without parameters
    try:
        parsed = json.loads(arguments_json)
    except json.JSONDecodeError as exc:
        shown = arguments_json if len(arguments_json) <= 200 else arguments_json[:200] + "..."
        return f"arguments are not valid JSON ({exc.msg} at position {exc.pos}): {shown}"
    if not isinstance(parsed, dict):
        return f"arguments must be a JSON object, got {type(parsed).__name__}"
    return parsed


JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
    "null": (type(None),),
}


def schema_problem(schema: dict[str, Any], arguments: dict[str, Any]) -> str | None:
    """The first way ``arguments`` break an object ``schema``, or None if they fit.

    Covers what tool schemas use: ``required``, ``additionalProperties:
    false``, ``type`` (one or a list), ``enum``, nested ``properties`` and
    array ``items``. (The ``jsonschema`` package does more, but takes about a
    second to import; this is all a tool call needs.)
    """
    properties = schema.get("properties", {})
    missing = [key for key in schema.get("required", []) if key not in arguments]
    if missing:
        return f"missing required argument(s): {', '.join(missing)}"
    if schema.get("additionalProperties") is False:
        extra = sorted(set(arguments) - set(properties))
        if extra:
            allowed = ", ".join(properties) or "none"
            return f"unexpected argument(s): {', '.join(extra)} (allowed: {allowed})"
    for key, value in arguments.items():
        problem = value_problem(value, properties.get(key, {}))
        if problem:
            return f"{key}: {problem}"
    return None


def value_problem(value: Any, spec: dict[str, Any]) -> str | None:
    expected = spec.get("type")
    if expected is not None:
        names = expected if isinstance(expected, list) else [expected]
        if not any(_is_json_type(value, name) for name in names):
            return f"expected {' or '.join(names)}, got {_json_type_name(value)}"
    if "enum" in spec and value not in spec["enum"]:
        return f"must be one of {spec['enum']}, got {value!r}"
    if isinstance(value, list) and "items" in spec:
        for i, item in enumerate(value):
            problem = value_problem(item, spec["items"])
            if problem:
                return f"item {i}: {problem}"
    if isinstance(value, dict) and "properties" in spec:
        return schema_problem(spec, value)
    return None


def _is_json_type(value: Any, name: str) -> bool:
    if isinstance(value, bool) and name in ("integer", "number"):
        return False  # True is an int in Python, not a number in JSON
    return isinstance(value, JSON_TYPES.get(name, (object,)))


def _json_type_name(value: Any) -> str:
    for name in JSON_TYPES:
        if _is_json_type(value, name):
            return name
    return type(value).__name__


def is_tool_result(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("status") in ("ok", "error")
        and {"data", "source", "error"} <= value.keys()
    )
