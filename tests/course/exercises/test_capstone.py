"""The capstone's runs and checks (agentlab/course/exercises/capstone.py)."""

from __future__ import annotations

from agentlab.course.exercises import capstone
from agentlab.course.exercises.core import WRONG

from .conftest import verdict


def test_the_generated_runs_are_the_same_list_every_time_smallest_first():
    """nbval compares the check's sentence, so the runs it names must never change."""
    for chapter, seed in (("03", 0), ("04", 2)):
        again = capstone.generated(seed, 24, chapter)
        shape = [(r.script, r.limits) for r in again]
        assert shape == [(r.script, r.limits) for r in capstone.RUNS[chapter]]
        steps = [r.limits["max_steps"] for r in again]
        assert steps == sorted(steps)


def test_the_runs_reach_every_ending_the_loop_can_have():
    """A check that never sees a stop reason cannot tell a loop that gets it wrong."""
    for chapter, wanted, set_runs in (
        ("03", {"answered", "max_steps", "repeat_call", "no_progress"}, {"deadline"}),
        (
            "04",
            {"answered", "max_steps", "repeat_call", "no_progress", "model_error"},
            {"deadline", "answered"},  # answered: the retry on the last step
        ),
    ):
        endings = {capstone.expected(run).stop_reason for run in capstone.RUNS[chapter]}
        assert wanted <= endings, (chapter, endings)
        assert {run.expect[0] for run in capstone.timed(chapter)} == set_runs
        for run in capstone.timed(chapter):  # each set run ends as agentlab's rung does
            assert (
                capstone.expected(run).stop_reason,
                capstone.expected(run).requests,
            ) == run.expect
    cut = [
        r
        for r in capstone.RUNS["04"]
        if r.limits["max_output_chars"] and "log({})" in capstone.expected(r).ran
    ]
    assert cut, "no generated run of chapter 04 cuts the long log"


def test_every_call_answered_exactly_once_is_the_first_promise_named():
    """The pairing rule on its own: a call left unanswered, answered twice, or an answer
    to a call nobody made, each named with the call's id."""
    ask = {"role": "assistant", "tool_calls": [{"id": "a"}, {"id": "b"}]}

    def answer(call_id):
        return {"role": "tool", "tool_call_id": call_id, "content": "{}"}

    assert capstone._pairing_problem([ask, answer("a"), answer("b")]) is None
    assert capstone._pairing_problem([ask, answer("a")]) == ("unanswered", "b")
    assert capstone._pairing_problem([ask, answer("a"), ask]) == ("unanswered", "b")
    assert capstone._pairing_problem([ask, answer("a"), answer("a")]) == ("answered_twice", "a")
    assert capstone._pairing_problem([ask, answer("c")]) == ("stray", "c")


def test_a_loop_that_stops_at_once_is_told_which_run_and_why():
    def gives_up(task, client, tools, max_steps, **limits):
        return [{"role": "user", "content": task}], "max_steps"

    found = verdict("03-guarded-loop", gives_up)
    assert found.status == WRONG
    assert found.detail.startswith("生成运行 1/24（") and "'max_steps'" in found.detail
