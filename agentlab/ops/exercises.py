"""``agentlab exercises list | verify`` (also ``python -m agentlab exercises ...``).

- ``list`` prints every exercise: chapter, id, kind, title.
- ``verify`` runs every check on its reference answer (must pass), on its
  starter code as committed in the notebook (must say "not done yet") and
  on each of its named mistakes (must say "not right", each with its own
  message, and in Chinese with the words the mistake ``says``). It prints the
  verdicts that went wrong (``--verbose``: every verdict; ``--chapter 03``: one
  chapter's exercises only) and a summary; the exit status is 1 if any check
  misjudged, so ``make test`` fails when a check or a reference drifts.
"""

from __future__ import annotations

import contextlib
import io
import unicodedata
from collections.abc import Sequence
from typing import Any

from ..course.exercises import exercises, render
from ..course.exercises.core import NOT_DONE, PASSED, WRONG, Exercise
from ..course.exercises.running import judge
from ..course.exercises.texts import tr
from ..i18n import language, printable_output
from .cli_parser import CourseParser, add_commands, run_command


def columns(text: str) -> int:
    """How many terminal columns ``text`` takes (a Chinese character takes two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def padded(text: str, width: int) -> str:
    """``text`` padded to ``width`` terminal columns."""
    return text + " " * max(width - columns(text), 0)


def list_exercises() -> int:
    listed = exercises()
    kinds = [tr(f"exercise.kind.{exercise.kind}") for exercise in listed]
    width = max(map(columns, kinds), default=0)  # "predict, then run" is wider than 先预测，再运行
    for exercise, kind in zip(listed, kinds, strict=True):
        shown = f"{padded(exercise.id, 22)} {padded(kind, width)}"
        print(f"{exercise.chapter}  {shown} {exercise.title}")
    return 0


def starter_answer(exercise: Exercise) -> Any:
    """Run the starter cell as a notebook would, and take the name it defines."""
    namespace: dict[str, Any] = {"__name__": "__starter__"}
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        exec(compile(exercise.starter, f"<starter {exercise.id}>", "exec"), namespace)
    return namespace.get(exercise.answer_name)


def verify_exercise(exercise: Exercise) -> list[tuple[bool, str]]:
    """(judged right?, printed line) for every answer of one exercise."""
    cases = [(tr("exercise.verify.reference"), exercise.reference, PASSED, "")]
    cases.append((tr("exercise.verify.starter"), starter_answer(exercise), NOT_DONE, ""))
    for n, (mistake, answer) in enumerate(exercise.wrong, start=1):
        label = tr("exercise.verify.wrong", n=n, label=mistake.label)
        cases.append((label, answer, WRONG, mistake.says if language() == "zh" else ""))
    lines, seen = [], set()
    for label, answer, expected, says in cases:
        verdict = judge(exercise, answer)
        said = render(verdict)
        if verdict.status != expected:
            key = {PASSED: "expected_pass", NOT_DONE: "expected_not_done"}.get(
                expected, "expected_wrong"
            )
            problem = tr(f"exercise.verify.{key}")
        elif said in seen:  # two mistakes, one message: it names neither
            problem = tr("exercise.verify.same_message")
        elif says not in said:
            problem = tr("exercise.verify.expected_says", says=says)
        else:
            problem = ""
        seen.add(said)
        message, mark = (f"{said} — {problem}", "✗") if problem else (said, "✓")
        line = tr("exercise.verify.line", mark=mark, id=exercise.id, label=label, message=message)
        lines.append((not problem, line))
    return lines


def verify(chapter: str | None = None, verbose: bool = False) -> int:
    selected = exercises(chapter)
    misjudged = checks = 0
    for exercise in selected:
        for right, line in verify_exercise(exercise):
            if verbose or not right:
                print(line, flush=True)
            checks += 1
            misjudged += not right
    print(tr("exercise.verify.summary", count=len(selected), checks=checks, misjudged=misjudged))
    return 1 if misjudged else 0


def main(argv: Sequence[str] | None = None) -> int:
    printable_output()
    parser = CourseParser(prog="agentlab exercises")
    _, check = add_commands(
        parser, {"list": tr("exercise.cli.list"), "verify": tr("exercise.cli.verify")}
    )
    check.add_argument("--chapter", help=tr("exercise.cli.chapter"))
    check.add_argument("--verbose", action="store_true", help=tr("exercise.cli.verbose"))
    args = parser.parse_args(argv)
    if args.command == "list":
        return run_command(f"{parser.prog} list", list_exercises)
    return run_command(f"{parser.prog} verify", lambda: verify(args.chapter, args.verbose))
