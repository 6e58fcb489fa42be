"""Running a check and the student's code in it (agentlab/course/exercises/running.py): a
verdict always comes back, within the time limit, whatever the answer does; the kernel
keeps running and Ctrl-C still stops the check."""

from __future__ import annotations

import dataclasses
import gc
import os
import threading
import time

import pytest

import agentlab.course.exercises as api
from agentlab.course.exercises import CheckResult, check, exercises
from agentlab.course.exercises.core import WRONG, passed
from agentlab.course.exercises.running import judge

from .conftest import verdict


def raises(*args, **kwargs):
    raise ValueError("boom")


def loops_forever(*args, **kwargs):
    while True:
        pass


def sleeps(*args, **kwargs):
    time.sleep(60)


def swallows_everything(*args, **kwargs):
    """The checker's own stop included: only ending the process stops it."""
    while True:
        try:
            while True:
                pass
        except:  # noqa: E722
            pass


def ends_the_process(*args, **kwargs):
    os._exit(3)


JUNK = {
    "None": None,
    "int": 42,
    "str": "x",
    "raises": raises,
    "loops": loops_forever,
    "sleeps": sleeps,
    "swallows": swallows_everything,
    "exits": ends_the_process,
    "garbage": lambda *a, **k: object(),
    "class": type("Junk", (), {}),
}


def test_junk_answers_never_raise(capsys):
    """Every exercise, every kind of junk: one line of feedback, printed once, never a pass."""
    offenders = []
    for exercise in exercises():
        for name, junk in JUNK.items():
            result = check(exercise.id, junk, time_limit_s=0.02)
            printed = capsys.readouterr()
            if not (
                isinstance(result, CheckResult)
                and not result.passed
                and printed.err == ""
                and printed.out == result.message + "\n"
                and result.message.startswith(("还没完成：", "不对："))
            ):
                offenders.append(f"{exercise.id} {name}: {printed}")
    assert not offenders, "\n".join(offenders)


def test_a_check_outside_the_main_thread_is_bounded_too():
    found: list[CheckResult] = []
    worker = threading.Thread(
        target=lambda: found.append(check("01-loop", loops_forever, time_limit_s=0.1))
    )
    started = time.monotonic()
    worker.start()
    worker.join(5)
    assert not worker.is_alive() and time.monotonic() - started < 5
    assert not found[0].passed and found[0].message.startswith("不对：")


def test_no_student_code_runs_on_after_the_check_has_answered():
    """A bare ``except:`` swallows anything a running thread can be sent; the loop ends
    with the process the check ran in, and nothing of it is left here."""
    before = set(threading.enumerate())
    result = check("01-loop", swallows_everything, time_limit_s=0.1)
    assert not result.passed and "0.1 秒还没结束" in result.message
    assert set(threading.enumerate()) <= before


def test_the_kernels_own_code_never_gets_the_checks_stop():
    """Nothing of the time limit reaches code of this process that runs meanwhile, such as a
    garbage-collector callback, even while the student's code churns garbage and swallows
    every exception."""
    seen: list[object] = []

    def callback(phase: str, info: dict) -> None:
        try:
            seen.append(phase)
        except BaseException as exc:  # noqa: BLE001  what the checker must not do
            seen.append(exc)

    def churns_and_swallows(*args, **kwargs):
        while True:
            try:
                while True:
                    cycle: list = []
                    cycle.append(cycle)  # garbage with a cycle: the collector runs often
            except:  # noqa: E722
                pass

    gc.callbacks.append(callback)
    try:
        result = check("01-loop", churns_and_swallows, time_limit_s=0.2)
        gc.collect()
    finally:
        gc.callbacks.remove(callback)
    assert not result.passed and seen
    assert not [s for s in seen if isinstance(s, BaseException)]


def test_time_up_inside_a_library_wait_is_a_timeout_not_a_broken_lock():
    """The standard library's own cleanup (a Condition re-taking its lock) is never cut."""

    def waits(*args, **kwargs):
        while True:
            try:
                threading.Event().wait(60)
            except:  # noqa: E722
                pass

    started = time.monotonic()
    result = check("01-loop", waits, time_limit_s=0.2)
    assert time.monotonic() - started < 5  # generous: it took minutes before
    assert not result.passed and "RuntimeError" not in result.message
    assert "0.2 秒还没结束" in result.message and 'check("01-loop", ' in result.message


def test_what_an_answer_does_stays_in_the_process_the_check_ran_in():
    """Printing, changing this module's globals, ending the process: none of it reaches here."""
    global touched
    touched = False

    def meddles(task, client, tools, max_steps):
        global touched
        touched = True
        print("from the answer")
        os._exit(0)

    result = verdict("01-loop", meddles)
    assert result.status == WRONG and "my_loop" in result.detail, result.detail
    assert touched is False


touched = False


def test_without_fork_the_check_runs_here_and_stops_waiting(monkeypatch):
    """Windows and Pyodide have no fork: the student's code runs on a thread here, and the
    check answers at the deadline (the thread is abandoned, not stopped)."""
    monkeypatch.delattr(os, "fork")

    def naps(task, client, tools, max_steps):
        time.sleep(1)

    started = time.monotonic()
    result = verdict("01-loop", naps, time_limit_s=0.1)
    assert time.monotonic() - started < 0.9
    assert (
        result.status == WRONG
        and "0.1 秒还没结束" in result.detail
        and "time_limit_s=" in result.detail
    ), result.detail
    assert verdict("01-loop", api.get("01-loop").reference).status == "passed"


def test_a_finished_answer_calling_an_unfinished_helper_is_told_which_one():
    def pick_cap(summary, target):
        raise NotImplementedError("在这里写")

    def robust_cap(summaries, target):
        return pick_cap(summaries[0], target)

    found = verdict("05-robust-cap", robust_cap)
    assert found.status == "not_done"
    assert "pick_cap" in found.detail and "留余量" not in found.detail


class OwnBaseError(BaseException):
    """What a student's code may raise that is not an Exception."""


@pytest.mark.parametrize("raised", [GeneratorExit, OwnBaseError, SystemExit])
def test_a_base_exception_from_student_code_is_a_verdict_not_a_crash(raised):
    def loop(task, client, tools, max_steps):
        raise raised("stopped here")

    found = verdict("01-loop", loop)
    assert found.status == WRONG and raised.__name__ in found.detail, found.detail


def test_an_answer_whose_comparison_raises_a_base_exception_still_gets_a_verdict():
    class Stubborn:
        def __eq__(self, other):
            raise OwnBaseError("no comparing me")

        __hash__ = object.__hash__

    compares = dataclasses.replace(api.get("01-loop"), check=lambda a: passed(str(a == 1)))
    found = judge(compares, Stubborn())
    assert found.status == "error" and "OwnBaseError" in found.detail, found.detail


def test_a_keyboard_interrupt_in_student_code_still_stops_the_check():
    def loop(task, client, tools, max_steps):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        verdict("01-loop", loop)


def test_what_a_check_compares_against_is_made_once_here_and_runs_stay_in_the_copy():
    """An exercise's ``prepare`` fills this process's caches (chapter 05's sweeps), so each
    copy starts with them; runs that wait on real time or start processes (chapter 03's
    hanging tools) happen only in the copy, and leave nothing running here."""
    from agentlab.course.exercises import ch03, ch05

    verdict("05-completion-rate", None)
    assert ch05._measure_cases.cache_info().currsize == 1
    found = verdict("03-predict-abandon", api.get("03-predict-abandon").reference)
    assert found.status == "passed", found.detail
    assert ch03.abandon_runs.cache_info().currsize == 0
