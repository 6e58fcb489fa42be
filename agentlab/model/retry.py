"""Retrying a failed model request: whether it is worth it, and how long to wait.

Only transient failures (``failures.model_failure_class``) get another attempt,
``max_retries`` at most. This module only answers; the loop's decide phase
(``agentlab/loop/decide.py``) counts the attempts, weighs the wait against the
run's one deadline, sleeps and asks again.
"""

from __future__ import annotations

from ..i18n import tr
from .failures import NOT_RETRIED_CODES, ModelFailure, model_failure_class

MAX_RETRY_WAIT_S = 60.0  # a Retry-After longer than this is not worth waiting for


def retry_wait(
    attempt: int, failure: ModelFailure, max_retries: int, backoff_s: float
) -> float | None:
    """Seconds to wait before asking again after attempt ``attempt`` (0 = the
    first) failed, or ``None``: it is not worth another attempt. The wait is
    ``backoff_s`` doubled on every attempt, or what the service asked for
    (``Retry-After`` / ``retry-after-ms``) if that is longer.

    Example: with ``max_retries=2`` and ``backoff_s=0.2``, a 429 without
    ``Retry-After`` gives 0.2 after attempt 0, 0.4 after attempt 1, and
    ``None`` after attempt 2.
    """
    if model_failure_class(failure) != "transient" or attempt >= max_retries:
        return None
    return max(backoff_s * 2**attempt, failure.retry_after or 0.0)


def given_up(attempt: int, failure: ModelFailure) -> str:
    """The sentence a run ends with when the request is not tried again."""
    attempts = tr("model.attempts", n=attempt + 1) if attempt else ""
    message = tr(
        "model.failed", kind=model_failure_class(failure), attempts=attempts, detail=failure.message
    )
    if failure.code in NOT_RETRIED_CODES:  # first: Moonshot says it with a 403
        message += tr("model.check_quota")
    elif failure.status_code in (401, 403):
        message += tr("model.check_key")
    return message
