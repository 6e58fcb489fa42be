"""The tool registry: a whitelist of tools, each a JSON schema plus a function.

The model only ever *names* a tool and sends its arguments as a JSON string.
The registry is the one place that turns that request into a Python call:

1. the name must be registered (whitelist dispatch, ``UNKNOWN_TOOL``);
2. the arguments must parse as a JSON object that fits the tool's schema
   (``INVALID_ARGUMENTS`` otherwise). The check at the end of this module
   (:func:`schema_problem`) knows a subset of JSON Schema: types, required
   and extra keys, enums and constants, ranges, lengths, patterns, items. A
   schema that uses anything else is refused when the ``Tool`` is created,
   so nothing it says goes unchecked;
3. the function runs within the time it is given; whatever it raises
   becomes an error result (``TOOL_EXCEPTION``), never an exception out of
   the agent loop (even ``sys.exit``; ``KeyboardInterrupt`` passes: stopping
   the kernel still stops), and a call that does not return in time is abandoned
   (``TOOL_ABANDONED``) or, for an isolated tool, killed (``TOOL_KILLED``).

The time a call is given is the run's time left, or the tool's own
``timeout`` if that ends first. Running out of the run's time ends the run
(``ToolRun.late``); running out of the tool's own time is an error result the
model receives (``TIMEOUT``, a transient error), and the run goes on.

Every answer is a structured *tool result*:
``{"status": "ok"|"error", "data", "source", "error": {"code", "message"}}``.
``status`` is the **tool status** of one execution. It says nothing about
whether the run as a whole succeeded (that is the run status).

It also spells a call's arguments one canonical way (:func:`call_key`), so
that the same call is recognised however the model wrote it.

This module deliberately does not know about budgets, the loop or the model:
it executes one call and reports what happened. The argument check lives
here, not in a module of its own, because every call goes through it: a
student following one call reads it in the same file.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from ..deadline import TimedOut, run_within
from ..i18n import described, json_reason, tr
from .isolation import kill_signal_name, run_in_child

# Arguments and results nested deeper than this are refused: no tool needs it,
# and the argument check, json.dumps and truncation all follow nesting on
# Python's stack, which a model or a tool could otherwise overflow.
MAX_NESTING = 64

# Made once: json.dumps with options builds a new encoder on every call, and
# these run for every tool call.
RESULT_JSON = json.JSONEncoder(ensure_ascii=False)
"""A tool result as the model reads it (UTF-8 text, not ``\\u`` escapes)."""
KEY_JSON = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"))
"""One spelling for equal values: keys sorted, no spaces."""

ToolResult = dict[str, Any]
RESULT_KEYS = frozenset({"status", "data", "source", "error"})


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


# What chat-completions services accept as a function name (a Chinese name or a
# space is HTTP 400 there, though a scripted model would take it).
TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


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
    isolated: bool = False
    """Run in a child process that is killed when the time is up. The
    function must then be picklable (defined at module level)."""
    timeout: float | None = None
    """Seconds one call may take (``None``: only the run's deadline counts).
    Running out of it is an error result (``TIMEOUT``) and the run goes on."""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not TOOL_NAME.fullmatch(self.name):
            raise ValueError(tr("registry.bad_tool_name", name=self.name))
        if not callable(self.function):
            kind = type(self.function).__name__
            raise TypeError(tr("registry.not_callable", name=self.name, type=kind))
        number = isinstance(self.timeout, int | float) and not isinstance(self.timeout, bool)
        if self.timeout is not None and not (number and self.timeout > 0):
            raise ValueError(tr("isolation.bad_timeout", name=self.name, timeout=self.timeout))
        if not isinstance(self.parameters, dict):
            got = (
                tr("registry.schema_placeholder")
                if self.parameters is Ellipsis
                else type(self.parameters).__name__
            )
            raise TypeError(tr("registry.schema_not_dict", name=self.name, got=got))
        unknown = unchecked_keywords(self.parameters)
        if unknown:
            raise ValueError(
                tr("registry.unchecked_schema", name=self.name, keywords=", ".join(unknown))
            )

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
        """``parameters`` as an object schema refusing keys it does not name."""
        params = {"type": "object", "properties": {}, **self.parameters}
        params.setdefault("additionalProperties", False)
        return params


class ToolRegistry:
    """Holds tools by name and executes calls to them safely."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        if isinstance(tools, Tool | dict | str) or not isinstance(tools, Iterable):
            raise TypeError(tr("registry.not_a_list", type=type(tools).__name__))
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> Tool:
        if not isinstance(tool, Tool):  # e.g. the bare function, or its name
            raise TypeError(tr("registry.not_a_tool", type=type(tool).__name__))
        if tool.name in self._tools:
            raise ValueError(tr("registry.duplicate_tool", name=tool.name))
        self._tools[tool.name] = tool
        return tool

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def schemas(self) -> list[dict[str, Any]]:
        """The ``tools=`` list sent to the model, in registration order."""
        return [tool.schema() for tool in self._tools.values()]

    def call(self, name: str, arguments_json: str | None) -> ToolResult:
        """Run one tool call exactly as the model asked for it (no time limit)."""
        return self.run(name, arguments_json).result

    def run(self, name: str, arguments_json: str | None, seconds: float | None = None) -> ToolRun:
        """Run one call within ``seconds`` (``None``: no limit). Never raises."""
        tool = self._tools.get(name)
        if tool is None:
            allowed = ", ".join(self._tools) or tr("registry.no_tools")
            return ToolRun(
                error("UNKNOWN_TOOL", tr("registry.unknown_tool", name=name, allowed=allowed))
            )
        arguments = parse_arguments(arguments_json)
        if isinstance(arguments, str):  # a message saying why they are unusable
            return ToolRun(error("INVALID_ARGUMENTS", arguments))
        problem = schema_problem(tool.strict_parameters(), arguments)
        if problem:
            return ToolRun(error("INVALID_ARGUMENTS", f"{name}: {problem}"))
        # The tool's own cap counts when it ends before the run's deadline.
        capped = tool.timeout is not None and (seconds is None or tool.timeout < seconds)
        limit = tool.timeout if capped else seconds
        if tool.isolated:
            return _run_isolated(tool, arguments, limit, capped)
        try:
            return run_within(lambda: _execute(tool, arguments), limit, "tool")
        except TimedOut as late:
            return _overran(tool, late, capped)


@dataclass
class ToolRun:
    """What running one call gave: its result, and whether the time ran out."""

    result: ToolResult
    late: bool = False
    """The run's time ran out during the call: it was abandoned, killed (isolated),
    or, where no thread can start, finished late. Running out of the tool's own
    ``timeout`` is not late: that is a ``TIMEOUT`` result and the run goes on."""
    process: dict[str, Any] | None = None
    """Isolated tools: ``pid``, ``exitcode``, ``killed`` and ``killed_by`` (``SIGKILL``,
    or ``TerminateProcess`` on Windows) of the child process."""
    as_json: str | None = None
    """The result as JSON, when the check has already written it out (so it
    is encoded once; the model reads it, unless it is too long and cut)."""


def _execute(tool: Tool, arguments: dict[str, Any]) -> ToolRun:
    """Call the tool's function; whatever it raises or returns becomes a result."""
    try:
        result = tool.function(**arguments)
    # Named, not BaseException: KeyboardInterrupt (stopping the kernel) and an
    # exercise check's own time-up signal must pass through.
    except (Exception, SystemExit, GeneratorExit) as exc:  # a tool bug must not end the run
        return _tool_bug(tr("registry.raised", name=tool.name, error=described(exc)))
    return _checked(tool.name, result)


def _overran(tool: Tool, late: TimedOut, capped: bool) -> ToolRun:
    """An in-process call that did not return in time: abandoned, or (without
    threads) finished late."""
    if capped:
        key = "isolation.timeout_late" if late.finished else "isolation.timeout_abandoned"
        return ToolRun(error("TIMEOUT", tr(key, name=tool.name, seconds=tool.timeout)))
    if late.finished:  # it did run to the end: keep what it said; the run stops anyway
        return replace(late.value, late=True)  # _execute's checked ToolRun
    return ToolRun(error("TOOL_ABANDONED", tr("registry.abandoned", name=tool.name)), late=True)


def _run_isolated(
    tool: Tool, arguments: dict[str, Any], seconds: float | None, capped: bool
) -> ToolRun:
    child = run_in_child(tool.function, arguments, seconds)
    if child.unsendable:  # a lambda or a local function cannot go to another process
        message = tr("isolation.cannot_send", name=tool.name, error=child.unsendable)
        return ToolRun(error("TOOL_EXCEPTION", message))
    if child.unavailable:  # no process can start here (Pyodide): say so, go on
        message = tr("isolation.unavailable", name=tool.name, reason=child.unavailable)
        return ToolRun(error("TOOL_UNAVAILABLE", message))
    process = {
        "pid": child.pid,
        "exitcode": child.exitcode,
        "killed": child.killed,
        "killed_by": kill_signal_name() if child.killed else None,  # as shown on this machine
    }
    if child.killed and capped:
        message = tr(
            "isolation.timeout_killed", name=tool.name, seconds=tool.timeout, how=kill_signal_name()
        )
        return ToolRun(error("TIMEOUT", message), process=process)
    if child.killed:
        message = tr("registry.killed", name=tool.name, how=kill_signal_name())
        return ToolRun(error("TOOL_KILLED", message), late=True, process=process)
    if child.error:
        message = tr("registry.raised", name=tool.name, error=child.error)
        return ToolRun(error("TOOL_EXCEPTION", message), process=process)
    return replace(_checked(tool.name, child.value), process=process)


def _checked(name: str, result: Any) -> ToolRun:
    """``result`` (with its JSON) if it is a well-formed tool result the model
    can read as JSON.

    An ``ok`` result has no error; an ``error`` result has a code and a
    message (both text). Anything else — or data that is not JSON, like a
    ``datetime`` — is the tool's bug, reported as ``TOOL_EXCEPTION``.
    """
    if not (isinstance(result, dict) and RESULT_KEYS <= result.keys()):
        return _tool_bug(tr("registry.not_a_result", name=name))
    fault = result["error"]
    if result["status"] == "ok":
        well_formed = fault is None
    else:
        well_formed = result["status"] == "error" and (
            isinstance(fault, dict)
            and isinstance(fault.get("code"), str)
            and isinstance(fault.get("message"), str)
        )
    if not well_formed:
        return _tool_bug(tr("registry.not_a_result", name=name))
    try:
        text = RESULT_JSON.encode(result)
    except RecursionError:  # nested deeper than even json.dumps can follow
        return _tool_bug(tr("registry.result_too_deep", name=name, limit=MAX_NESTING))
    except (TypeError, ValueError):  # a set, a datetime, a cycle (NaN is fine)
        return _tool_bug(tr("registry.not_json", name=name))
    if not few_brackets(text) and too_deep(result):
        return _tool_bug(tr("registry.result_too_deep", name=name, limit=MAX_NESTING))
    return ToolRun(result, as_json=text)


def _tool_bug(message: str) -> ToolRun:
    """A result the tool should not have returned, reported as ``TOOL_EXCEPTION``."""
    return ToolRun(error("TOOL_EXCEPTION", message))


def parse_arguments(arguments_json: str | None) -> dict[str, Any] | str:
    """The arguments as a dict, or a message saying why they are unusable."""
    if arguments_json is not None and not isinstance(arguments_json, str):
        # a model always sends text; a dict here is a person calling tools.call by hand
        return tr("registry.arguments_not_text", type=type(arguments_json).__name__)
    if arguments_json is None or not arguments_json.strip():
        return {}  # some providers send "" for a tool without parameters
    try:
        parsed = json.loads(arguments_json)
    except RecursionError:  # "[[[[…" nested deeper than Python can follow
        return tr("registry.too_deep", limit=MAX_NESTING)
    except ValueError as exc:  # JSONDecodeError, or an integer with too many digits
        if not isinstance(exc, json.JSONDecodeError):
            return tr("registry.bad_number", error=exc)
        shown = arguments_json if len(arguments_json) <= 200 else arguments_json[:200] + "..."
        return tr("registry.bad_json", reason=json_reason(exc), position=exc.pos, shown=shown)
    if not isinstance(parsed, dict):
        return tr("registry.not_an_object", type=_json_type(parsed))
    # the checks below, and json.dumps, follow nesting on Python's stack
    if not few_brackets(arguments_json) and too_deep(parsed):
        return tr("registry.too_deep", limit=MAX_NESTING)
    return parsed


def few_brackets(text: str) -> bool:
    """JSON text with at most ``MAX_NESTING`` brackets cannot nest deeper than
    that: the quick answer for nearly every call, before walking the value."""
    return text.count("{") + text.count("[") <= MAX_NESTING


def too_deep(value: Any, limit: int = MAX_NESTING) -> bool:
    """Are dicts and lists (or tuples) in ``value`` nested more than ``limit`` levels deep?

    Walked with a list rather than by recursion, so any depth can be measured.
    Example: ``too_deep({"a": {"b": 1}}, limit=1)`` -> ``True``.
    """
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            inside = list(item.values())
        elif isinstance(item, list | tuple):  # json.dumps writes a tuple as a list
            inside = list(item)
        else:
            continue
        if depth > limit:
            return True
        pending.extend((child, depth + 1) for child in inside)
    return False


def canonical_arguments(arguments_json: str | None) -> str:
    """The arguments spelled one way: keys sorted, no spaces, paths normalised.

    Text that is not JSON is kept as sent (stripped). Example:
    ``'{ "relative_path": "./sales.csv" }'`` -> ``'{"relative_path":"sales.csv"}'``.
    """
    try:
        parsed = json.loads(arguments_json) if arguments_json and arguments_json.strip() else {}
        spelled = _normalise_paths(parsed)
        return KEY_JSON.encode(spelled)
    except (ValueError, RecursionError):  # not JSON, a huge number, or nested too deep
        return (arguments_json or "").strip()


def call_key(name: str, arguments_json: str | None) -> str:
    """Tool name and canonical arguments: calls with the same key are the same call.

    Example: ``call_key("analyze_csv", '{"relative_path": "./sales.csv"}')`` ->
    ``'analyze_csv:{"relative_path":"sales.csv"}'``.
    """
    return f"{name}:{canonical_arguments(arguments_json)}"


def _normalise_paths(value: Any, key: str = "") -> Any:
    """``./a.csv`` and ``a.csv`` are one path: normalise values of keys ending in "path"."""
    if isinstance(value, dict):
        return {k: _normalise_paths(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalise_paths(v) for v in value]
    if isinstance(value, str) and key.endswith("path") and value.strip():
        return posixpath.normpath(value.strip())
    return value


# The argument check understands these keywords. A schema using any other
# (anyOf, $ref, format, ...) is refused when the tool is created, so nothing a
# schema says goes silently unchecked. tests/test_registry.py checks the
# verdicts against the jsonschema package, which does it all but takes over a
# second to import in the course's environment.
CHECKED_KEYWORDS = frozenset(
    {
        "type", "enum", "const", "properties", "required", "additionalProperties", "items",
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
        "minLength", "maxLength", "pattern", "minItems", "maxItems",
    }
)  # fmt: skip
ANNOTATIONS = frozenset({"description", "title", "default", "examples", "$comment"})
JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
    "null": (type(None),),
}


def unchecked_keywords(schema: Any, where: str = "") -> list[str]:
    """Where ``schema`` says something the argument check would not check as written.

    That is a keyword it does not know, or a known keyword with a value of
    the wrong kind (a ``pattern`` that is not a regular expression, a
    ``minimum`` that is not a number, ``items`` as a list, an unknown type
    name, ``additionalProperties`` as a schema). Example:
    ``{"properties": {"n": {"anyOf": [...]}}}`` -> ``["n.anyOf"]``.
    """
    if not isinstance(schema, dict):
        return [where.rstrip(".") or "(schema)"]
    found = [f"{where}{k}" for k in schema if k not in CHECKED_KEYWORDS | ANNOTATIONS]
    found += [f"{where}{k}" for k, value in schema.items() if not _usable(k, value)]
    for name, spec in (schema.get("properties") or {}).items():
        found += unchecked_keywords(spec, f"{where}{name}.")
    if isinstance(schema.get("items"), dict):  # a list of schemas is refused by _usable
        found += unchecked_keywords(schema["items"], f"{where}items.")
    return found


def _usable(keyword: str, value: Any) -> bool:
    """Is ``value`` of the kind the check reads for ``keyword``?"""

    def number(v: Any) -> bool:
        return isinstance(v, int | float) and not isinstance(v, bool)

    def count(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool) and v >= 0

    if keyword == "type":
        names = value if isinstance(value, list) else [value]
        return bool(names) and all(name in JSON_TYPES for name in names)
    if keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        return number(value)
    if keyword in ("minLength", "maxLength", "minItems", "maxItems"):
        return count(value)
    if keyword == "pattern":
        try:
            re.compile(value)
        except (re.error, TypeError):
            return False
        return True
    if keyword == "enum":
        return isinstance(value, list)
    if keyword == "required":
        return isinstance(value, list) and all(isinstance(k, str) for k in value)
    if keyword == "properties":
        return isinstance(value, dict)
    if keyword == "additionalProperties":
        return isinstance(value, bool)
    if keyword == "items":
        return isinstance(value, dict)
    return True  # const and the annotations take any value


def schema_problem(schema: dict[str, Any], value: Any) -> str | None:
    """The first way ``value`` breaks ``schema``, or None if it fits.

    Example: ``schema_problem({"type": "integer", "minimum": 1}, 0)`` ->
    ``"不能小于 1，实际是 0"``.
    """
    expected = schema.get("type")
    if expected is not None:
        names = expected if isinstance(expected, list) else [expected]
        if not any(_is_json_type(value, name) for name in names):
            return tr("registry.wrong_type", expected=" | ".join(names), actual=_json_type(value))
    if "enum" in schema and not any(_same(value, v) for v in schema["enum"]):
        return tr("registry.not_in_enum", allowed=schema["enum"], value=repr(value))
    if "const" in schema and not _same(value, schema["const"]):
        return tr("registry.not_const", expected=repr(schema["const"]), value=repr(value))
    if _is_json_type(value, "number"):
        return _number_problem(schema, value)
    if isinstance(value, str):
        return _string_problem(schema, value)
    if isinstance(value, list):
        return _array_problem(schema, value)
    if isinstance(value, dict):
        return _object_problem(schema, value)
    return None


def _object_problem(schema: dict[str, Any], value: dict[str, Any]) -> str | None:
    properties = schema.get("properties") or {}
    missing = [key for key in schema.get("required", []) if key not in value]
    if missing:
        return tr("registry.missing_required", names=", ".join(missing))
    if schema.get("additionalProperties") is False:
        extra = sorted(set(value) - set(properties))
        if extra:
            allowed = ", ".join(properties) or tr("registry.none")
            return tr("registry.unexpected", names=", ".join(extra), allowed=allowed)
    for key, item in value.items():
        problem = schema_problem(properties.get(key, {}), item)
        if problem:
            return tr("registry.field", name=key, problem=problem)
    return None


def _number_problem(schema: dict[str, Any], value: float) -> str | None:
    if "minimum" in schema and value < schema["minimum"]:
        return tr("registry.too_small", limit=schema["minimum"], value=value)
    if "maximum" in schema and value > schema["maximum"]:
        return tr("registry.too_large", limit=schema["maximum"], value=value)
    if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
        return tr("registry.not_above", limit=schema["exclusiveMinimum"], value=value)
    if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
        return tr("registry.not_below", limit=schema["exclusiveMaximum"], value=value)
    return None


def _string_problem(schema: dict[str, Any], value: str) -> str | None:
    if len(value) < schema.get("minLength", 0):
        return tr("registry.too_short", limit=schema["minLength"], length=len(value))
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        return tr("registry.too_long", limit=schema["maxLength"], length=len(value))
    if "pattern" in schema and not re.search(schema["pattern"], value):
        return tr("registry.no_match", pattern=schema["pattern"])
    return None


def _array_problem(schema: dict[str, Any], value: list[Any]) -> str | None:
    if len(value) < schema.get("minItems", 0):
        return tr("registry.too_few_items", limit=schema["minItems"], count=len(value))
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        return tr("registry.too_many_items", limit=schema["maxItems"], count=len(value))
    if isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            problem = schema_problem(schema["items"], item)
            if problem:
                return tr("registry.item", index=index, problem=problem)
    return None


def _is_json_type(value: Any, name: str) -> bool:
    if isinstance(value, bool) and name in ("integer", "number"):
        return False  # True is an int in Python, not a number in JSON
    if name == "integer" and isinstance(value, float):
        return value.is_integer()  # JSON does not tell 1 from 1.0
    return isinstance(value, JSON_TYPES.get(name, (object,)))


def _json_type(value: Any) -> str:
    for name in JSON_TYPES:
        if _is_json_type(value, name):
            return name
    return type(value).__name__


def _same(a: Any, b: Any) -> bool:
    """JSON equality: 1 == 1.0, but True is not 1, at any depth ([True] is not [1])."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b
