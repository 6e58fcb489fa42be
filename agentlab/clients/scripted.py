"""Scripted model clients: real ``openai.OpenAI`` objects answered in process.

A :class:`ScriptedClient` *is* an ``openai.OpenAI`` whose HTTP client uses an
in-process ``httpx2.MockTransport``, so the SDK builds every request and parses
every reply exactly as it would with a real service: no key, no network, same
loop code. Behind the transport a :class:`ScriptedService` keeps each request
(``client.requests``: the messages, tools and ``tool_choice`` the model was
given), asks the script (``script.py``) for the next turn and answers in the
service's wire format (``wire.py``): JSON, or server-sent events for ``stream:
true``. Copies (``with_options``, ``copy``) share the script and the requests.

The behaviours (an honest analyst, a model that never stops ...) live in
``behaviours.py``; this module decides nothing itself.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx2
from openai import OpenAI

from ..i18n import tr
from .script import Conversation, Hang, HttpError, Policy, Reply, Turn, play_in_order
from .wire import Chunking, completion_body, error_body, prompt_tokens_sent, sse, stream_chunks

SCRIPTED_BASE_URL = "http://scripted.agentlab.invalid/v1"


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the scripted service received it."""

    number: int
    model: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    stream: bool
    tool_choice: Any = None


@dataclass
class ScriptedService:
    """The in-process "model service": answers each request from the script."""

    policy: Policy
    name: str = "scripted"
    chunking: Chunking = field(default_factory=Chunking)
    requests: list[RecordedRequest] = field(default_factory=list)

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        if not request.url.path.endswith("/chat/completions"):
            return _error(404, tr("scripted.no_such_path", path=request.url.path))
        body = json.loads(request.content)
        recorded = RecordedRequest(
            number=len(self.requests) + 1,
            model=body.get("model", ""),
            messages=body.get("messages", []),
            tools=body.get("tools", []),
            stream=bool(body.get("stream")),
            tool_choice=body.get("tool_choice"),
        )
        self.requests.append(recorded)
        try:
            turn = self.policy(Conversation(recorded.messages, recorded.tools, recorded.number))
        except Exception as exc:  # a broken script is a failing service, not a crash
            return _error(500, tr("scripted.policy_raised", error=f"{type(exc).__name__}: {exc}"))
        if isinstance(turn, Hang):
            time.sleep(turn.seconds)  # blocks this request only; the loop may give up on it
            turn = turn.then
        if not isinstance(turn, Reply | HttpError):  # a script's bug, said as such
            return _error(500, tr("scripted.bad_turn", got=type(turn).__name__))
        if isinstance(turn, HttpError):
            return _error(turn.status, turn.message)
        prompt = prompt_tokens_sent(request.content, body)
        completion = completion_body(turn, recorded.number, recorded.model, prompt)
        if not recorded.stream:
            return httpx2.Response(200, json=completion)
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        chunks = stream_chunks(completion, self.chunking, include_usage)
        return httpx2.Response(
            200, headers={"content-type": "text/event-stream"}, content=sse(chunks)
        )


class ScriptedClient(OpenAI):
    """An ``openai.OpenAI`` whose replies come from a script, not a server.

    ``script`` is a list of turns or a policy (see ``script.py``); other
    keyword arguments are the SDK's own client options.
    """

    def __init__(
        self,
        script: Policy | Sequence[Turn] | None = None,
        *,
        name: str = "scripted",
        chunking: Chunking | None = None,
        service: ScriptedService | None = None,
        **options: Any,
    ) -> None:
        if service is None:
            if script is None:
                raise TypeError(tr("scripted.needs_script"))
            policy = script if callable(script) else play_in_order(script)
            service = ScriptedService(policy, name, chunking or Chunking())
        self.service = service
        options.setdefault("api_key", "scripted-no-key")
        options.setdefault("base_url", SCRIPTED_BASE_URL)
        options.setdefault("max_retries", 0)  # request counts stay honest; retries are the loop's
        if options.get("http_client") is None:
            options["http_client"] = httpx2.Client(transport=httpx2.MockTransport(service.handle))
        super().__init__(**options)

    def copy(self, **options: Any) -> ScriptedClient:
        """A client with other SDK options, answered by the same script."""
        extra = {**options.pop("_extra_kwargs", {}), "service": self.service}
        return super().copy(**options, _extra_kwargs=extra)

    with_options = copy

    @property
    def requests(self) -> list[RecordedRequest]:
        return self.service.requests

    def __repr__(self) -> str:
        return f"ScriptedClient({self.service.name!r}, requests={len(self.requests)})"


def _error(status: int, message: str) -> httpx2.Response:
    return httpx2.Response(status, json=error_body(status, message))
