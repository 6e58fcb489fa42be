"""Faults over a real socket: a client built by ``from_env()`` against a
misbehaving OpenAI-compatible server on 127.0.0.1 (tests/fault_server.py).

Each fault must be classified as the error-class table in ``failures.py``
says; transient ones are retried with backoff inside the budget and the
deadline; a 401 stops at once with a clear message that does not repeat the
key; a hung or trickling reply is cut off at the run's deadline.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from agentlab import Budget, run_agent
from agentlab.clients import from_env
from agentlab.i18n import tr
from agentlab.loop.trace import read_trace
from agentlab.tools import ToolRegistry

from .fault_server import FaultServer

pytestmark = pytest.mark.usefixtures("english")  # these tests read messages

KEY = "sk-agentlab-canary-5f3c9e2a7b"
SLACK_S = 0.1  # generous: thread hand-over and socket close on a busy 2-core machine


@pytest.fixture
def real_env(monkeypatch, tmp_path):
    """The environment of a student with a .env: real models switched on."""
    monkeypatch.delenv("AGENTLAB_OFFLINE", raising=False)
    for name in ("DASHSCOPE_API_KEY", "DEEPSEEK_API_KEY", "OLLAMA_MODEL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no .env of the developer's is found

    def configure(server: FaultServer) -> None:
        monkeypatch.setenv("LLM_API_KEY", KEY)
        monkeypatch.setenv("LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("LLM_MODEL", "fault-test")

    return configure


def run(server, configure, budget: Budget, stream=False, tmp_path=None, timeout=60.0):
    configure(server)
    client = from_env(timeout=timeout)
    started = time.monotonic()
    result = run_agent(
        "ping",
        client=client,
        tools=ToolRegistry(),
        model="fault-test",
        budget=budget,
        stream=stream,
        on_text=None,
        trace_dir=tmp_path,
    )
    return result, time.monotonic() - started


def decide_events(result) -> list[dict]:
    return [
        e
        for e in read_trace(result.trace_path)
        if e.get("phase") == "decide" and e["event"] == "phase"
    ]


@pytest.mark.parametrize("stream", [False, True])
def test_a_healthy_server_answers_through_the_real_http_stack(real_env, tmp_path, stream):
    with FaultServer() as server:
        result, _ = run(server, real_env, Budget(max_steps=2), stream, tmp_path)
    assert (result.outcome, result.answer) == ("completed", "pong 1")
    assert server.requests[0]["authorization"] == f"Bearer {KEY}"
    assert server.requests[0]["body"]["model"] == "fault-test"


@pytest.mark.parametrize(
    "fault, error_class",
    [
        ("500", "transient"),
        ("reset", "transient"),
        ("drop", "transient"),
        ("429:0", "transient"),
        ("hang", "transient"),
        ("401", "permission"),
    ],
)
def test_each_fault_is_classified_as_the_table_says(real_env, tmp_path, fault, error_class):
    # A hang is seen by the HTTP layer as a timeout (here the client's 0.2 s).
    timeout = 0.2 if fault == "hang" else 60.0
    with FaultServer([fault]) as server:
        result, _ = run(server, real_env, Budget(max_retries=0), tmp_path=tmp_path, timeout=timeout)
    assert (result.stop_reason, result.outcome) == ("model_error", "model_error")
    assert f"({error_class})" in result.warnings[-1]
    assert decide_events(result)[-1]["error_class"] == error_class


@pytest.mark.parametrize("stream", [False, True])
def test_a_connection_dropped_mid_reply_is_said_in_words(real_env, tmp_path, stream, monkeypatch):
    """The SDK says only "Connection error."; the run says the reply was cut off."""
    monkeypatch.setenv("AGENTLAB_LANG", "zh")
    with FaultServer(["drop"]) as server:
        result, _ = run(server, real_env, Budget(max_retries=0), stream, tmp_path)
    assert result.stop_reason == "model_error"
    assert tr("model.connection_dropped") in result.warnings[-1]
    assert "Connection error" not in result.warnings[-1]


@pytest.mark.parametrize("stream", [False, True])
def test_a_service_that_closes_without_replying_is_not_said_to_cut_its_reply(
    real_env, tmp_path, stream
):
    """Only a reply that began can be cut off: no byte of one came here."""
    with FaultServer(["close"]) as server:
        result, _ = run(server, real_env, Budget(max_retries=0), stream, tmp_path)
    assert result.stop_reason == "model_error"
    assert tr("model.connection_dropped") not in result.warnings[-1]
    assert tr("model.closed_without_reply") in result.warnings[-1]


@pytest.mark.parametrize("stream", [False, True])
def test_a_port_that_does_not_speak_http_is_not_said_to_cut_its_reply(real_env, tmp_path, stream):
    """A base_url at another service's port: the HTTP layer's own words say what came."""
    with FaultServer(["banner"]) as server:
        result, _ = run(server, real_env, Budget(max_retries=0), stream, tmp_path)
    assert result.stop_reason == "model_error"
    assert tr("model.connection_dropped") not in result.warnings[-1]
    assert "illegal status line" in result.warnings[-1]


@pytest.mark.parametrize("fault", ["500", "reset", "429:0"])
def test_transient_faults_are_retried_within_the_budget(real_env, tmp_path, fault):
    budget = Budget(max_retries=2, retry_backoff_s=0.01)
    with FaultServer([fault, fault, "ok"]) as server:
        result, _ = run(server, real_env, budget, tmp_path=tmp_path)
    assert (result.outcome, result.answer) == ("completed", "pong 3")
    assert result.model_requests == len(server.requests) == 3

    with FaultServer([fault] * 5) as server:
        result, _ = run(server, real_env, budget, tmp_path=tmp_path)
    assert result.stop_reason == "model_error" and "after 3 attempts" in result.warnings[-1]
    assert result.model_requests == len(server.requests) == 3  # never more than the budget


def test_retry_after_is_honoured(real_env, tmp_path):
    budget = Budget(max_retries=1, retry_backoff_s=0.0)
    with FaultServer(["429:150ms", "ok"]) as server:
        result, elapsed = run(server, real_env, budget, tmp_path=tmp_path)
    assert result.answer == "pong 2"
    assert elapsed >= 0.15  # it waited as asked, not the 0 s backoff


def test_a_retry_that_cannot_fit_the_deadline_stops_at_once(real_env, tmp_path):
    budget = Budget(max_retries=3, retry_backoff_s=0.01, max_seconds=1.0)
    with FaultServer(["429:5", "ok"]) as server:
        result, elapsed = run(server, real_env, budget, tmp_path=tmp_path)
    assert result.stop_reason == "deadline" and len(server.requests) == 1
    assert "5.00 s away" in result.warnings[-1]
    assert elapsed < 0.5  # it did not sleep until the deadline


def test_backoff_waits_stay_inside_the_deadline(real_env, tmp_path):
    budget = Budget(max_retries=10, retry_backoff_s=0.02, max_seconds=0.3)
    with FaultServer(["500"] * 20) as server:
        result, elapsed = run(server, real_env, budget, tmp_path=tmp_path)
    assert result.stop_reason == "deadline" and elapsed <= 0.3 + SLACK_S
    assert 2 <= len(server.requests) < 11


def test_401_stops_at_once_with_a_clear_message_and_no_key(real_env, tmp_path):
    budget = Budget(max_retries=3, retry_backoff_s=0.01)
    with FaultServer(["401", "ok"]) as server:
        result, _ = run(server, real_env, budget, tmp_path=tmp_path)
    assert result.stop_reason == "model_error" and len(server.requests) == 1
    message = result.warnings[-1]
    assert "HTTP 401" in message and "check the API key" in message
    # The server echoed the key in its error; it is blanked everywhere we keep text.
    assert KEY not in message and "***" in message
    assert KEY not in Path(result.trace_path).read_text(encoding="utf-8")
    assert KEY not in json.dumps(result.messages) and KEY not in repr(result)


@pytest.mark.parametrize("fault", ["hang", "trickle"])
@pytest.mark.parametrize("stream", [False, True])
def test_a_hung_or_trickling_reply_stops_at_the_deadline(real_env, tmp_path, fault, stream):
    budget = Budget(max_seconds=0.3, max_retries=2)
    with FaultServer([fault] * 3) as server:
        result, elapsed = run(server, real_env, budget, stream, tmp_path)
    assert (result.stop_reason, result.phase) == ("deadline", "decide")
    assert elapsed <= 0.3 + SLACK_S
    assert result.messages[-1] == {"role": "user", "content": "ping"}  # history kept


def test_a_connection_failure_says_why_not_only_connection_error(real_env, tmp_path):
    """The SDK's own message is always "Connection error."; the OS error under it
    (here a reset, and a port nobody listens on) says what happened."""
    with FaultServer(["reset"]) as server:
        result, _ = run(server, real_env, Budget(max_retries=0), tmp_path=tmp_path)
        port = server.httpd.server_address[1]
    assert tr("os.reset") in result.warnings[-1]
    assert "Connection error" not in result.warnings[-1]
    gone = SimpleNamespace(base_url=f"http://127.0.0.1:{port}/v1")  # stopped: nothing listens
    result, _ = run(gone, real_env, Budget(max_retries=0), tmp_path=tmp_path)
    assert tr("os.refused") in result.warnings[-1]
