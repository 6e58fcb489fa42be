"""What every tool call gives back: a *tool result*, checked before the model reads it.

``{"status": "ok"|"error", "data", "source", "error": {"code", "message"}}``:
``status`` is the tool status of this one execution (whether the whole run
succeeded is the run status). ``code`` is for programs and never changes with
the language; ``message`` is for the model and the student.
This module does not run tools: :mod:`agentlab.tools.registry` does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..i18n import tr

ToolResult = dict[str, Any]
RESULT_JSON = json.JSONEncoder(ensure_ascii=False)  # made once: the model reads UTF-8, not \u
MAX_NESTING = 64  # deeper arguments or results are refused: json and checks recurse on the stack


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


@dataclass
class ToolRun:
    """What running one call gave: its result, and whether the time ran out."""

    result: ToolResult
    late: bool = False
    """The run's time ran out during the call (abandoned, killed, or finished late
    where no thread can start). The tool's own ``timeout`` is a ``TIMEOUT`` result."""
    process: dict[str, Any] | None = None
    """Isolated tools: ``pid``, ``exitcode``, ``killed``, ``killed_by`` of the child."""
    as_json: str | None = None
    """The result as the model reads it, when :func:`checked` has written it out."""


def checked(name: str, result: Any) -> ToolRun:
    """``result`` and its JSON if it keeps the contract; else the tool's bug, ``TOOL_EXCEPTION``."""
    if not _well_formed(result):
        return _tool_bug(tr("registry.not_a_result", name=name))
    try:
        text = RESULT_JSON.encode(result)
    except RecursionError:  # nested deeper than even json.dumps can follow
        return _tool_bug(tr("registry.result_too_deep", name=name, limit=MAX_NESTING))
    except (TypeError, ValueError):  # a set, a datetime, a cycle (NaN is fine)
        return _tool_bug(tr("registry.not_json", name=name))
    if text.count("{") + text.count("[") > MAX_NESTING:  # only then can it nest that deep
        if too_deep(result):
            return _tool_bug(tr("registry.result_too_deep", name=name, limit=MAX_NESTING))
    return ToolRun(result, as_json=text)


def _well_formed(result: Any) -> bool:
    """All four keys; ``ok`` has no error, ``error`` has a text code and message."""
    if not (isinstance(result, dict) and {"status", "data", "source", "error"} <= result.keys()):
        return False
    fault = result["error"]
    if result["status"] == "ok":
        return fault is None
    return (
        result["status"] == "error"
        and isinstance(fault, dict)
        and isinstance(fault.get("code"), str)
        and isinstance(fault.get("message"), str)
    )


def _tool_bug(message: str) -> ToolRun:
    """A result the tool should not have returned."""
    return ToolRun(error("TOOL_EXCEPTION", message))


def too_deep(value: Any, limit: int = MAX_NESTING) -> bool:
    """Are dicts and lists in ``value`` nested more than ``limit`` levels deep?

    Walked with a list, not by recursion, so any depth can be measured.
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


TOOL_ERROR_CLASSES = {
    "TIMEOUT": "transient", "UNAVAILABLE": "transient", "RATE_LIMITED": "transient",
    "PATH_NOT_ALLOWED": "permission", "PERMISSION_DENIED": "permission",
    "POLICY_DENIED": "permission", "CHECK_FAILED": "logic", "TESTS_FAILED": "logic",
}  # fmt: skip


def tool_error_class(code: str | None) -> str:
    """What kind of failure a tool error code is: ``transient``, ``permission``,
    ``logic``, or (any other code) ``invalid_input``: fed back, never retried."""
    return TOOL_ERROR_CLASSES.get(code or "", "invalid_input")
