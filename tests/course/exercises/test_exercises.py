"""What a notebook calls: check, hint, show, exercises, get (course/exercises/__init__.py)."""

from __future__ import annotations

import subprocess
import sys

import agentlab.course.exercises as api
from agentlab.course.exercises import CheckResult, check, exercises, hint, show

from .conftest import verdicts

CHAPTERS = ("01", "02", "03", "04", "05")


def test_every_chapter_has_at_least_five_exercises():
    ids = [e.id for e in exercises()]
    assert len(ids) == len(set(ids)) >= 25
    for chapter in CHAPTERS:
        mine = exercises(chapter)
        assert len(mine) >= 5, chapter
        assert all(e.id.startswith(chapter + "-") and e.chapter == chapter for e in mine)
    assert {e.chapter for e in exercises()} == set(CHAPTERS)
    assert exercises(1) == exercises("01")
    assert api.get("01-loop") is exercises("01")[0] and api.get("99-nope") is None


def test_a_check_cell_shows_its_message_once(capsys):
    from IPython.core.formatters import DisplayFormatter

    result = check("01-loop", api.get("01-loop").reference)
    printed = capsys.readouterr().out
    assert printed.startswith("✅ 通过：") and printed.count("\n") == 1
    assert result.passed and result.status == "passed" and result.message == printed.strip()
    assert repr(result) == "CheckResult('01-loop', passed=True)"
    # What IPython shows for a cell ending with check(...): nothing more.
    assert DisplayFormatter().format(result) == ({}, {})


def test_the_printed_feedback_is_the_verdict_every_time(capsys):
    """``check`` prints what the check concluded, the same line however often it is run."""
    differs = []
    for exercise in exercises():
        _, answer = exercise.wrong[0]
        expected = api.render(verdicts(exercise.id)["wrong"][0])
        result = check(exercise.id, answer)
        if capsys.readouterr().out != expected + "\n" or result.message != expected:
            differs.append(exercise.id)
    assert not differs


def test_unknown_ids_are_answered_not_raised(capsys):
    result = check("99-nope", 1)
    assert isinstance(result, CheckResult) and not result.passed and "99-nope" in result.message
    hint("99-nope")
    show("99-nope")
    out = capsys.readouterr().out
    assert out.count("99-nope") == 3 and "01-loop" in out


def test_hint_and_show_print_the_exercise_texts(capsys):
    show("03-deadline")
    out = capsys.readouterr().out
    exercise = api.get("03-deadline")
    assert exercise.prompt in out and exercise.title in out


def test_hints_come_in_levels_each_pointing_to_the_next(capsys):
    """hint(id) is a nudge, hint(id, 2) the idea, hint(id, 3) the code; each level but the
    last says how to ask for the next, and a level that does not exist lists the levels."""
    exercise = api.get("03-deadline")
    shown = []
    for level in (1, 2, 3):
        hint("03-deadline", level) if level > 1 else hint("03-deadline")
        shown.append(capsys.readouterr().out)
    for level, out in enumerate(shown, start=1):
        assert exercise.hints[level - 1] in out and f"{level}/3" in out
        assert (f'hint("03-deadline", {level + 1})' in out) == (level < 3)
    assert "return max(" in shown[2] and "return max(" not in shown[0] + shown[1]  # code last
    for wrong_level in (0, 4, "2", 2.0, True):
        hint("03-deadline", wrong_level)
        assert 'hint("03-deadline", 2)' in capsys.readouterr().out


def test_importing_the_exercises_does_not_load_pandas():
    code = "import sys, agentlab.course.exercises; print('pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False" and out.stderr == ""
