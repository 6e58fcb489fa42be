"""Failures: naming them, and what kind of failure each is.

:func:`failure_from` turns whatever a model request raised (an HTTP status, a
connection error, a timeout, a reply we cannot read) into a
:class:`ModelFailure` with a readable message and no secret in it. A request
can also fail inside a reply that arrived: an error event in a stream, an
error body sent with HTTP 200, a ``finish_reason`` such as ``content_filter``
(:data:`FINISH_FAILURES`).

Not every failure deserves a retry. Four classes, four reactions:

==============  ==================================  ================================
class           examples                            the loop
==============  ==================================  ================================
transient       timeouts, HTTP 429 and 5xx,         model requests are retried with
                connection errors                   backoff (``retry.py``)
invalid_input   bad arguments, file not found       fed back to the model
permission      sandbox refusal, out of credit      stops the run, never retried
logic           a check the task itself fails       normal feedback, not a failure
==============  ==================================  ================================

Only model requests are retried; a tool's error (classed by
``tools.result.tool_error_class``) goes back to the model, and the repeat and
no-progress guards bound how often it calls again. Running out of credit comes
as a 429 or a 403 but is not retried, and is not blamed on the key.
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
    """``http_status``, ``connection``, ``timeout``, ``bad_reply``, ``unsendable``; in
    a reply that arrived: ``stream_error``, ``empty_stream``, ``error_body`` (a 200
    holding only an error; MiniMax's way: ``base_resp``), ``service_error`` or
    ``blocked`` (its ``finish_reason``), ``call_lost``, ``refused``."""
    message: str
    status_code: int | None = None  # HTTP, or the numeric code an error body gave
    retry_after: float | None = None  # seconds the service asked us to wait, if it did
    code: str | None = None  # the error's own name, if its body gave one
    tokens: int = 0  # of a reply that arrived but failed: billed all the same


def failure_from(exc: Exception, secret: str | None = None) -> ModelFailure:
    """Name a failed request, the key (``secret``) blanked out of the message: a
    service may echo it back in an error."""
    failure = _named(exc)
    shown = shown_safely(failure.message, secret)
    return failure if shown == failure.message else replace(failure, message=shown)


def _named(exc: Exception) -> ModelFailure:
    body = getattr(exc, "body", None)
    if isinstance(exc, openai.APIStatusError):
        detail = error_detail(body) or exc.message
        message = tr("model.http_status", status=exc.status_code, detail=detail)
        wait = retry_after(exc.response)
        return ModelFailure("http_status", message, exc.status_code, wait, error_code(body))
    if isinstance(exc, openai.APITimeoutError):
        return ModelFailure("timeout", tr("model.timed_out"))
    if isinstance(exc, openai.APIConnectionError):
        return _connection_failure(exc)
    if isinstance(exc, UnicodeEncodeError):  # our own request: text UTF-8 cannot carry
        return ModelFailure("unsendable", tr("provider.unsendable", error=exc.reason))
    if type(exc) is openai.APIError and body is not None:  # an error event inside a stream
        message = tr("model.stream_error", detail=error_detail(body) or exc.message)
        return ModelFailure("stream_error", message, code=error_code(body))
    if isinstance(exc, RecursionError):  # the SDK's JSON parser, on a body nested too deep
        return ModelFailure("bad_reply", tr("model.not_json", detail=tr("provider.json_too_deep")))
    return ModelFailure("bad_reply", tr("model.bad_reply", error=f"{type(exc).__name__}: {exc}"))


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


# How the HTTP layer (httpcore, h11) says the service closed the connection. Only a
# reply that began can be cut short: the two call for different fixes (base_url, or a retry).
CLOSED_BEFORE_REPLY = "without sending a response"  # not even a status line came
CLOSED_MID_REPLY = "without sending complete message body"  # the body stopped short


def _connection_failure(exc: BaseException) -> ModelFailure:
    """The SDK says only "Connection error."; the error under it says why: a body
    labelled compressed that is not (a proxy's setting, not the network), an OS
    error (refused, reset, no such host, TLS), or the HTTP layer's words for a
    service that closed the connection before replying, or partway through."""
    causes: list[BaseException] = []
    cause: BaseException | None = exc
    while cause is not None:
        causes.append(cause)
        cause = cause.__cause__ or cause.__context__

    def first(kind: type | tuple[type, ...]) -> Any:
        return next((c for c in causes if isinstance(c, kind)), None)

    if undecodable := first(httpx2.DecodingError):
        error = str(undecodable) or type(undecodable).__name__
        return ModelFailure("bad_reply", tr("provider.bad_encoding", error=error))
    if os_error := first(OSError):
        return ModelFailure("connection", tr("model.unreachable", error=reason(os_error)))
    broke = first((httpx2.RemoteProtocolError, httpx2.ReadError))
    words = str(broke or exc)
    if broke and CLOSED_BEFORE_REPLY in words:
        return ModelFailure("connection", tr("model.closed_without_reply"))
    # a ReadError with no OS error under it: a recorded connection that broke (recording.py)
    if broke and (CLOSED_MID_REPLY in words or isinstance(broke, httpx2.ReadError)):
        return ModelFailure("connection", tr("model.connection_dropped"))
    return ModelFailure("connection", tr("model.unreachable", error=words))  # e.g. not HTTP


MAX_MESSAGE_CHARS = 1000
"""A failure's message is cut here: an error body can run to pages."""
HTML_START = re.compile(r"<(?:!doctype|html|head|body)\b", re.IGNORECASE)
HTML_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
HTML_TAG = re.compile(r"<[^>]*>")


def error_detail(body: Any) -> str | None:
    """The explanation in an error body, whatever its shape: ``{"message"}`` (vLLM),
    ``{"error": {"message"}}`` (OpenAI), ``{"error": "..."}``, a list of those
    (Gemini), a gateway's HTML page (its title); OpenRouter's upstream reason
    (``metadata.raw``) added to its own generic message."""
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
        raw = metadata["raw"]
        try:  # OpenRouter keeps the upstream's body as JSON text
            raw = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError:
            pass
        upstream = _detail(raw)
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


def error_in_body(error: Any) -> ModelFailure:
    """A reply holding only ``{"error": ...}``; its numeric code counts as a status."""
    code = error.get("code") if isinstance(error, dict) else None
    status = code if isinstance(code, int) and not isinstance(code, bool) else None
    detail = error_detail(error) or tr("model.no_choices")
    return ModelFailure(
        "error_body", tr("model.error_body", detail=detail), status, code=error_code(error)
    )


def base_resp_failure(base_resp: dict[str, Any]) -> ModelFailure:
    """MiniMax's way to fail: HTTP 200, ``choices: null`` and ``base_resp:
    {"status_code": 2061, "status_msg": "..."}``; its code is kept as the error's name."""
    code = str(base_resp.get("status_code"))
    detail = f"{base_resp.get('status_msg') or ''} (base_resp.status_code={code})".strip()
    return ModelFailure("base_resp", tr("model.error_body", detail=detail), code=code)


TRANSIENT_STATUS = frozenset({408, 409, 429})
NOT_RETRIED_CODES = frozenset({"insufficient_quota", "exceeded_current_quota_error", "1113"})
"""Out of credit, whatever the status (OpenAI: 429; Moonshot: 403 or 429; Zhipu's
``"1113"``, 余额不足或无可用资源包: 429): no retry will help."""
MINIMAX_RETRIED_CODES = frozenset({"1000", "1001", "1002", "1024", "1033"})
"""MiniMax ``base_resp`` codes whose documented fix is 请稍后再试 (try again later;
platform.minimaxi.com/docs/api-reference/errorcode)."""
FINISH_FAILURES = {
    "content_filter": "blocked",  # OpenAI, Azure: the provider's moderation stopped the reply
    "sensitive": "blocked",  # Zhipu: 内容被安全审核接口拦截
    "insufficient_system_resource": "service_error",  # DeepSeek: out of capacity mid-reply
    "network_error": "service_error",  # Zhipu: 模型推理异常
    "error": "service_error",  # OpenRouter, Mistral: the upstream failed
}
"""A documented ``finish_reason`` that says the reply did not end well, and its kind."""
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
