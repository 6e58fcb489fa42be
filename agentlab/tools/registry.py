"""The tool registry: a whitelist of tools, each a JSON schema plus a function.

The model only *names* a tool and sends its arguments as JSON text;
:meth:`ToolRegistry.run` turns that into one Python call and never raises: an
unknown name is ``UNKNOWN_TOOL``, arguments that do not fit the schema are
``INVALID_ARGUMENTS`` (``arguments.py``), whatever the function raises is
``TOOL_EXCEPTION``, and the answer is a tool result (``result.py``).

A call gets the run's time left, or the tool's own ``timeout`` if that ends
first. Out of its own time, the model gets ``TIMEOUT`` and the run goes on;
out of the run's time, the call is abandoned (an isolated tool's child
process is killed) and the run ends. Budgets, the loop and the model are
not known here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from ..deadline import TimedOut, run_within
from ..i18n import described, tr
from ._definition import check_definition, schema_check
from .arguments import read_arguments
from .canonical import call_key, canonical_arguments  # noqa: F401 (the loop imports them here)
from .isolation import run_isolated
from .result import RESULT_JSON, ToolResult, ToolRun, checked, error, ok, too_deep  # noqa: F401


@dataclass(frozen=True)
class Tool:
    """One tool: the name and schema the model sees, the function we run.

    ``parameters`` is a JSON schema for an object. Unless it says otherwise,
    extra keys are refused (``additionalProperties: false``): a model that
    invents an argument has misunderstood the tool.
    """

    name: str
    description: str
    parameters: dict[str, Any]
    function: Callable[..., ToolResult]
    isolated: bool = False
    """Run in a child process that is killed when the time is up (``isolation.py``).
    The function must then be picklable (defined at module level)."""
    timeout: float | None = None
    """Seconds one call may take (``None``: only the run's deadline counts)."""

    check: Callable[[Any], Any] = field(init=False, repr=False, compare=False)
    """The schema made into a function that raises for arguments it refuses."""

    def __post_init__(self) -> None:
        # A bad name, function, timeout or schema is refused here, saying which.
        check_definition(self.name, self.function, self.timeout, self.parameters)
        # Compiled once; a frozen dataclass sets its own derived field this way.
        object.__setattr__(self, "check", schema_check(self.name, self.strict_parameters()))

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
            message = tr("registry.unknown_tool", name=name, allowed=allowed)
            return ToolRun(error("UNKNOWN_TOOL", message))
        arguments = read_arguments(name, arguments_json, tool.check)
        if isinstance(arguments, str):  # a message saying what is wrong with them
            return ToolRun(error("INVALID_ARGUMENTS", arguments))
        # The tool's own cap counts when it ends before the run's deadline.
        capped = tool.timeout is not None and (seconds is None or tool.timeout < seconds)
        limit = tool.timeout if capped else seconds
        if tool.isolated:
            return run_isolated(tool.name, tool.function, arguments, limit, capped)
        try:
            return run_within(lambda: _execute(tool, arguments), limit, "tool")
        except TimedOut as late:
            return _overran(tool, late, capped)


def _execute(tool: Tool, arguments: dict[str, Any]) -> ToolRun:
    """Call the tool's function; whatever it raises or returns becomes a result."""
    try:
        result = tool.function(**arguments)
    # Named, not BaseException: KeyboardInterrupt (stopping the kernel) and an
    # exercise check's own time-up signal must pass through.
    except (Exception, SystemExit, GeneratorExit) as exc:  # a tool bug must not end the run
        return ToolRun(
            error("TOOL_EXCEPTION", tr("registry.raised", name=tool.name, error=described(exc)))
        )
    return checked(tool.name, result)


def _overran(tool: Tool, late: TimedOut, capped: bool) -> ToolRun:
    """An in-process call that did not return in time: abandoned, or (where no
    thread can start) finished late."""
    if capped:  # the tool's own timeout: the model is told, the run goes on
        key = "isolation.timeout_late" if late.finished else "isolation.timeout_abandoned"
        return ToolRun(error("TIMEOUT", tr(key, name=tool.name, seconds=tool.timeout)))
    if late.finished:  # it did run to the end: keep what it said; the run stops anyway
        return replace(late.value, late=True)
    return ToolRun(error("TOOL_ABANDONED", tr("registry.abandoned", name=tool.name)), late=True)
