"""What every tool call gives back: a *tool result*, checked before the model reads it.

``{"status": "ok"|"error", "data", "source", "error": {"code", "message"}}``:
``status`` is the tool status of one execution (not the run status); ``code``
is for programs and never changes with the language, ``message`` is for the
model and the student. Running tools is :mod:`agentlab.tools.registry`'s job.
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
    fault = {"code": code, "message": message}
    return {"status": "error", "data": None, "source": source or [], "error": fault}


@dataclass
class ToolRun:
    """What running one call gave: its result, and whether the time ran out."""

    result: ToolResult
    late: bool = False  # the run's time ran out during the call
    process: dict[str, Any] | None = None  # isolated: pid, exitcode, killed, killed_by
    as_json: str | None = None  # the result as the model reads it, once checked() wrote it


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
    if text.count("{") + text.count("[") > MAX_NESTING and too_deep(result):  # cheap test first
        return _tool_bug(tr("registry.result_too_deep", name=name, limit=MAX_NESTING))
    return ToolRun(result, as_json=text)


def _well_formed(result: Any) -> bool:
    """All four keys; ``ok`` has no error, ``error`` has a text code and message."""
    if not (isinstance(result, dict) and {"status", "data", "source", "error"} <= result.keys()):
        return False
    fault = result["error"]
    if result["status"] == "ok":
        return fault is None
    texts = isinstance(fault, dict) and all(
        isinstance(fault.get(k), str) for k in ("code", "message")
    )
    return result["status"] == "error" and texts


def _tool_bug(message: str) -> ToolRun:
    return ToolRun(error("TOOL_EXCEPTION", message))


def too_deep(value: Any, limit: int = MAX_NESTING) -> bool:
    """Are dicts and lists in ``value`` nested more than ``limit`` levels deep? (Walked
    with a list, not by recursion, so any depth can be measured.)"""
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            item = item.values()
        elif not isinstance(item, list | tuple):  # json.dumps writes a tuple as a list
            continue
        if depth > limit:
            return True
        pending.extend((child, depth + 1) for child in item)
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
