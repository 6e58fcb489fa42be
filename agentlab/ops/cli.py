"""The instructor's terminal tool: ``agentlab run | demo | sweep | doctor | trace | grade ...``.

``run`` asks one question and prints the result as JSON on stdout (a real
model when ``.env`` configures one, else a scripted one; which, on stderr);
``--record FILE`` saves the run without the key, ``--replay FILE`` plays it
again offline. ``demo`` plays the outcome scenarios into a table; ``sweep``
writes chapter 05's CSV and charts; ``doctor`` checks a set-up; ``trace``
turns a trace into one HTML page; ``grade`` and ``exercises`` have parsers of
their own. Bad arguments are one line and exit code 2; Ctrl-C is one line and 130.

It only parses arguments, picks a client and tools, and prints: the runs are
``run_agent``'s, the rest that of the modules it calls.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..clients import BEHAVIOURS, ModelConfigError, load_settings, scripted
from ..i18n import printable_output, reason, tr
from ..loop.agent import run_agent
from ..loop.budget import DEMO_MAX_STEPS, Budget
from ..tools import file_tools, sales_tools, sandbox_copy
from .cli_parser import CourseParser, add_commands, error_line, run_command

DEFAULT_SCRIPTED = {"sales": "honest_analyst", "files": "todo_clerk"}


def parse_caps(text: str) -> list[int]:
    """``"1-30"``, ``"1,2,5,10"`` or a mix like ``"1-5,10,20"``."""
    caps: list[int] = []
    try:
        for part in text.split(","):
            low, dash, high = part.partition("-")
            low, high = int(low), int(high if dash else low)
            if low > high:
                raise ValueError
            caps.extend(range(low, high + 1))
    except ValueError:
        raise argparse.ArgumentTypeError(tr("cli.bad_caps", text=repr(text))) from None
    if min(caps) < 1:
        raise argparse.ArgumentTypeError(tr("cli.caps_positive"))
    return sorted(set(caps))


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(tr("cli.not_positive", text=repr(text)))
    return value


def build_parser() -> CourseParser:
    parser = CourseParser(prog="agentlab", description=tr("cli.description"))
    run, demo, sweep, doctor, trace, _, _ = add_commands(
        parser,
        {
            "run": tr("cli.run.help"),
            "demo": tr("cli.demo.help"),
            "sweep": tr("cli.sweep.help"),
            "doctor": tr("doctor.help"),
            "trace": tr("display.cli.help"),
            "exercises": tr("cli.exercises.help"),  # its own parser: ops/exercises.py
            "grade": tr("grade.cli.help"),  # its own parser: ops/grade.py
        },
    )
    for command in (run, demo, sweep, doctor, trace):  # its own checks speak as its parser
        command.set_defaults(command_parser=command)
    run.add_argument("question", nargs="?", help=tr("cli.run.question"))
    run.add_argument(
        "--max-steps",
        type=positive_int,
        default=None,  # DEMO_MAX_STEPS, or what a replayed recording used
        help=tr("cli.run.max_steps", default=DEMO_MAX_STEPS),
    )
    run.add_argument("--scripted", choices=sorted(BEHAVIOURS), help=tr("cli.run.scripted"))
    run.add_argument("--tools", choices=sorted(DEFAULT_SCRIPTED), help=tr("cli.run.tools"))
    run.add_argument("--stream", action="store_true", help=tr("cli.run.stream"))
    run.add_argument("--record", type=Path, metavar="FILE", help=tr("replay.cli_record"))
    run.add_argument("--replay", type=Path, metavar="FILE", help=tr("replay.cli_replay"))

    demo.add_argument("--stream", action="store_true", help=tr("cli.demo.stream"))

    sweep.add_argument(
        "--caps", type=parse_caps, default=parse_caps("1-30"), help=tr("cli.sweep.caps")
    )
    sweep.add_argument("--seed", type=int, default=0, help=tr("cli.sweep.seed"))
    sweep.add_argument("--n", type=positive_int, default=200, help=tr("cli.sweep.n"))
    sweep.add_argument("--workers", type=positive_int, default=1, help=tr("cli.sweep.workers"))
    sweep.add_argument("--target", type=float, default=0.95, help=tr("cli.sweep.target"))
    sweep.add_argument("--repeat-guard", action="store_true", help=tr("cli.sweep.repeat_guard"))
    sweep.add_argument("--out", type=Path, required=True, help=tr("cli.sweep.out"))

    doctor.add_argument("--ping", action="store_true", help=tr("doctor.ping_help"))

    trace.add_argument("file", type=Path, help=tr("display.cli.file"))
    trace.add_argument("--out", type=Path, help=tr("display.cli.out"))
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] in (["exercises"], ["grade"]):  # with parsers and options of their own
        return importlib.import_module(f".{argv[0]}", __package__).main(argv[1:])
    printable_output()
    args = build_parser().parse_args(argv)
    return run_command(f"agentlab {args.command}", lambda: dispatch(args))


def dispatch(args: argparse.Namespace) -> int:
    parser = args.command_parser  # its errors name the command: "agentlab run：错误：..."
    if args.command == "run":
        if args.record and args.replay:
            parser.error(tr("replay.cli_record_and_replay"))
        if args.scripted and args.replay:  # the recording answers, not a scripted model
            parser.error(tr("replay.cli_scripted_and_replay"))
        if args.replay:
            return command_replay(args, parser)
        if not args.question:
            parser.error(tr("replay.cli_need_question"))
        if args.record and not args.record.parent.is_dir():  # say so before a paid request
            parser.error(tr("cli.record_no_folder", path=str(args.record)))
        if args.record and args.record.is_dir():
            parser.error(tr("cli.record_is_folder", path=str(args.record)))
        return command_run(args)
    if args.command == "sweep":
        if args.out.exists() and not args.out.is_dir():
            parser.error(tr("cli.out_not_folder", path=str(args.out)))
        if not 0 < args.target <= 1:
            parser.error(tr("cli.bad_target"))
        try:  # before the sweep, not after it
            args.out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            parser.error(tr("cli.out_unwritable", path=str(args.out), error=reason(exc)))
        return command_sweep(args)
    if args.command == "doctor":
        from .doctor import main as doctor_main

        return doctor_main(ping=args.ping)
    return command_demo(args) if args.command == "demo" else command_trace(args)


def command_run(args: argparse.Namespace) -> int:
    tools_name = args.tools or "sales"
    max_steps = args.max_steps or DEMO_MAX_STEPS
    model_options: dict[str, str] = {}
    provider = None
    if args.scripted:
        client = scripted(args.scripted)
        note = tr("cli.scripted_asked", name=args.scripted)
    else:
        try:
            settings = load_settings()
            client = settings.client()  # a proxy variable it cannot use is a ModelConfigError
        except ModelConfigError as exc:
            name = DEFAULT_SCRIPTED[tools_name]
            client = scripted(name)
            note = tr("cli.scripted_fallback", name=name, reason=exc)
        else:
            model_options["model"] = settings.model
            provider = settings.provider
            note = tr("cli.real_model", model=settings.model, provider=provider)
    print(note, file=sys.stderr)
    if args.record:
        from ..clients.recording import recording

        how = {"tools": tools_name, "max_steps": max_steps, "stream": args.stream}
        client = recording(client, args.record, provider=provider, run=how)
        print(tr("replay.cli_recording_to", path=args.record), file=sys.stderr)
    return _run_and_print(
        args.question, client, tools_name, max_steps, args.stream, **model_options
    )


def command_replay(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``run --replay FILE``: the recorded run again, keyless; divergences on stderr."""
    from ..clients.recording import RecordingError, ReplayClient

    try:
        client = ReplayClient(args.replay)
    except RecordingError as exc:
        parser.error(str(exc))
    how = client.recording.get("run") or {}
    provider = client.recording.get("provider")
    print(
        tr("replay.cli_replaying", path=args.replay, provider=provider, model=client.model),
        file=sys.stderr,
    )
    code = _run_and_print(
        args.question or client.task or "",
        client,
        args.tools or how.get("tools") or "sales",
        args.max_steps or how.get("max_steps") or DEMO_MAX_STEPS,
        args.stream or client.stream,
        **({"model": client.model} if client.model else {}),
    )
    for divergence in client.divergences:
        print(divergence.message, file=sys.stderr)
    asked, held = len(client.replayer.requests), len(client.recording["exchanges"])
    if not client.divergences:
        print(tr("replay.cli_matched", n=min(asked, held)), file=sys.stderr)
    if asked > held:  # the run went on past the end of the recording
        print(tr("replay.ran_out", number=held + 1, count=held), file=sys.stderr)
    return code


def _run_and_print(
    question: str, client: Any, tools_name: str, max_steps: int, stream: bool, **model: str
) -> int:
    tools = sales_tools() if tools_name == "sales" else file_tools(sandbox_copy())
    result = run_agent(
        question,
        client=client,
        tools=tools,
        budget=Budget(max_steps=max_steps),
        stream=stream,
        on_text=lambda text: print(text, end="", file=sys.stderr, flush=True),
        **model,
    )
    print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
    if result.trace_path:  # stderr: stdout stays the seed's JSON
        print(tr("cli.trace_at", path=result.trace_path), file=sys.stderr)
    return 0 if result.status == "completed" else 1


@dataclass(frozen=True)
class DemoScenario:
    """One row of ``agentlab demo``: a task, a scripted model, tools and a budget."""

    name: str
    task: str
    client: Callable[[], Any]
    tools: Callable[[], Any]
    budget: Budget


def demo_scenarios() -> list[DemoScenario]:
    """The outcome scenarios an instructor projects, from a clean finish to a killed tool."""
    from ..clients import Hang, HttpError, ScriptedClient, call
    from ..course.faults import fault_tools, keeps_calling

    question = tr("cli.demo.question")  # for the model: in the run's language
    cap = Budget(max_steps=DEMO_MAX_STEPS)
    faults = lambda: fault_tools(hang_seconds=2.0)[0]  # noqa: E731

    def scene(name: str, task: str, replies: Any, tools: Any, budget: Budget) -> DemoScenario:
        def client() -> Any:  # replies: a behaviour's name, a policy or a list of turns
            return scripted(replies) if isinstance(replies, str) else ScriptedClient(replies)

        return DemoScenario(tr(f"cli.demo.{name}"), task, client, tools, budget)

    missing = question.replace("sales.csv", "sales_2023.csv")
    repeats = keeps_calling("same_result")
    busy = [HttpError(503, tr("faults.busy"))] * 2  # retried once; failing again ends the run
    retry_once = Budget(max_steps=DEMO_MAX_STEPS, max_retries=1, retry_backoff_s=0.0)
    return [
        scene("ok", question, "honest_analyst", sales_tools, cap),
        scene("missing_file", missing, "honest_analyst", sales_tools, cap),
        scene("never_stops", question, "never_stops", sales_tools, cap),
        scene("repeats", tr("cli.demo.wait_build"), repeats, faults, Budget.seed_table()),
        scene("model_hangs", "x", [Hang(2.0)], faults, Budget(max_seconds=0.2)),
        scene("tool_hangs", "x", [call("hang_isolated")], faults, Budget(max_seconds=0.5)),
        scene("model_fails", question, busy, sales_tools, retry_once),
    ]


def command_demo(args: argparse.Namespace) -> int:
    import pandas as pd

    rows = []
    for scenario in demo_scenarios():
        if args.stream:
            print(f"\n== {scenario.name}", flush=True)
        result = run_agent(
            scenario.task,
            client=scenario.client(),
            tools=scenario.tools(),
            budget=scenario.budget,
            trace_dir=False,
            stream=args.stream,
            on_text=(lambda t: print(t, end="", flush=True)) if args.stream else None,
            on_event=show_event if args.stream else None,
        )
        rows.append(
            {
                tr("cli.col.scenario"): scenario.name,
                tr("cli.col.steps"): result.steps,
                tr("cli.col.requests"): result.model_requests,
                tr("report.col.outcome"): result.outcome,
                tr("report.col.stop_reason"): result.stop_reason,
                tr("report.col.phase"): result.phase or "",
            }
        )
    # East Asian width: a Chinese character takes two columns in a terminal.
    with pd.option_context("display.unicode.east_asian_width", True):
        print("\n" + pd.DataFrame(rows).to_string(index=False))
    return 0


def show_event(event: dict[str, Any]) -> None:
    """One readable line per phase, for a live demo, and one for how the run stopped."""
    if event.get("event") == "stop":
        how = {"stop_reason": event.get("stop_reason"), "outcome": event.get("outcome")}
        warnings = event.get("warnings") or []  # the last one says why it stopped
        line = tr("cli.stopped_why", **how, warning=warnings[-1]) if warnings else ""
        print(f"  {line or tr('cli.stopped', **how)}", flush=True)
        return
    if event.get("event") != "phase":
        return
    step, phase, status = event.get("step"), event.get("phase"), event.get("status")
    if phase == "decide":
        calls = ", ".join(c["name"] for c in event.get("calls") or []) or tr("cli.answer")
        detail = f"-> {calls}" if status == "ok" else f"({event.get('message', status)})"
    elif phase == "tool":
        detail = f"{event.get('tool')}({event.get('args')}) {event.get('error_code') or ''}"
    else:
        detail = event.get("reason") or ""
    print(f"  {tr('cli.step', step=step)} {phase:<8} {status:<8} {detail}".rstrip(), flush=True)


def command_sweep(args: argparse.Namespace) -> int:
    from ..course import experiments
    from ..course.report import plot_cap_tradeoff, plot_outcome_share, plot_steps_at_cap

    population = experiments.make_population(args.n, seed=args.seed)
    budget = experiments.with_repeat_guard if args.repeat_guard else None
    options = {"budget": budget, "workers": args.workers, "progress": sys.stderr.isatty()}
    results = experiments.sweep(population, args.caps, **options)
    summary = experiments.summarize(results)
    best = experiments.smallest_cap(summary, args.target)
    results.to_csv(args.out / "sweep.csv", index=False)
    summary.to_csv(args.out / "summary.csv", index=False)
    plot_outcome_share(results, save_to=args.out / "outcome_share.png")
    plot_steps_at_cap(results, best or max(args.caps), save_to=args.out / "steps_at_cap.png")
    plot_cap_tradeoff(summary, args.target, save_to=args.out / "cap_tradeoff.png")
    print(tr("cli.sweep.done", runs=len(results), steps=int(results["steps"].sum()), out=args.out))
    print(tr("cli.sweep.files"))
    target = f"{args.target:.0%}"
    if best is None:
        print(tr("cli.sweep.no_cap", low=args.caps[0], high=args.caps[-1], target=target))
    else:
        row = summary[summary["cap"] == best].iloc[0]
        rate, wasted = f"{row['completion_rate']:.0%}", int(row["wasted_steps"])
        print(tr("cli.sweep.best", target=target, cap=best, rate=rate, wasted=wasted))
    return 0


def command_trace(args: argparse.Namespace) -> int:
    """One HTML page from a trace file; a file that is not a trace is one line on stderr."""
    from ..course.display import trace_html
    from ..loop.trace import read_trace

    def fail(message: str) -> int:
        print(error_line("agentlab trace", message), file=sys.stderr)
        return 2

    try:
        events = read_trace(args.file)
    except (OSError, UnicodeDecodeError) as exc:
        return fail(tr("display.cli.cannot_read", path=str(args.file), reason=reason(exc)))
    except ValueError as exc:  # read_trace names the file and the line that is not JSON
        return fail(str(exc))
    if not events or not all(isinstance(e, dict) and "event" in e for e in events):
        return fail(tr("display.cli.not_a_trace", path=str(args.file)))
    out = args.out or args.file.with_suffix(".html")
    title = args.file.parent.name if args.file.name == "trace.jsonl" else args.file.stem
    try:
        out.write_text(trace_html(events, title=title), encoding="utf-8")
    except OSError as exc:
        return fail(tr("display.cli.cannot_write", path=str(out), reason=reason(exc)))
    print(out)
    return 0
