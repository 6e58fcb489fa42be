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
                connection errors                     backoff up to ``max_retries``
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

Tool error codes are mapped by :data:`TOOL_ERROR_CLASSES`; a code not listed
is treated as ``invalid_input`` (feed it back, do not retry). Retrying a
permission refusal or a failing test is the most common way to burn budget.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import quote

import openai

from .i18n import tr


@dataclass(frozen=True)
class ModelFailure:
    """The request failed; ``message`` says how, without any secret."""

    kind: str  # "http_status" | "connection" | "timeout" | "bad_reply"
    message: str
    status_code: int | None = None
    retry_after: float | None = None  # seconds the service asked us to wait, if it did


def failure_from(exc: Exception, secret: str | None = None) -> ModelFailure:
    """Name a failed request. ``secret`` (the API key) is blanked out of the
    message, in case a service echoes it back in an error."""
    if isinstance(exc, openai.APIStatusError):
        failure = ModelFailure(
            "http_status", _status_message(exc), exc.status_code, retry_after(exc.response)
        )
    elif isinstance(exc, openai.APITimeoutError):
        failure = ModelFailure("timeout", tr("model.timed_out"))
    elif isinstance(exc, openai.APIConnectionError):
        failure = ModelFailure("connection", tr("model.unreachable", error=exc))
    else:
        failure = ModelFailure(
            "bad_reply", tr("model.bad_reply", error=f"{type(exc).__name__}: {exc}")
        )
    hidden = without_secret(failure.message, secret, "***")
    return failure if hidden == failure.message else replace(failure, message=hidden)


def without_secret(text: str, secret: str | None, mask: str) -> str:
    """``text`` with ``secret`` replaced by ``mask``, also where a server echoed it
    escaped for JSON (``\\/``) or for a URL (``%2F``). Keys shorter than 8
    characters are left alone: they would blank out ordinary words."""
    if not secret or len(secret) < 8:
        return text
    escaped = json.dumps(secret)[1:-1]
    for spelling in {secret, escaped, escaped.replace("/", "\\/"), quote(secret, safe="")}:
        text = text.replace(spelling, mask)
    return text


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


def error_detail(body: Any) -> str | None:
    """The explanation in an error body, whatever its shape: ``{"message"}``
    (vLLM), ``{"error": {"message"}}`` (OpenAI, DeepSeek), ``{"error": "..."}``,
    or a list of those (Gemini's OpenAI-compatible endpoint)."""
    if isinstance(body, str):
        return body.strip() or None
    if isinstance(body, list):
        return next((d for d in map(error_detail, body) if d), None)
    if isinstance(body, dict):
        return error_detail(body.get("message")) or error_detail(body.get("error"))
    return None


TOOL_ERROR_CLASSES = {
    "TIMEOUT": "transient",
    "UNAVAILABLE": "transient",
    "RATE_LIMITED": "transient",
    "PATH_NOT_ALLOWED": "permission",
    "PERMISSION_DENIED": "permission",
    "POLICY_DENIED": "permission",
    "CHECK_FAILED": "logic",
    "TESTS_FAILED": "logic",
}
TRANSIENT_STATUS = frozenset({408, 409, 429})


def tool_error_class(code: str | None) -> str:
    """The class of a tool error code (unknown codes: ``invalid_input``)."""
    return TOOL_ERROR_CLASSES.get(code or "", "invalid_input")


def model_failure_class(failure: ModelFailure) -> str:
    """Transient failures are worth another attempt; the rest are not."""
    if failure.kind in ("timeout", "connection"):
        return "transient"
    status = failure.status_code or 0
    if status in TRANSIENT_STATUS or status >= 500:
        return "transient"
    if status in (401, 403):
        return "permission"
    return "invalid_input"
