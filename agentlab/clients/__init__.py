"""Model clients. Every one is a real ``openai.OpenAI``: scripted and answered
in process (``script``, ``wire``, ``scripted``, ``behaviours``), configured for
a real service (``real``), or recording and replaying one (``recording``).
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
