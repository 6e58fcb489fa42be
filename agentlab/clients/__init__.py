"""Model clients. Every one is a real ``openai.OpenAI``.

- :mod:`agentlab.clients.script`: what a scripted model says and sees — the
  turns (``Reply``, ``ToolCall``, ``HttpError``, ``Hang``, ``say``, ``call``)
  and the ``Conversation`` a policy reads.
- :mod:`agentlab.clients.wire`: the JSON and server-sent events a service
  sends (``Chunking`` says how streamed replies are cut).
- :mod:`agentlab.clients.scripted`: ``ScriptedClient``, answered in process.
- :mod:`agentlab.clients.behaviours`: ready-made policies and ``scripted()``.
- :mod:`agentlab.clients.real`: ``from_env()`` for an OpenAI-compatible service.
- :mod:`agentlab.clients.recording`: ``recording(client, path)`` records a run
  (no key in the file); ``ReplayClient(path)`` replays it keyless and offline.
"""

from .behaviours import BEHAVIOURS, honest_analyst, never_stops, scripted, todo_clerk
from .real import ModelConfigError, ModelSettings, from_env, load_settings
from .recording import Divergence, RecordingError, ReplayClient, recording
from .script import Conversation, Exchange, Hang, HttpError, Reply, ToolCall, call, say
from .scripted import RecordedRequest, ScriptedClient
from .wire import Chunking, estimate_tokens

__all__ = [
    "BEHAVIOURS",
    "Chunking",
    "Conversation",
    "Divergence",
    "Exchange",
    "Hang",
    "HttpError",
    "ModelConfigError",
    "ModelSettings",
    "RecordedRequest",
    "RecordingError",
    "ReplayClient",
    "Reply",
    "ScriptedClient",
    "ToolCall",
    "call",
    "estimate_tokens",
    "from_env",
    "honest_analyst",
    "load_settings",
    "never_stops",
    "recording",
    "say",
    "scripted",
    "todo_clerk",
]
