"""A graded class as files: one CSV, one HTML page, and the notebooks as they ran.

- ``grades.csv`` — ``submission, status, reason, passed``, then a mark per
  exercise (empty for another chapter's); UTF-8 with a byte-order mark, so
  that Excel shows Chinese names.
- ``grades.html`` — no script, nothing from the network (``templates/grade.html``,
  Jinja2 with autoescape): the class heat map (what check() said on hover), per
  exercise the pass rate and commonest feedback, per submission what broke.
- ``executed/<submission>`` — each notebook as it ran, to open at the cell named.

It only writes what :mod:`.grade` found.
"""

from __future__ import annotations

import csv
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from .. import __version__
from ..course.exercises import Exercise, exercises
from ..course.palette import BLUISH_GREEN, GREY, REDDISH_PURPLE, VERMILLION, ink
from ..i18n import tr
from .grade_marks import MARKS, STATUSES, Submission

MARK_STYLE = {  # colour and symbol: the symbol says what the colour says
    "passed": (BLUISH_GREEN, "✓"),
    "wrong": (VERMILLION, "✗"),
    "not attempted": ("#E6E6E6", "–"),
    "broken": (REDDISH_PURPLE, "!"),
}
STATUS_COLOR = {"graded": BLUISH_GREEN, "old_course": GREY}  # every other status: VERMILLION
TOP_FEEDBACK = 5


@dataclass(frozen=True)
class ExerciseSummary:
    """How the class did on one exercise."""

    exercise: Exercise
    counts: dict[str, int]  # mark -> how many submissions got it
    feedback: list[tuple[str, int]]  # the most common "wrong" lines, with how many got each

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def pass_rate(self) -> float:
        return self.counts["passed"] / self.total if self.total else 0.0


def graded_exercises(submissions: Sequence[Submission]) -> list[Exercise]:
    """The exercises any submission was marked on, in the course's order."""
    marked = {exercise_id for s in submissions for exercise_id in s.marks}
    return [e for e in exercises() if e.id in marked]


def summarize(submissions: Sequence[Submission], exercise: Exercise) -> ExerciseSummary:
    marks = [s.marks[exercise.id] for s in submissions if exercise.id in s.marks]
    counts = {mark: sum(m.mark == mark for m in marks) for mark in MARKS}
    wrong = Counter(m.message for m in marks if m.mark == "wrong")
    return ExerciseSummary(exercise, counts, wrong.most_common(TOP_FEEDBACK))


def write_csv(submissions: Sequence[Submission], columns: list[Exercise], path: Path) -> None:
    with path.open("w", encoding="utf-8-sig", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["submission", "status", "reason", "passed", *(e.id for e in columns)])
        for s in submissions:
            marks = [s.marks[e.id].mark if e.id in s.marks else "" for e in columns]
            writer.writerow([s.name, s.status, reason_text(s), s.passed, *marks])


def reason_text(submission: Submission) -> str:
    """Everything that went wrong with one submission, in one line."""
    parts = [submission.reason] if submission.reason else []
    parts += [f"{exercise_id}: {why}" for exercise_id, why in troubles(submission)]
    parts += submission.notes
    return tr("grade.list_separator").join(parts)


def write_html(
    submissions: Sequence[Submission],
    columns: list[Exercise],
    path: Path,
    *,
    folder: str,
    seconds: float,
) -> None:
    import jinja2

    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("agentlab.ops", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,  # a misspelt name fails the tests, not the page
        trim_blocks=True,
        lstrip_blocks=True,
    )
    chapters = sorted({e.chapter for e in columns})
    page = environment.get_template("grade.html").render(
        tr=tr,
        folder=folder,
        version=__version__,
        when=time.strftime("%Y-%m-%d %H:%M"),
        seconds=seconds,
        submissions=submissions,
        columns=columns,
        chapter_spans=[(c, sum(e.chapter == c for e in columns)) for c in chapters],
        summaries=[summarize(submissions, e) for e in columns],
        statuses={s: n for s in STATUSES if (n := sum(x.status == s for x in submissions))},
        troubled=[s for s in submissions if s.status != "graded" or troubles(s)],
        troubles=troubles,
        mark_style={m: (color, ink(color), symbol) for m, (color, symbol) in MARK_STYLE.items()},
        status_label=lambda status: tr(f"grade.status.{status}"),
        mark_label=lambda mark: tr(f"grade.mark.{mark}"),
        status_color=lambda status: STATUS_COLOR.get(status, VERMILLION),
        ink=ink,
        link=lambda s: "executed/" + quote(s.name) if s.executed is not None else None,
    )
    path.write_text(page, encoding="utf-8")


def troubles(submission: Submission) -> list[tuple[str, str]]:
    """(exercise id, why) for each broken exercise that the status does not already explain."""
    marks = submission.marks.items()  # "not_run": the status already says where it stopped
    return [(i, m.message) for i, m in marks if m.mark == "broken" and m.broken != "not_run"]


def write_reports(
    submissions: Sequence[Submission], out: Path, *, folder: str, seconds: float
) -> tuple[Path, Path]:
    """Write the CSV, the page and the run copies into ``out``; the paths of the first two."""
    import nbformat

    columns = graded_exercises(submissions)
    for s in submissions:
        if s.executed is not None:
            copy = out / "executed" / s.name
            copy.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(s.executed, copy)
    csv_path, html_path = out / "grades.csv", out / "grades.html"
    write_csv(submissions, columns, csv_path)
    write_html(submissions, columns, html_path, folder=folder, seconds=seconds)
    return csv_path, html_path
