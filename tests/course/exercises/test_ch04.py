"""Chapter 04's checks (agentlab/course/exercises/ch04.py)."""

from __future__ import annotations

from agentlab.course.exercises.core import PASSED

from .conftest import verdict


def test_a_right_completion_check_written_as_a_callable_object_passes():
    def make_done_when(box, expected_total):
        class DoneWhen:
            def __call__(self, answer):
                report = box / "report.md"
                if not report.exists():
                    return "还没有 report.md"
                lines = [line.strip() for line in report.read_text(encoding="utf-8").splitlines()]
                return True if f"总销售额 {expected_total}" in lines else "总销售额不对"

        return DoneWhen()

    found = verdict("04-done-when", make_done_when)
    assert found.status == PASSED, found.detail
