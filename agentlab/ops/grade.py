"""``agentlab grade SUBMISSIONS [--out DIR]``: a class's notebooks, graded without a key.

Every ``.ipynb`` under SUBMISSIONS is run afresh (:mod:`.grade_run`),
``--workers`` at a time, and marked from what its check cells showed
(:mod:`.grade_marks`), one progress line per notebook on stderr; the reports go
to ``--out``, by default ``<SUBMISSIONS>-grades`` (:mod:`.grade_report`). Left
out: hidden paths (``.ipynb_checkpoints`` holds JupyterLab's autosaves),
``__MACOSX`` (what macOS adds to a zip) and the output folder itself.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from ..i18n import printable_output, tr
from .cli_parser import CourseParser, run_command
from .grade_marks import STATUSES, Submission, grade_notebook, one_line

SKIPPED_FOLDERS = {"__MACOSX"}


def find_notebooks(folder: Path, leave_out: Path | None = None) -> list[tuple[Path, str]]:
    """(path, name) of every notebook under ``folder``, in name order."""
    found = []
    for path in folder.rglob("*.ipynb"):
        parts = path.relative_to(folder).parts
        if any(p.startswith(".") or p in SKIPPED_FOLDERS for p in parts) or not path.is_file():
            continue
        if leave_out is not None and path.is_relative_to(leave_out):
            continue
        found.append((path, shown_name(Path(*parts))))
    return sorted(found, key=lambda pair: pair[1])


def shown_name(relative: Path) -> str:
    """The path as the student named it, also from a zip made on Chinese Windows (GBK names)."""
    text = relative.as_posix()
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:  # bytes that are not UTF-8, kept by Python as surrogates
        return os.fsencode(text).decode("gb18030", errors="replace")


def grade_class(
    notebooks: Sequence[tuple[Path, str]],
    *,
    workers: int,
    time_limit_s: float,
    max_output_chars: int,
    progress: Callable[[Submission, int, int], None] = lambda submission, done, total: None,
) -> list[Submission]:
    """Grade every (path, name), at most ``workers`` at once; in the order given.

    Every file is read before the first kernel starts: a submission that
    finds the folder and writes into it cannot change what the others are
    graded on.
    """
    contents = [(name, read_bytes(path)) for path, name in notebooks]
    running: dict[str, Any] = {}  # name -> the client running it, to stop it on Ctrl-C
    graded: dict[str, Submission] = {}
    with ThreadPoolExecutor(max_workers=workers) as pool:
        options = {
            "time_limit_s": time_limit_s,
            "max_output_chars": max_output_chars,
            "running": running,
        }
        futures = [pool.submit(grade_notebook, *pair, **options) for pair in contents]
        try:
            for done, future in enumerate(as_completed(futures), start=1):
                submission = future.result()
                graded[submission.name] = submission
                progress(submission, done, len(futures))
        except KeyboardInterrupt:
            pool.shutdown(wait=False, cancel_futures=True)
            for client in list(running.values()):
                client.kill()
            raise
    return [graded[name] for _, name in notebooks]


def read_bytes(path: Path) -> bytes | OSError:
    try:
        return path.read_bytes()
    except OSError as exc:  # graded as "not a notebook", with this reason
        return exc


def show_progress(submission: Submission, done: int, total: int) -> None:
    if submission.marks:
        count = len(submission.marks)
        summary = tr("grade.progress.passed", passed=submission.passed, count=count)
        if submission.status != "graded":
            summary = f"{tr(f'grade.status.{submission.status}')}, {summary}"
    else:
        summary = tr(f"grade.status.{submission.status}")
    line = tr(
        "grade.progress.line",
        done=str(done).rjust(len(str(total))),
        total=total,
        name=submission.name,
        summary=summary,
        seconds=f"{submission.seconds:.1f}",
    )
    print(line, file=sys.stderr, flush=True)


def tally(submissions: Sequence[Submission]) -> str:
    """``已评分 27，超时 1，...``: how many submissions ended in each status."""
    counts = {s: sum(x.status == s for x in submissions) for s in STATUSES}
    return tr("grade.list_separator").join(
        f"{tr(f'grade.status.{s}')} {n}" for s, n in counts.items() if n
    )


def build_parser() -> CourseParser:
    from .grade_run import MAX_OUTPUT_CHARS, TIME_LIMIT_S

    parser = CourseParser(prog="agentlab grade", description=tr("grade.cli.help"))
    parser.add_argument("submissions", type=Path, help=tr("grade.cli.submissions"))
    parser.add_argument("--out", type=Path, help=tr("grade.cli.out"))
    workers = max(1, (os.cpu_count() or 2) // 2)  # a kernel keeps a core busy
    # argparse fills in %(default)s: the help shows the default the parser uses
    parser.add_argument("--workers", type=int, default=workers, help=tr("grade.cli.workers"))
    parser.add_argument(
        "--time-limit", type=float, default=TIME_LIMIT_S, help=tr("grade.cli.time_limit")
    )
    parser.add_argument(
        "--max-output",
        type=int,
        default=MAX_OUTPUT_CHARS,
        help=tr("grade.cli.max_output", default=f"{MAX_OUTPUT_CHARS:,}"),
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    printable_output()
    parser = build_parser()
    args = parser.parse_args(argv)
    return run_command("agentlab grade", lambda: command_grade(args, parser))


def command_grade(args: Any, parser: CourseParser) -> int:
    try:
        import nbclient  # noqa: F401  (installed with JupyterLab: the `lab` extra)
    except ImportError:
        parser.error(tr("grade.cli.no_nbclient"))
    if min(args.workers, args.time_limit, args.max_output) <= 0:
        parser.error(tr("grade.cli.not_positive"))
    if not args.submissions.is_dir():
        parser.error(tr("grade.cli.not_a_folder", path=str(args.submissions)))
    folder = args.submissions.resolve()
    out = (args.out or folder.with_name(folder.name + "-grades")).resolve()
    notebooks = find_notebooks(folder, leave_out=out)
    if not notebooks:
        parser.error(tr("grade.cli.no_notebooks", path=str(args.submissions)))
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        parser.error(tr("grade.cli.out_unwritable", path=str(out), error=one_line(exc)))
    from .grade_report import write_reports

    workers = min(args.workers, len(notebooks))
    limit = f"{args.time_limit:g}"
    print(tr("grade.starting", count=len(notebooks), workers=workers, limit=limit), file=sys.stderr)
    started = time.monotonic()
    submissions = grade_class(
        notebooks,
        workers=workers,
        time_limit_s=args.time_limit,
        max_output_chars=args.max_output,
        progress=show_progress,
    )
    seconds = time.monotonic() - started
    csv_path, html_path = write_reports(submissions, out, folder=folder.name, seconds=seconds)
    statuses = tally(submissions)
    print(tr("grade.done", count=len(submissions), seconds=f"{seconds:.0f}", statuses=statuses))
    print(tr("grade.files", csv=csv_path, html=html_path))
    return 0
