"""``agentlab exercises list | verify`` (agentlab/ops/exercises.py)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import unicodedata

import pytest

import agentlab.course.exercises as api
from agentlab.course.exercises import exercises
from agentlab.course.exercises.core import WRONG, Verdict, passed
from agentlab.course.exercises.running import _judge
from agentlab.i18n import tr
from agentlab.ops.exercises import main

from ..conftest import REPO, interrupted, stderr_when_the_reader_leaves


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "agentlab", "exercises", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "AGENTLAB_RUNS_DIR": str(REPO / "runs")},
    )


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_list_keeps_its_titles_in_one_column(lang, monkeypatch, capsys):
    """Every kind, "predict, then run" too, fits its column in either language."""
    monkeypatch.setenv("AGENTLAB_LANG", lang)
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    titles = {e.id: e.title for e in exercises()}

    def columns(text: str) -> int:
        return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)

    starts = {columns(line[: line.rindex(titles[line.split()[1]])]) for line in lines}
    assert len(starts) == 1, lines


def test_the_command_line_lists_and_verifies():
    listed = run_cli("list")
    assert listed.returncode == 0, listed.stderr
    assert len(listed.stdout.splitlines()) == len(exercises())
    verified = run_cli("verify", "--chapter", "02")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "0 次判错" in verified.stdout.splitlines()[-1]
    assert verified.stderr == ""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")
def test_the_command_line_stops_quietly_on_ctrl_c_and_on_a_closed_pipe():
    """`... list | head` and Ctrl-C during `verify` are one line at most, never a traceback."""
    command = [sys.executable, "-m", "agentlab", "exercises"]
    env = {"PATH": "/usr/bin:/bin", "AGENTLAB_RUNS_DIR": str(REPO / "runs")}
    err = stderr_when_the_reader_leaves([*command, "list"])
    assert "Traceback" not in err, err

    def busy(stdout):  # the first verdict is out: it is checking now
        stdout.readline()

    for group in (False, True):  # the process alone, or its whole group as a terminal does
        exit_code, err = interrupted(
            [*command, "verify", "--verbose"], busy, group=group, cwd=REPO, env=env
        )
        assert exit_code == 130, err
        assert err.strip() == tr("cli.interrupted", prog="agentlab exercises verify")


def test_verify_fails_when_a_check_misjudges(monkeypatch, capsys):
    lenient = dataclasses.replace(api.get("01-loop"), check=lambda answer: passed("always"))
    monkeypatch.setattr(api, "EXERCISES", [lenient])
    assert main(["verify"]) == 1
    out = capsys.readouterr().out
    wrong = len(lenient.mistakes)
    assert out.count("✗") == 1 + wrong  # the starter and every mistake passed
    assert isinstance(lenient.check(None), Verdict)


def test_verify_holds_a_mistake_to_the_words_it_says(monkeypatch, capsys):
    """A check that says "not right" in words of its own, but not the words a mistake
    ``says``, misjudges that mistake."""
    exercise = api.get("01-history")

    def vague(answer: object) -> Verdict:
        found = _judge(exercise, answer, 5.0)
        return Verdict(WRONG, f"不对（{hash(found.detail)}）") if found.status == WRONG else found

    monkeypatch.setattr(api, "EXERCISES", [dataclasses.replace(exercise, check=vague)])
    assert main(["verify"]) == 1
    assert capsys.readouterr().out.count("✗") == len(exercise.mistakes)
