"""Chapter 02's checks (agentlab/course/exercises/ch02.py)."""

from __future__ import annotations

import agentlab.course.exercises as api
from agentlab.course.exercises import ch02
from agentlab.course.exercises.core import PASSED, WRONG
from agentlab.course.exercises.texts import tr

from .conftest import mistake, recursive_loop, verdict


def test_english_names_what_raised_apart_from_what_was_being_done(monkeypatch):
    """The feedback read "calling boom, a tool that raises raised ValueError"."""
    monkeypatch.setenv("AGENTLAB_LANG", "en")
    escapes = mistake("02-dispatch", "a tool's own exception escapes")
    message = api.render(verdict("02-dispatch", escapes))
    assert "a tool that raises: raised ValueError: cannot connect" in message, message


def test_a_right_capped_loop_written_another_way_passes():
    """Chapter 01's loop, the ending read off the last message, the pair as a list."""

    def capped_loop(task, client, tools, max_steps):
        messages = recursive_loop(task, client, tools, max_steps)
        last = messages[-1]
        answered = last["role"] == "assistant" and not last.get("tool_calls")
        return [messages, "answered" if answered else "max_steps"]

    found = verdict("02-capped-loop", capped_loop)
    assert found.status == PASSED, found.detail


def test_an_ending_that_is_not_a_string_is_told_so():
    found = verdict("02-capped-loop", mistake("02-capped-loop", "the ending as a bool"))
    assert found.status == WRONG, found.detail
    assert "True（bool）" in found.detail and "上限那一步" not in found.detail, found.detail


def test_the_prompt_says_how_many_scenarios_the_capped_loop_check_runs(monkeypatch):
    words = {5: ("五", "five"), 6: ("六", "six"), 7: ("七", "seven")}
    zh, en = words[len(ch02.CAPPED_SCENARIOS)]
    assert f"{zh}个脚本化场景" in api.get("02-capped-loop").prompt
    monkeypatch.setenv("AGENTLAB_LANG", "en")
    assert f"{en} scripted scenarios" in api.get("02-capped-loop").prompt


def test_a_stub_test_that_catches_its_own_assertion_is_told_so():
    found = verdict("02-stub-test", mistake("02-stub-test", "catches its own AssertionError"))
    assert found.status == WRONG and tr("exercise.02-stub-test.caught") in found.detail
    ending_only = verdict("02-stub-test", mistake("02-stub-test", "asserts only the ending"))
    assert tr("exercise.02-stub-test.caught") not in ending_only.detail


def test_the_loop_a_stub_test_gets_is_called_loop():
    def test_step_cap(loop):
        loop()  # forgot the arguments

    found = verdict("02-stub-test", test_step_cap)
    assert found.status == WRONG
    assert "loop() missing" in found.detail and "_unnamed" not in found.detail
