"""``python -m agentlab.exercises list | verify``.

- ``list`` prints every exercise: chapter, id, kind, title.
- ``verify`` runs every check on its reference answer (must pass), on its
  starter code as committed in the notebook (must say "not done yet") and
  on each plausible wrong answer (must say "not right", each with its own
  message). One line per verdict; the exit status is 1 if any check
  misjudged, so ``make test`` fails when a check or a reference drifts.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
from collections.abc import Sequence
from typing import Any

from ..i18n import tr
from . import exercises, render
from .core import NOT_DONE, PASSED, WRONG, Exercise, judge


def list_exercises() -> int:
    for exercise in exercises():
        kind = tr(f"exercise.kind.{exercise.kind}")
        print(f"{exercise.chapter}  {exercise.id:<22} {kind:<10} {exercise.title}")
    return 0


def starter_answer(exercise: Exercise) -> Any:
    """Run the starter cell as a notebook would, and take the name it defines."""
    namespace: dict[str, Any] = {"__name__": "__starter__"}
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        exec(compile(exercise.starter, f"<starter {exercise.id}>", "exec"), namespace)
    return namespace.get(exercise.answer_name)


def verify_exercise(exercise: Exercise) -> list[tuple[bool, str]]:
    """(judged right?, printed line) for every answer of one exercise."""
    cases = [(tr("exercise.verify.reference"), exercise.reference, PASSED)]
    cases.append((tr("exercise.verify.starter"), starter_answer(exercise), NOT_DONE))
    for n, bad in enumerate(exercise.wrong, start=1):
        cases.append((tr("exercise.verify.wrong", n=n, label=bad.label), bad.answer, WRONG))
    lines, seen = [], set()
    for label, answer, expected in cases:
        verdict = judge(exercise, answer)
        message = render(verdict)
        right = verdict.status == expected
        if right and expected == WRONG:
            right = message not in seen
            if not right:
                message += " — " + tr("exercise.verify.same_message")
            seen.add(message)
        if not right:
            key = {PASSED: "expected_pass", NOT_DONE: "expected_not_done"}.get(
                expected, "expected_wrong"
            )
            message = f"{tr(f'exercise.verify.{key}')}: {message}"
        mark = "✓" if right else "✗"
        lines.append(
            (
                right,
                tr("exercise.verify.line", mark=mark, id=exercise.id, label=label, message=message),
            )
        )
    return lines


def verify(chapter: str | None = None) -> int:
    selected = exercises(chapter)
    misjudged = checks = 0
    for exercise in selected:
        for right, line in verify_exercise(exercise):
            print(line, flush=True)
            checks += 1
            misjudged += not right
    print(tr("exercise.verify.summary", count=len(selected), checks=checks, misjudged=misjudged))
    return 1 if misjudged else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agentlab.exercises")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="print every exercise")
    check = commands.add_parser("verify", help="check every check against its answers")
    check.add_argument("--chapter", help="only this chapter (01..05)")
    args = parser.parse_args(argv)
    if args.command == "list":
        return list_exercises()
    return verify(args.chapter)


if __name__ == "__main__":
    sys.exit(main())
