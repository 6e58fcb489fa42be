"""The instructor's terminal tool: ``agentlab run | demo | sweep``.

``python -m agentlab`` and the ``agentlab`` console script both land here.

- ``run "问题"`` asks one question and prints the result as JSON (the
  seed's ``python agent.py``). It uses a real model when ``.env`` configures
  one, a scripted one when asked (``--scripted``) or when none is
  configured, and says which on stderr so stdout stays pure JSON.
- ``demo`` plays the outcome scenarios and prints a table an instructor
  can project; ``--stream`` shows each phase and streamed text live.
- ``sweep`` runs a task population over a range of caps and writes the tidy
  CSV, the per-cap summary and the three charts of chapter 04.
- ``trace FILE`` turns a run's JSONL trace into one self-contained HTML
  page (no network needed to read it) and prints where it wrote it.

Bad arguments print one line and exit with code 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .budget import MAX_STEPS, Budget
from .clients import BEHAVIOURS, ModelConfigError, load_settings, scripted
from .loop import run_agent
from .tools import file_tools, sales_tools, sandbox_copy

DEFAULT_SCRIPTED = {"sales": "honest_analyst", "files": "todo_clerk"}


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def parse_caps(text: str) -> list[int]:
    """``"1-30"``, ``"1,2,5,10"`` or a mix like ``"1-5,10,20"``."""
    caps: list[int] = []
    try:
        for part in text.split(","):
            if "-" in part:
                low, high = (int(x) for x in part.split("-", 1))
                if low > high:
                    raise ValueError
                caps.extend(range(low, high + 1))
            else:
                caps.append(int(part))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"invalid caps {text!r}: use a range like 1-30 or a list like 1,2,5"
        ) from None
    if not caps or min(caps) < 1:
        raise argparse.ArgumentTypeError("caps must be positive integers")
    return sorted(set(caps))


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def build_parser() -> OneLineParser:
    parser = OneLineParser(
        prog="agentlab",
        description="Run the course's agent loop from a terminal (keyless unless .env is set).",
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)

    run = commands.add_parser("run", help="ask one question and print the result as JSON")
    run.add_argument(
        "question", help='the task, e.g. "分析 data/input/sales.csv，哪个类别销售额最高？"'
    )
    run.add_argument(
        "--max-steps", type=positive_int, default=MAX_STEPS, help=f"step cap (default {MAX_STEPS})"
    )
    run.add_argument(
        "--scripted",
        choices=sorted(BEHAVIOURS),
        help="use this scripted model even if a real one is configured",
    )
    run.add_argument(
        "--tools",
        choices=sorted(DEFAULT_SCRIPTED),
        default="sales",
        help="sales: analyze_csv over data/input/; files: a fresh sandbox copy",
    )
    run.add_argument("--stream", action="store_true", help="stream the reply (text to stderr)")

    demo = commands.add_parser("demo", help="play the outcome scenarios and print a table")
    demo.add_argument("--stream", action="store_true", help="show every phase and text live")

    sweep = commands.add_parser("sweep", help="run a population over many caps; write CSV + charts")
    sweep.add_argument(
        "--caps",
        type=parse_caps,
        default=parse_caps("1-30"),
        help="caps to try, e.g. 1-30 or 1,2,5,10 (default 1-30)",
    )
    sweep.add_argument("--seed", type=int, default=0, help="population seed (default 0)")
    sweep.add_argument("--n", type=positive_int, default=200, help="tasks in the population")
    sweep.add_argument("--workers", type=positive_int, default=1, help="processes to use")
    sweep.add_argument(
        "--target",
        type=float,
        default=0.95,
        help="completion rate the recommended cap must reach (default 0.95)",
    )
    sweep.add_argument(
        "--repeat-guard",
        action="store_true",
        help="also stop at the 4th identical call (seed table)",
    )
    sweep.add_argument("--out", type=Path, required=True, help="folder for the CSV and charts")

    trace = commands.add_parser("trace", help="write a run trace (JSONL) as one HTML page")
    trace.add_argument("file", type=Path, help="a trace.jsonl, e.g. runs/<task_id>/trace.jsonl")
    trace.add_argument("--out", type=Path, help="the HTML file to write (default: FILE with .html)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "run":
        return command_run(args)
    if args.command == "demo":
        return command_demo(args)
    if args.command == "trace":
        return command_trace(args)
    if args.out.exists() and not args.out.is_dir():
        parser.error(f"--out {str(args.out)!r} exists and is not a folder")
    if not 0 < args.target <= 1:
        parser.error("--target must be a completion rate between 0 and 1")
    return command_sweep(args)


def command_run(args: argparse.Namespace) -> int:
    tools = sales_tools() if args.tools == "sales" else file_tools(sandbox_copy())
    model_options: dict[str, Any] = {}
    if args.scripted:
        client = scripted(args.scripted)
        note = f"using the scripted model {args.scripted!r} (asked for)"
    else:
        try:
            settings = load_settings()
        except ModelConfigError as exc:
            name = DEFAULT_SCRIPTED[args.tools]
            client = scripted(name)
            note = f"using the scripted model {name!r}: {exc}"
        else:
            client = settings.client()
            model_options["model"] = settings.model
            note = f"using the real model {settings.model!r} ({settings.provider})"
    print(note, file=sys.stderr)
    result = run_agent(
        args.question,
        client=client,
        tools=tools,
        budget=Budget(max_steps=args.max_steps),
        stream=args.stream,
        on_text=lambda text: print(text, end="", file=sys.stderr, flush=True),
        **model_options,
    )
    print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
    return 0 if result.status == "completed" else 1


def demo_scenarios() -> dict[str, Callable[..., Any]]:
    """Name -> a function running that scenario with the given extra options."""
    from .clients import Hang, ScriptedClient, call
    from .faults import fault_tools, keeps_calling

    question = "分析 data/input/sales.csv，告诉我销售额最高的类别和总销售额。"
    faults, _ = fault_tools(hang_seconds=2.0)
    cap = Budget(max_steps=MAX_STEPS)
    return {
        "正常完成": lambda **o: run_agent(
            question, client=scripted("honest_analyst"), tools=sales_tools(), budget=cap, **o
        ),
        "文件缺失": lambda **o: run_agent(
            question.replace("sales.csv", "sales_2023.csv"),
            client=scripted("honest_analyst"),
            tools=sales_tools(),
            budget=cap,
            **o,
        ),
        "永不停止": lambda **o: run_agent(
            question, client=scripted("never_stops"), tools=sales_tools(), budget=cap, **o
        ),
        "重复调用": lambda **o: run_agent(
            "等构建完成",
            tools=faults,
            budget=Budget.seed_table(),
            client=ScriptedClient(keeps_calling("same_result")),
            **o,
        ),
        "模型不返回": lambda **o: run_agent(
            "x",
            client=ScriptedClient([Hang(2.0)]),
            tools=faults,
            budget=Budget(max_seconds=0.2),
            **o,
        ),
        "工具挂住": lambda **o: run_agent(
            "x",
            client=ScriptedClient([call("hang_isolated")]),
            tools=faults,
            budget=Budget(max_seconds=0.5),
            **o,
        ),
    }


def command_demo(args: argparse.Namespace) -> int:
    import pandas as pd

    rows = []
    for name, play in demo_scenarios().items():
        if args.stream:
            print(f"\n== {name}", flush=True)
        options: dict[str, Any] = {"trace_dir": False, "stream": args.stream}
        options["on_text"] = (lambda t: print(t, end="", flush=True)) if args.stream else None
        options["on_event"] = show_event if args.stream else None
        result = play(**options)
        rows.append(
            {
                "scenario": name,
                "steps": result.steps,
                "requests": result.model_requests,
                "outcome": result.outcome,
                "stop_reason": result.stop_reason,
                "phase": result.phase or "",
            }
        )
    with pd.option_context("display.unicode.east_asian_width", True):
        print("\n" + pd.DataFrame(rows).to_string(index=False))
    return 0


def show_event(event: dict[str, Any]) -> None:
    """One readable line per phase, for a live demo."""
    if event.get("event") != "phase":
        return
    step, phase, status = event.get("step"), event.get("phase"), event.get("status")
    if phase == "decide":
        calls = ", ".join(event.get("calls") or []) or "answer"
        detail = f"-> {calls}" if status == "ok" else f"({event.get('message', status)})"
    elif phase == "tool":
        detail = f"{event.get('tool')}({event.get('args')}) {event.get('error_code') or ''}"
    else:
        detail = event.get("reason") or ""
    print(f"  step {step} {phase:<8} {status:<8} {detail}".rstrip(), flush=True)


def command_sweep(args: argparse.Namespace) -> int:
    from .experiments import make_population, smallest_cap, summarize, sweep
    from .report import plot_cap_tradeoff, plot_outcome_share, plot_steps_at_cap

    population = make_population(args.n, seed=args.seed)
    budget = None
    if args.repeat_guard:  # the seed table's repeat rule: 3rd refused, 4th stops
        budget = lambda cap: Budget(max_steps=cap, repeat_hint_at=3, max_repeats=4)  # noqa: E731
    results = sweep(
        population, args.caps, budget=budget, workers=args.workers, progress=sys.stderr.isatty()
    )
    summary = summarize(results)
    best = smallest_cap(summary, args.target)
    args.out.mkdir(parents=True, exist_ok=True)
    results.to_csv(args.out / "sweep.csv", index=False)
    summary.to_csv(args.out / "summary.csv", index=False)
    plot_outcome_share(results, save_to=args.out / "outcome_share.png")
    plot_steps_at_cap(results, best or max(args.caps), save_to=args.out / "steps_at_cap.png")
    plot_cap_tradeoff(summary, args.target, save_to=args.out / "cap_tradeoff.png")
    print(f"{len(results)} runs, {int(results['steps'].sum())} steps -> {args.out}/")
    print("files: sweep.csv summary.csv outcome_share.png steps_at_cap.png cap_tradeoff.png")
    if best is None:
        print(f"no cap in {args.caps[0]}..{args.caps[-1]} reaches {args.target:.0%} completion")
    else:
        row = summary[summary["cap"] == best].iloc[0]
        print(
            f"smallest cap reaching {args.target:.0%} completion: {best} "
            f"(completion {row['completion_rate']:.0%}, wasted steps {int(row['wasted_steps'])})"
        )
    return 0


def command_trace(args: argparse.Namespace) -> int:
    """One HTML page from a trace file; a file that is not a trace is one line on stderr."""
    from .display import trace_html
    from .trace import read_trace

    try:
        events = read_trace(args.file)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        print(f"agentlab trace: error: cannot read {str(args.file)!r}: {reason}", file=sys.stderr)
        return 2
    if not events or not all(isinstance(e, dict) and "event" in e for e in events):
        print(f"agentlab trace: error: {str(args.file)!r} is not a run trace", file=sys.stderr)
        return 2
    out = args.out or args.file.with_suffix(".html")
    title = args.file.parent.name if args.file.name == "trace.jsonl" else args.file.stem
    try:
        out.write_text(trace_html(events, title=title), encoding="utf-8")
    except OSError as exc:
        print(f"agentlab trace: error: cannot write {str(out)!r}: {exc.strerror}", file=sys.stderr)
        return 2
    print(out)
    return 0
