"""Tools the agent may call, and the registry that dispatches them.

- :mod:`agentlab.tools.registry`: ``Tool``, ``ToolRegistry``, ``ok``/``error``.
- :mod:`agentlab.tools.sandbox`: keeping file paths inside their folder.
- :mod:`agentlab.tools.sales`: ``analyze_csv`` and ``sales_tools()`` (chapter 02).
- :mod:`agentlab.tools.files`: ``list_dir``/``read_text``/``write_text``/
  ``append_text``, ``file_tools()`` and ``sandbox_copy()`` (chapter 01).
"""

from .files import file_tools, sandbox_copy
from .registry import Tool, ToolRegistry, ToolResult, error, ok
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
