"""Retrying a failed request, the classes of failures, and keys kept out of
messages: ``retry.py`` and ``failures.py`` asked directly, with fixed numbers.

The loop-level behaviour (retries really made, waits really slept) is tested
over sockets in ``test_socket_faults.py``; here each rule is pinned at its edge.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from types import SimpleNamespace

import pytest

from agentlab import Budget
from agentlab.i18n import tr
from agentlab.loop.decide import retry_or_stop
from agentlab.loop.result import Stop
from agentlab.model.failures import (
    ModelFailure,
    model_failure_class,
    retry_after,
)
from agentlab.model.retry import MAX_RETRY_WAIT_S
from agentlab.model.secrets import without_secret


@dataclass
class FixedDeadline:
    """A deadline with exactly ``left`` seconds to go, whenever it is asked."""

    left: float | None
    max_seconds: float | None = 10.0

    def remaining(self) -> float | None:
        return self.left


def wait_after(
    attempt: int, failure: ModelFailure, left: float | None = None, **budget
) -> float | Stop:
    budget = {"max_retries": 5, "retry_backoff_s": 0.2, **budget}
    return retry_or_stop(attempt, failure, Budget(**budget), FixedDeadline(left))


BUSY = ModelFailure("http_status", "busy", 429)


def test_the_wait_doubles_on_every_attempt():
    assert [wait_after(n, BUSY) for n in range(4)] == pytest.approx([0.2, 0.4, 0.8, 1.6])


def test_a_longer_retry_after_wins_and_a_wait_as_long_as_the_time_left_stops_at_once():
    assert wait_after(0, ModelFailure("http_status", "busy", 429, retry_after=3.0)) == 3.0
    stop = wait_after(0, BUSY, left=0.2)  # sleeping until the deadline would be pointless
    assert (stop.reason, stop.phase) == ("deadline", "decide")
    assert wait_after(0, BUSY, left=0.21) == pytest.approx(0.2)


def test_a_service_asking_for_more_than_a_minute_is_a_failed_request():
    ask = ModelFailure("http_status", "busy", 429, retry_after=MAX_RETRY_WAIT_S + 0.5)
    assert wait_after(0, ask).reason == "model_error"
    assert (
        wait_after(0, ModelFailure("http_status", "busy", 429, retry_after=MAX_RETRY_WAIT_S))
        == 60.0
    )


@pytest.mark.parametrize("status", [401, 403])
def test_a_refused_key_is_not_retried_and_says_to_check_the_key(status):
    stop = wait_after(0, ModelFailure("http_status", "no", status))
    assert stop.reason == "model_error" and tr("model.check_key") in stop.message


@pytest.mark.parametrize(
    "failure, expected",
    [
        (ModelFailure("http_status", "", 409), "transient"),
        (ModelFailure("http_status", "", 503), "transient"),
        (ModelFailure("http_status", "", 400), "invalid_input"),
        (ModelFailure("http_status", "", 403), "permission"),
        (ModelFailure("http_status", "", 429, code="insufficient_quota"), "permission"),
        (ModelFailure("error_body", ""), "transient"),  # the reply had begun: HTTP 200
        (ModelFailure("error_body", "", 400), "invalid_input"),  # its own code said 400
        (ModelFailure("empty_stream", ""), "transient"),
        (ModelFailure("stream_error", ""), "transient"),
        (ModelFailure("blocked", ""), "invalid_input"),
    ],
)
def test_each_model_failure_has_its_class(failure, expected):
    assert model_failure_class(failure) == expected


def headers(**values: str) -> SimpleNamespace:
    return SimpleNamespace(headers={k.replace("_", "-"): v for k, v in values.items()})


def test_retry_after_in_milliseconds_seconds_or_a_date():
    assert retry_after(headers(retry_after_ms="1500")) == 1.5
    assert retry_after(headers(retry_after="3")) == 3.0
    past = format_datetime(datetime.now(UTC) - timedelta(minutes=5), usegmt=True)
    assert retry_after(headers(retry_after=past)) == 0.0
    soon = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    assert 25 < retry_after(headers(retry_after=soon)) <= 30
    assert retry_after(headers(retry_after="soon")) is None


@pytest.mark.parametrize(
    "echoed",
    [
        "key sk-a/b+c=d1 is wrong",  # as sent
        'key "sk-a\\/b+c=d1" is wrong',  # escaped for JSON by a PHP or Java server
        "key=sk-a%2Fb%2Bc%3Dd1 is wrong",  # quoted for a URL
    ],
)
def test_a_key_is_blanked_however_the_server_spelled_it(echoed):
    assert "***" in without_secret(echoed, "sk-a/b+c=d1", "***")


def test_a_key_of_eight_characters_is_blanked_and_a_shorter_one_is_not():
    assert without_secret("key 12345678 wrong", "12345678", "***") == "key *** wrong"
    assert without_secret("key 1234567 wrong", "1234567", "***") == "key 1234567 wrong"
