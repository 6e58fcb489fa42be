"""Retrying a failed model request: whether to, and how long to wait first.

Only transient failures (timeouts, connection errors, HTTP 408/409/429/5xx,
a service failing mid-reply) are worth another attempt, and only
``budget.max_retries`` times. The wait is ``retry_backoff_s`` doubled on
every attempt (0.2 s, 0.4 s, 0.8 s, …), or what the service asked for with
``Retry-After`` / ``retry-after-ms`` if that is longer. The wait comes out
of the run's one deadline: a wait that cannot end before the deadline stops
the run at once (``deadline``) instead of sleeping until it; a service
asking for more than a minute is treated as a failed request
(``model_error``).

This module only decides; the decide phase (``request.py``) counts the
attempts, sleeps and asks again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..i18n import tr
from ..loop.result import Stop
from .failures import NOT_RETRIED_CODES, ModelFailure, model_failure_class

if TYPE_CHECKING:
    from ..deadline import Deadline
    from ..loop.budget import Budget


MAX_RETRY_WAIT_S = 60.0  # a Retry-After longer than this is not worth waiting for


def retry_wait(
    attempt: int, failure: ModelFailure, budget: Budget, deadline: Deadline
) -> float | Stop:
    """Seconds to wait before asking again after attempt ``attempt`` (0 = the
    first) failed, or the ``Stop`` that ends the run instead.

    Example: with ``max_retries=2`` and ``retry_backoff_s=0.2``, a 429 without
    ``Retry-After`` gives 0.2 after attempt 0, 0.4 after attempt 1, and a
    ``model_error`` stop after attempt 2.
    """
    kind = model_failure_class(failure)
    if kind != "transient" or attempt >= budget.max_retries:
        attempts = tr("model.attempts", n=attempt + 1) if attempt else ""
        message = tr("model.failed", kind=kind, attempts=attempts, detail=failure.message)
        if failure.code in NOT_RETRIED_CODES:  # first: Moonshot says it with a 403
            message += tr("model.check_quota")
        elif failure.status_code in (401, 403):
            message += tr("model.check_key")
        return Stop("model_error", message)
    wait = max(budget.retry_backoff_s * 2**attempt, failure.retry_after or 0.0)
    left = deadline.remaining()
    if left is not None and wait >= left:  # no point sleeping until the deadline
        return Stop(
            "deadline",
            tr("deadline.no_time_to_retry", wait=f"{wait:.2f}", seconds=deadline.max_seconds),
            phase="decide",
        )
    if wait > MAX_RETRY_WAIT_S:
        return Stop(
            "model_error", tr("model.wait_too_long", detail=failure.message, wait=f"{wait:.0f}")
        )
    return wait
