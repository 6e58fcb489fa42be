"""Tools the agent may call, and the registry that dispatches them.

- :mod:`agentlab.tools.registry`: ``Tool``, ``ToolRegistry``: whitelist dispatch.
- :mod:`agentlab.tools.result`: the tool result, ``ok``/``error``, error classes.
- :mod:`agentlab.tools.arguments`: arguments parsed and checked against the schema.
- :mod:`agentlab.tools.canonical`: one spelling per call (``call_key``).
- :mod:`agentlab.tools.sandbox`: keeping file paths inside their folder.
- :mod:`agentlab.tools.sales`: ``analyze_csv`` and ``sales_tools()`` (chapter 02).
- :mod:`agentlab.tools.files`: ``list_dir``/``read_text``/``write_text``/
  ``append_text``, ``file_tools()`` and ``sandbox_copy()`` (chapter 01).
- :mod:`agentlab.tools.isolation`: isolated tools, run in a child process.

Modules starting with ``_`` are plumbing: skip them on a first reading.
"""

from .files import file_tools, sandbox_copy
from .registry import Tool, ToolRegistry
from .result import ToolResult, error, ok
from .sales import analyze_csv, sales_tools
from .sandbox import resolve_inside

__all__ = [
    "Tool",
    "ToolRegistry",
    "ToolResult",
    "analyze_csv",
    "error",
    "file_tools",
    "ok",
    "resolve_inside",
    "sales_tools",
    "sandbox_copy",
]
