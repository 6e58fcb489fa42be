"""The loop_overhead scenario in peer agent frameworks, for comparison.

Each peer runs the same script as agentlab's rows: a fake model that asks
for ``tick`` until ``steps - 1`` results are in, then answers with how many
ticks it saw (counted from the tool results the framework handed back). The
fake models are each framework's own testing hook where it has one
(pydantic-ai's ``FunctionModel``), otherwise the smallest ``Model`` subclass
its docs describe. Nothing goes over HTTP, so these rows compare loop
machinery, not network stacks: put them next to "plain loop, fake client"
and "agentlab own overhead", not next to the SDK rows.

Only installed peers run (``pip install -r benchmarks/requirements-peers.txt``);
:func:`missing` names the others. Each runner returns the CPU seconds one
run of ``steps`` steps took (as loop_overhead.py times its own rows) and
checks the answer, so a peer that silently stopped early would fail loudly
rather than look fast.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable, Iterator

PEERS = {
    "smolagents ToolCallingAgent, fake model": "smolagents",
    "langgraph StateGraph, fake model": "langgraph",
    "pydantic-ai FunctionModel": "pydantic_ai",
    "openai-agents, fake model": "agents",
}

Runner = Callable[[int], float]


def missing() -> list[str]:
    return [module for module in PEERS.values() if importlib.util.find_spec(module) is None]


def available(task: str, answer_for: Callable[[int], str]) -> Iterator[tuple[str, Runner]]:
    builders = {
        "smolagents": _smolagents,
        "langgraph": _langgraph,
        "pydantic_ai": _pydantic_ai,
        "agents": _openai_agents,
    }
    for name, module in PEERS.items():
        if importlib.util.find_spec(module) is not None:
            yield name, builders[module](task, answer_for)


def _timed(run: Callable[[], str], expected: str) -> float:
    started = time.process_time()
    answer = run()
    took = time.process_time() - started
    assert expected in str(answer), f"peer answered {answer!r}, expected {expected!r}"
    return took


# -- smolagents ----------------------------------------------------------------------


def _smolagents(task: str, answer_for: Callable[[int], str]) -> Runner:
    from smolagents import ChatMessage, Model, ToolCallingAgent, tool
    from smolagents.models import ChatMessageToolCall, ChatMessageToolCallFunction

    @tool
    def tick() -> int:
        """Return one tick."""
        return 1

    class FakeModel(Model):
        def __init__(self, steps: int) -> None:
            super().__init__(model_id="fake")
            self.steps, self.requests = steps, 0

        def generate(
            self,
            messages,
            stop_sequences=None,
            response_format=None,
            tools_to_call_from=None,
            **kwargs,
        ):
            self.requests += 1
            if self.requests < self.steps:
                name, arguments = "tick", {}
            else:  # smolagents answers through its final_answer tool
                ticks = sum(_tool_outputs(messages))
                name, arguments = "final_answer", {"answer": f"I saw {ticks} ticks."}
            function = ChatMessageToolCallFunction(name=name, arguments=arguments)
            call = ChatMessageToolCall(
                id=f"call_{self.requests}", type="function", function=function
            )
            return ChatMessage(role="assistant", content=None, tool_calls=[call])

    def _tool_outputs(messages) -> Iterator[int]:
        for message in messages:  # observations come back as "Observation:\n<value>"
            if getattr(message.role, "value", message.role) == "tool-response":
                text = "".join(part.get("text", "") for part in message.content or [])
                yield int(text.removeprefix("Observation:").strip())

    def run(steps: int) -> float:
        agent = ToolCallingAgent(
            tools=[tick], model=FakeModel(steps), max_steps=steps + 1, verbosity_level=-1
        )
        return _timed(lambda: agent.run(task), answer_for(steps))

    return run


# -- langgraph -----------------------------------------------------------------------


def _langgraph(task: str, answer_for: Callable[[int], str]) -> Runner:
    from langchain_core.messages import AIMessage, ToolMessage
    from langchain_core.tools import tool
    from langgraph.graph import END, START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode, tools_condition

    @tool
    def tick() -> int:
        """Return one tick."""
        return 1

    def build(steps: int):
        def model(state: MessagesState) -> dict:
            requests = sum(isinstance(m, AIMessage) for m in state["messages"]) + 1
            if requests < steps:
                call = {"name": "tick", "args": {}, "id": f"call_{requests}", "type": "tool_call"}
                return {"messages": [AIMessage(content="", tool_calls=[call])]}
            ticks = sum(int(m.content) for m in state["messages"] if isinstance(m, ToolMessage))
            return {"messages": [AIMessage(content=f"I saw {ticks} ticks.")]}

        graph = StateGraph(MessagesState)
        graph.add_node("model", model)
        graph.add_node("tools", ToolNode([tick]))
        graph.add_edge(START, "model")
        graph.add_conditional_edges("model", tools_condition, {"tools": "tools", END: END})
        graph.add_edge("tools", "model")
        return graph.compile()

    def run(steps: int) -> float:
        app = build(steps)
        config = {"recursion_limit": 2 * steps + 5}  # each step is two graph hops
        return _timed(
            lambda: app.invoke({"messages": [("user", task)]}, config)["messages"][-1].content,
            answer_for(steps),
        )

    return run


# -- pydantic-ai ---------------------------------------------------------------------


def _pydantic_ai(task: str, answer_for: Callable[[int], str]) -> Runner:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import FunctionModel
    from pydantic_ai.usage import UsageLimits

    def tick() -> int:
        """Return one tick."""
        return 1

    def build(steps: int) -> Agent:
        def respond(messages, info) -> ModelResponse:
            requests = sum(isinstance(m, ModelResponse) for m in messages) + 1
            if requests < steps:
                return ModelResponse(parts=[ToolCallPart("tick", {}, f"call_{requests}")])
            ticks = sum(
                part.content
                for m in messages
                for part in getattr(m, "parts", [])
                if isinstance(part, ToolReturnPart)
            )
            return ModelResponse(parts=[TextPart(f"I saw {ticks} ticks.")])

        return Agent(FunctionModel(respond), tools=[tick])

    def run(steps: int) -> float:
        agent = build(steps)
        limits = UsageLimits(request_limit=steps + 1)
        return _timed(lambda: agent.run_sync(task, usage_limits=limits).output, answer_for(steps))

    return run


# -- openai-agents -------------------------------------------------------------------


def _openai_agents(task: str, answer_for: Callable[[int], str]) -> Runner:
    from agents import Agent, Model, ModelResponse, RunConfig, Runner, Usage, function_tool
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    @function_tool
    def tick() -> int:
        """Return one tick."""
        return 1

    class FakeModel(Model):
        def __init__(self, steps: int) -> None:
            self.steps, self.requests = steps, 0

        async def get_response(self, system_instructions, input, *args, **kwargs):
            self.requests += 1
            if self.requests < self.steps:
                output = [
                    ResponseFunctionToolCall(
                        id=f"fc_{self.requests}",
                        call_id=f"call_{self.requests}",
                        type="function_call",
                        name="tick",
                        arguments="{}",
                    )
                ]
            else:
                ticks = sum(
                    int(item["output"])
                    for item in input
                    if isinstance(item, dict) and item.get("type") == "function_call_output"
                )
                text = ResponseOutputText(
                    text=f"I saw {ticks} ticks.", type="output_text", annotations=[]
                )
                output = [
                    ResponseOutputMessage(
                        id="msg",
                        type="message",
                        role="assistant",
                        status="completed",
                        content=[text],
                    )
                ]
            return ModelResponse(output=output, usage=Usage(), response_id=None)

        def stream_response(self, *args, **kwargs):
            raise NotImplementedError("the benchmark does not stream")

    config = RunConfig(tracing_disabled=True)  # no exporter, no network

    def run(steps: int) -> float:
        agent = Agent(name="bench", instructions=task, model=FakeModel(steps), tools=[tick])
        return _timed(
            lambda: (
                Runner.run_sync(agent, task, max_turns=steps + 1, run_config=config).final_output
            ),
            answer_for(steps),
        )

    return run
