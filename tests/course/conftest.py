"""What the run display's tests share: every run the chapters show, played once."""

from __future__ import annotations

import pytest

from ..display_scenarios import course_runs


@pytest.fixture(scope="session")
def runs(tmp_path_factory):
    """``task_id`` -> RunResult of every scenario in ``tests/display_scenarios.py``, traced."""
    return course_runs(tmp_path_factory.mktemp("runs"))
