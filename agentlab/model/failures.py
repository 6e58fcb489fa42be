"""Failures: naming them, and what kind of failure each is.

:func:`failure_from` turns whatever a model request raised (an HTTP status,
a connection error, a timeout, a reply we cannot read) into a
:class:`ModelFailure` with a readable message and no secret in it, and reads
the wait a service asks for (``Retry-After``).

Then: what kind of failure is this, and what should the loop do?

Not every failure deserves a retry. Four classes, four reactions:

==============  ====================================  ==================================
class           examples                              the loop
==============  ====================================  ==================================
transient       timeouts, HTTP 429 and 5xx,           model requests are retried with
                connection errors, a service          backoff up to ``max_retries``
                failing mid-reply
invalid_input   bad arguments, file not found,        fed back to the model, which
                unknown tool, bad CSV                 should change its approach
permission      sandbox refusal, a denied action      stops the run (``policy_denied``)
                                                      by default, never retried
logic           a check the task itself fails         normal feedback: counted as a
                (tests fail, file not as expected)    step, not as a tool failure
==============  ====================================  ==================================

Only *model requests* are retried by the loop (how long to wait is
``retry.py``'s job). A transient *tool* error (``UNAVAILABLE``) is fed back
to the model like any other error: the model may call again, and the repeat
and no-progress guards bound how often.

A model request can also fail inside a reply that arrived: an error event in
a stream, an error body sent with HTTP 200, or a ``finish_reason`` such as
``content_filter`` (:data:`FINISH_FAILURES`). Running out of credit
(``insufficient_quota``, Moonshot's and Zhipu's own names for it) comes as a
429 or a 403 but is not retried, and is not blamed on the key.

Tool error codes are classed by ``agentlab.tools.result.tool_error_class``; a
code it does not list is ``invalid_input`` (feed it back, do not retry).
Retrying a permission refusal or a failing test is the most common way to
burn budget.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx2
import openai

from ..i18n import reason, tr
from .secrets import without_secret


@dataclass(frozen=True)
class ModelFailure:
    """The request failed; ``message`` says how, without any secret."""

    kind: str
    """``http_status``, ``connection``, ``timeout``, ``bad_reply``; ``stream_error``
    (an error event inside a stream), ``empty_stream`` (a stream with nothing in
    it), ``error_body`` (a 200 reply holding only an error), ``base_resp`` (the same,
    MiniMax's way), ``service_error`` or ``blocked`` (what its ``finish_reason`` said),
    ``call_lost`` (a reply that announced a tool call it does not hold), ``refused``
    (the model declined), ``unsendable`` (our request could not be encoded)."""
    message: str
    status_code: int | None = None
    """The HTTP status, or for ``error_body`` the numeric code the body gave."""
    retry_after: float | None = None  # seconds the service asked us to wait, if it did
    code: str | None = None
    """The error's own name, when its body gave one (``insufficient_quota``)."""
    tokens: int = 0
    """Tokens of a reply that arrived but failed (e.g. ``content_filter``): billed all the same."""


def failure_from(exc: Exception, secret: str | None = None) -> ModelFailure:
    """Name a failed request. ``secret`` (the API key) is blanked out of the
    message, in case a service echoes it back in an error."""
    if isinstance(exc, openai.APIStatusError):
        failure = ModelFailure(
            "http_status",
            _status_message(exc),
            exc.status_code,
            retry_after(exc.response),
            error_code(exc.body),
        )
    elif isinstance(exc, openai.APITimeoutError):
        failure = ModelFailure("timeout", tr("model.timed_out"))
    elif isinstance(exc, openai.APIConnectionError) and _undecodable(exc):
        # a reply came, labelled compressed but not: a proxy's setting, not the network
        failure = ModelFailure("bad_reply", tr("provider.bad_encoding", error=_undecodable(exc)))
    elif isinstance(exc, openai.APIConnectionError):
        failure = ModelFailure("connection", _connection_message(exc))
    elif isinstance(exc, UnicodeEncodeError):  # our own request: text UTF-8 cannot carry
        failure = ModelFailure("unsendable", tr("provider.unsendable", error=exc.reason))
    elif type(exc) is openai.APIError and exc.body is not None:
        # The SDK raises a bare APIError for an error event inside a stream
        # (OpenRouter: the upstream provider broke off after the reply began).
        detail = error_detail(exc.body) or exc.message
        failure = ModelFailure(
            "stream_error", tr("model.stream_error", detail=detail), code=error_code(exc.body)
        )
    elif isinstance(exc, RecursionError):  # the SDK's JSON parser, on a body nested too deep
        failure = ModelFailure(
            "bad_reply", tr("model.not_json", detail=tr("provider.json_too_deep"))
        )
    else:
        failure = ModelFailure(
            "bad_reply", tr("model.bad_reply", error=f"{type(exc).__name__}: {exc}")
        )
    shown = shown_safely(failure.message, secret)
    return failure if shown == failure.message else replace(failure, message=shown)


def shown_safely(message: str, secret: str | None) -> str:
    """``message`` without the key, then cut to :data:`MAX_MESSAGE_CHARS`. In
    that order: a cut through an echoed key would leave part of it."""
    text = without_secret(message, secret)
    return text if len(text) <= MAX_MESSAGE_CHARS else text[:MAX_MESSAGE_CHARS] + "…"


def retry_after(response: Any) -> float | None:
    """The wait a 429/503 asks for: ``retry-after-ms``, or ``Retry-After`` in
    seconds or as an HTTP date. ``None`` when absent or unreadable."""
    headers = getattr(response, "headers", None) or {}
    try:
        if headers.get("retry-after-ms"):
            return max(0.0, float(headers["retry-after-ms"]) / 1000)
        value = headers.get("retry-after")
        if not value:
            return None
        if value.strip().replace(".", "", 1).isdigit():
            return float(value)
        when = parsedate_to_datetime(value)
        return max(0.0, (when - datetime.now(UTC)).total_seconds())
    except (TypeError, ValueError):
        return None


def _status_message(exc: openai.APIStatusError) -> str:
    return tr(
        "model.http_status", status=exc.status_code, detail=error_detail(exc.body) or exc.message
    )


def _undecodable(exc: BaseException) -> str | None:
    """Why the body could not be decoded, when that is what the SDK's "Connection
    error." hides: a ``Content-Encoding`` (gzip, br …) the bytes do not have."""
    cause = exc.__cause__ or exc.__context__
    while cause is not None and not isinstance(cause, httpx2.DecodingError):
        cause = cause.__cause__ or cause.__context__
    if cause is None:
        return None
    return str(cause) or type(cause).__name__


# How the HTTP layer (httpcore, h11) says the service closed the connection. Only a
# reply that began can be cut short: the two call for different fixes (base_url, or a retry).
CLOSED_BEFORE_REPLY = "without sending a response"  # not even a status line came
CLOSED_MID_REPLY = "without sending complete message body"  # the body stopped short


def _connection_message(exc: BaseException) -> str:
    """The SDK says only "Connection error."; the error under it says why: an OS
    error (refused, reset, no such host, TLS), or the HTTP layer's words for a
    service that closed the connection before replying, or partway through."""
    causes = []
    cause: BaseException | None = exc
    while cause is not None:
        causes.append(cause)
        cause = cause.__cause__ or cause.__context__
    os_error = next((c for c in causes if isinstance(c, OSError)), None)
    if os_error is not None:
        return tr("model.unreachable", error=reason(os_error))
    broke = next(
        (c for c in causes if isinstance(c, httpx2.RemoteProtocolError | httpx2.ReadError)), None
    )
    if broke is None:
        return tr("model.unreachable", error=str(exc))
    words = str(broke)
    if CLOSED_BEFORE_REPLY in words:
        return tr("model.closed_without_reply")
    # a ReadError with no OS error under it: a recorded connection that broke (recording.py)
    if CLOSED_MID_REPLY in words or isinstance(broke, httpx2.ReadError):
        return tr("model.connection_dropped")
    return tr("model.unreachable", error=words)  # e.g. "illegal status line": not HTTP at all


MAX_MESSAGE_CHARS = 1000
"""A failure's message is cut here: an error body can run to pages."""
HTML_START = re.compile(r"<(?:!doctype|html|head|body)\b", re.IGNORECASE)
HTML_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
HTML_TAG = re.compile(r"<[^>]*>")


def error_detail(body: Any) -> str | None:
    """The explanation in an error body, whatever its shape: ``{"message"}``
    (vLLM), ``{"error": {"message"}}`` (OpenAI, DeepSeek), ``{"error": "..."}``,
    a list of those (Gemini's OpenAI-compatible endpoint), or a gateway's
    HTML page (its title). OpenRouter's upstream reason, which it keeps in
    ``metadata.raw``, is added to its own generic message. A body nested
    deeper than Python's stack can follow says so instead."""
    try:
        return _detail(body)
    except RecursionError:
        return tr("provider.json_too_deep")


def _detail(body: Any) -> str | None:
    if isinstance(body, str):
        return _readable(body)
    if isinstance(body, list):
        return next((d for d in map(_detail, body) if d), None)
    if not isinstance(body, dict):
        return None
    detail = _detail(body.get("message")) or _detail(body.get("error"))
    metadata = body.get("metadata")
    if isinstance(metadata, dict) and metadata.get("raw"):
        upstream = _detail(_json_or_text(metadata["raw"]))
        provider = metadata.get("provider_name")
        if upstream:
            reason = f"{provider}: {upstream}" if provider else upstream
            detail = f"{detail} ({reason})" if detail else reason
    return detail


def error_code(body: Any) -> str | None:
    """The error's name in its body (``code``, else ``type``), if it is text."""
    error = body.get("error", body) if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return None
    return next((v for v in (error.get("code"), error.get("type")) if isinstance(v, str)), None)


def _readable(text: str) -> str | None:
    """An error body that is text; if it is an HTML page, its title (or its words)."""
    text = text.strip().lstrip("\ufeff")
    if HTML_START.search(text[:500]):
        title = HTML_TITLE.search(text)
        words = title.group(1) if title else HTML_TAG.sub(" ", text)
        text = " ".join(html.unescape(words).split())
    return text or None


def base_resp_failure(base_resp: dict[str, Any]) -> ModelFailure:
    """MiniMax's way to fail: HTTP 200, ``choices: null`` and ``base_resp:
    {"status_code": 2061, "status_msg": "..."}``. Its code is MiniMax's, not an HTTP
    status, so it is kept as the error's name."""
    code = str(base_resp.get("status_code"))
    detail = f"{base_resp.get('status_msg') or ''} (base_resp.status_code={code})".strip()
    return ModelFailure("base_resp", tr("model.error_body", detail=detail), code=code)


def _json_or_text(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


TRANSIENT_STATUS = frozenset({408, 409, 429})
NOT_RETRIED_CODES = frozenset({"insufficient_quota", "exceeded_current_quota_error", "1113"})
"""Out of credit, whatever the status says: no retry will help. OpenAI sends
``insufficient_quota`` with a 429; Moonshot ``exceeded_current_quota_error``
(its ``type``) with a 403 or a 429; Zhipu its business code ``"1113"``
(余额不足或无可用资源包) with a 429."""

MINIMAX_RETRIED_CODES = frozenset({"1000", "1001", "1002", "1024", "1033"})
"""MiniMax ``base_resp`` codes whose documented fix is 请稍后再试 (try again later):
unknown error, timeout, rate limit, internal error, system error. Its error-code
page (platform.minimaxi.com/docs/api-reference/errorcode)."""

FINISH_FAILURES = {
    "content_filter": "blocked",  # OpenAI, Azure: the provider's moderation stopped the reply
    "sensitive": "blocked",  # Zhipu: 内容被安全审核接口拦截
    "insufficient_system_resource": "service_error",  # DeepSeek: out of capacity mid-reply
    "network_error": "service_error",  # Zhipu: 模型推理异常
    "error": "service_error",  # OpenRouter, Mistral: the upstream failed
}
"""A ``finish_reason`` that says the reply did not end well, and what kind of
failure that is. Documented values only: the providers' API references."""
KNOWN_FINISH_REASONS = frozenset({"stop", "length", "tool_calls", "function_call"})


def model_failure_class(failure: ModelFailure) -> str:
    """Transient failures are worth another attempt; the rest are not."""
    if failure.code in NOT_RETRIED_CODES:
        return "permission"  # the account may not use the service now
    # call_lost too: the same request usually gets a well-formed call the next time
    # (Gemini's MALFORMED_FUNCTION_CALL: pydantic-ai PR 3300 retries it for that reason)
    transient = ("timeout", "connection", "stream_error", "service_error", "empty_stream")
    if failure.kind in (*transient, "call_lost"):
        return "transient"
    if failure.kind == "base_resp":  # MiniMax's docs name the codes worth another try
        return "transient" if failure.code in MINIMAX_RETRIED_CODES else "invalid_input"
    if failure.kind == "error_body" and failure.status_code is None:
        return "transient"  # the reply had begun (HTTP 200) when the service failed
    if failure.kind == "blocked":
        return "invalid_input"  # the same request would be blocked again
    status = failure.status_code or 0
    if status in TRANSIENT_STATUS or status >= 500:
        return "transient"
    if status in (401, 403):
        return "permission"
    return "invalid_input"
