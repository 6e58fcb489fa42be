"""Model clients. Every one is a real ``openai.OpenAI``.

- :mod:`agentlab.clients.scripted`: ``ScriptedClient`` and the turn types
  (``Reply``, ``ToolCall``, ``HttpError``, ``Hang``, ``say``, ``call``) and
  ``Chunking`` for streamed replies.
- :mod:`agentlab.clients.behaviours`: ready-made policies and ``scripted()``.
- :mod:`agentlab.clients.real`: ``from_env()`` for an OpenAI-compatible service.
"""

from .behaviours import BEHAVIOURS, honest_analyst, never_stops, scripted
from .real import ModelConfigError, ModelSettings, from_env, load_settings
from .scripted import (
    Chunking,
    Conversation,
    Hang,
    HttpError,
    RecordedRequest,
    Reply,
    ScriptedClient,
    ToolCall,
    call,
    estimate_tokens,
    say,
)

__all__ = [
    "BEHAVIOURS",
    "Chunking",
    "Conversation",
    "Hang",
    "HttpError",
    "ModelConfigError",
    "ModelSettings",
    "RecordedRequest",
    "Reply",
    "ScriptedClient",
    "ToolCall",
    "call",
    "estimate_tokens",
    "from_env",
    "honest_analyst",
    "load_settings",
    "never_stops",
    "say",
    "scripted",
]
