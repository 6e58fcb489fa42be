"""The tool registry: a whitelist of tools, each a JSON schema plus a function.

The model only *names* a tool and sends its arguments as JSON text;
:meth:`ToolRegistry.run` makes that one Python call and never raises: an
unknown name is ``UNKNOWN_TOOL``, arguments that do not fit the schema
``INVALID_ARGUMENTS``, whatever the function raises ``TOOL_EXCEPTION``. A call
gets the run's time left, or the tool's own ``timeout`` if that ends first:
out of its own time the model gets ``TIMEOUT``; out of the run's, the call is
abandoned (an isolated tool's child is killed) and the run ends.
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

    ``parameters`` is a JSON schema for an object; extra keys are refused unless
    it says otherwise: a model that invents an argument misunderstood the tool.
    """

    name: str
    description: str
    parameters: dict[str, Any]
    function: Callable[..., ToolResult]
    isolated: bool = False  # run in a child process, killed when the time is up
    timeout: float | None = None  # seconds one call may take (None: the run's deadline)
    check: Callable[[Any], Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_definition(self.name, self.function, self.timeout, self.parameters)
        # the schema compiled once (how a frozen dataclass sets a derived field)
        object.__setattr__(self, "check", schema_check(self.name, self.strict_parameters()))

    def schema(self) -> dict[str, Any]:
        """The entry for the ``tools=`` list of a chat-completions request."""
        described = {"name": self.name, "description": self.description}
        return {
            "type": "function",
            "function": {**described, "parameters": self.strict_parameters()},
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
    try:
        result = tool.function(**arguments)
    # a tool's bug must not end the run; Ctrl-C and an exercise's time-up signal pass through
    except (Exception, SystemExit, GeneratorExit) as exc:
        message = tr("registry.raised", name=tool.name, error=described(exc))
        return ToolRun(error("TOOL_EXCEPTION", message))
    return checked(tool.name, result)


def _overran(tool: Tool, late: TimedOut, capped: bool) -> ToolRun:
    """A call past its time: abandoned, or (where no thread can start) finished late."""
    if capped:  # the tool's own timeout: the model is told, the run goes on
        key = "isolation.timeout_late" if late.finished else "isolation.timeout_abandoned"
        return ToolRun(error("TIMEOUT", tr(key, name=tool.name, seconds=tool.timeout)))
    if late.finished:  # it did run to the end: keep what it said; the run stops anyway
        return replace(late.value, late=True)
    return ToolRun(error("TOOL_ABANDONED", tr("registry.abandoned", name=tool.name)), late=True)
