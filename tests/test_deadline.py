"""The run's one deadline: ``run_within`` where no thread can start."""

from __future__ import annotations

import time

import pytest

from agentlab.deadline import TimedOut, run_within, threads_available


def test_run_within_without_threads_runs_inline_and_reports_lateness(no_threads):
    assert not threads_available()
    assert run_within(lambda: 7, 1.0) == 7
    with pytest.raises(TimedOut) as late:
        run_within(lambda: (time.sleep(0.05), 8)[1], 0.01)
    assert late.value.finished and late.value.value == 8
    with pytest.raises(ZeroDivisionError):
        run_within(lambda: 1 / 0, 1.0)
