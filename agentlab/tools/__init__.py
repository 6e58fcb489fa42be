"""Tools the agent may call, and the registry that dispatches them.

``registry.py`` holds tools by name and runs a call (``Tool``, ``ToolRegistry``);
``result.py`` is what every call gives back (``ok``, ``error``); ``arguments.py``
and ``canonical.py`` read a call's arguments; ``sandbox.py`` keeps file paths
inside their folder; ``files.py`` (chapter 01) and ``sales.py`` (chapter 02)
are the course's tools; ``isolation.py`` runs a tool in a child process.
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
