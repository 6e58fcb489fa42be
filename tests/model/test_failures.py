"""failures.py: naming failed requests, and which of them are worth another try.

Only what this module was given for the replies of issue 32 is here: a body the HTTP
layer cannot decode, a request UTF-8 cannot carry, and the classes of the new kinds.
The rest of its behaviour is tested through the loop in ``tests/test_retry.py``,
``tests/test_socket_faults.py`` and ``tests/providers/``.
"""

from __future__ import annotations

import json

import httpx2
import pytest

from agentlab import Budget, run_agent
from agentlab.i18n import tr
from agentlab.model.failures import ModelFailure, failure_from, model_failure_class
from agentlab.model.request import request_turn
from agentlab.tools import ToolRegistry

from ..conftest import plain_client

BODY = {
    "id": "x",
    "object": "chat.completion",
    "created": 0,
    "model": "m",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "好了"}, "finish_reason": "stop"}
    ],
}


def labelled_gzip(request: httpx2.Request) -> httpx2.Response:
    """A plain JSON body under ``Content-Encoding: gzip`` (a proxy that unzipped it and
    kept the header; described in langgenius/dify issue 9275 for OpenAI-compatible
    models). Constructed."""
    headers = {"content-type": "application/json", "content-encoding": "gzip"}
    return httpx2.Response(200, headers=headers, content=json.dumps(BODY).encode())


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_a_body_labelled_gzip_that_is_not_is_named_not_called_unreachable(stream):
    failure = request_turn(plain_client(labelled_gzip), "m", [], [], stream=stream, on_text=None)
    assert isinstance(failure, ModelFailure) and failure.kind == "bad_reply"
    assert "Content-Encoding" in failure.message and "incorrect header check" in failure.message
    assert tr("model.unreachable", error="") not in failure.message
    assert model_failure_class(failure) == "invalid_input"  # the same proxy labels it again


def test_so_the_run_is_not_retried():
    result = run_agent(
        "x", client=plain_client(labelled_gzip), tools=ToolRegistry(), on_text=None,
        trace_dir=False, budget=Budget(max_retries=3, retry_backoff_s=0.01),
    )  # fmt: skip
    assert (result.stop_reason, result.model_requests) == ("model_error", 1)


def test_a_connection_error_without_a_decoding_error_is_still_transient():
    def refused(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("refused", request=request)

    failure = request_turn(plain_client(refused), "m", [], [])
    assert failure.kind == "connection" and model_failure_class(failure) == "transient"


def test_a_request_that_utf8_cannot_carry_is_named():
    """A lone surrogate that entered by another door (a tool's result) makes the SDK's
    own encoding fail before anything is sent (aider issue 3693, kimi-cli issue 2320
    report it as a connection error or a crash)."""
    sent: list[httpx2.Request] = []
    client = plain_client(lambda request: sent.append(request) or httpx2.Response(200, json=BODY))
    messages = [{"role": "tool", "tool_call_id": "c1", "content": "结果\ud83d"}]
    failure = request_turn(client, "m", messages, [])
    assert isinstance(failure, ModelFailure) and failure.kind == "unsendable" and not sent
    assert failure.message == tr("provider.unsendable", error="surrogates not allowed")
    assert model_failure_class(failure) == "invalid_input"


@pytest.mark.parametrize(
    "kind, expected",
    [("call_lost", "transient"), ("refused", "invalid_input"), ("unsendable", "invalid_input")],
)
def test_the_new_kinds_have_their_class(kind, expected):
    assert model_failure_class(ModelFailure(kind, "m")) == expected


def test_failure_from_names_a_decoding_error_under_the_sdks_connection_error():
    import openai

    request = httpx2.Request("POST", "http://x.invalid/v1/chat/completions")
    try:
        try:
            raise httpx2.DecodingError("Error -3 while decompressing data", request=request)
        except httpx2.DecodingError as inner:
            raise openai.APIConnectionError(request=request) from inner
    except openai.APIConnectionError as exc:
        failure = failure_from(exc)
    assert failure.kind == "bad_reply" and "Error -3" in failure.message
