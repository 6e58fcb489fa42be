"""What a student must open to follow one run: the run path, in lines.

One honest, non-streamed run of the sales analyst (the scripted
``honest_analyst`` over ``sales_tools()``, default budget, no trace file) is
traced line by line. A package module is on the path when

- the run executes a line of it, or
- an executed line reads a name the module defines (a constant, a class used
  in ``isinstance``), found from the importing module's ``from ... import``.

The model client (``agentlab/clients/``) is left out, with what it calls (a
scripted reply looks its words up in the catalog): a real service replaces it,
and the loop is the same. For every module on the path the script prints
its lines (all of them: a reader sees docstrings and comments too) and how
many of them the run executed. Goal: at most 1,200 lines, at least 40 %
executed. Messages the run looks up (``tr`` keys) are listed apart: they are
entries of the catalog files, not Python. A last line gives the totals of the
same run with a client that carries a real-looking key (``keys.py``): the
path a reader follows to see how the key is kept out of the run.

    .venv/bin/python benchmarks/run_path.py
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

import agentlab
from agentlab import run_agent
from agentlab.clients import scripted
from agentlab.tools import sales_tools

try:  # the keys live beside this script
    from benchmarks.keys import KEY
except ImportError:  # run as a script: benchmarks/ is sys.path[0]
    from keys import KEY  # type: ignore[no-redef]

PACKAGE = Path(agentlab.__file__).parent
QUESTION = "分析 data/input/sales.csv，哪个类别销售额最高？各类别销售额和总销售额是多少？"
GOAL_LINES, GOAL_SHARE = 1200, 0.40


def module_name(path: Path) -> str:
    return path.relative_to(PACKAGE).as_posix()


def on_the_path(path: Path) -> bool:
    rel = module_name(path)
    return not rel.startswith("clients/")


def called_by_the_client(frame) -> bool:
    """Whether a client's code is up the stack: what it calls (its replies look
    messages up, say) is the service's work, not the loop's."""
    clients = str(PACKAGE / "clients")
    caller = frame.f_back
    while caller is not None:
        if caller.f_code.co_filename.startswith(clients):
            return True
        caller = caller.f_back
    return False


def executed_lines(work) -> dict[Path, set[int]]:
    """Every (file, line) of the package the work executes, outside the clients
    and what they call."""
    hits: dict[Path, set[int]] = defaultdict(set)
    prefix = str(PACKAGE)

    def tracer(frame, event, arg):
        filename = frame.f_code.co_filename
        if not filename.startswith(prefix):
            return None
        path = Path(filename)
        if not on_the_path(path) or (event == "call" and called_by_the_client(frame)):
            return None
        if event in ("line", "call"):
            hits[path].add(frame.f_lineno)
        return tracer

    sys.settrace(tracer)
    try:
        work()
    finally:
        sys.settrace(None)
    return hits


def imported_from(path: Path) -> dict[str, Path]:
    """Names a module takes from other package modules: name -> defining file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = path.relative_to(PACKAGE).parent.parts
    names: dict[str, Path] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = list(here[: len(here) - (node.level - 1)])
        elif (node.module or "").startswith("agentlab"):
            base = []
        else:
            continue
        module = (node.module or "").removeprefix("agentlab").strip(".")
        parts = base + (module.split(".") if module else [])
        for alias in node.names:
            for candidate in (
                PACKAGE.joinpath(*parts, alias.name + ".py"),
                PACKAGE.joinpath(*parts, alias.name, "__init__.py"),
                PACKAGE.joinpath(*parts).with_suffix(".py"),
                PACKAGE.joinpath(*parts, "__init__.py"),
            ):
                if candidate.is_file():
                    names[alias.asname or alias.name] = candidate
                    break
    return names


def names_read(path: Path, lines: set[int]) -> set[str]:
    """Names (and ``module.NAME`` heads) loaded on the executed lines."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    # Annotations and default values are read when a function is defined, not when it runs.
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            parts = [node.returns, *node.args.defaults, *node.args.kw_defaults]
            parts += [a.annotation for a in (*node.args.args, *node.args.kwonlyargs)]
            skipped |= {id(n) for part in parts if part is not None for n in ast.walk(part)}
        elif isinstance(node, ast.AnnAssign):
            skipped |= {id(n) for n in ast.walk(node.annotation)}
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if node.lineno in lines and id(node) not in skipped:
                found.add(node.id)
    return found


def message_keys(path: Path, lines: set[int]) -> set[str]:
    """Catalog keys passed to ``tr(...)`` on the executed lines."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    keys: set[str] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", None)) == "tr"
            and node.lineno in lines
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            keys.add(node.args[0].value)
    return keys


def measure(key: str | None = None) -> tuple[dict[Path, set[int]], set[str]]:
    client, tools = scripted("honest_analyst"), sales_tools()
    if key is not None:
        client = client.with_options(api_key=key)
    outcome = {}

    def run() -> None:
        outcome["run"] = run_agent(QUESTION, client=client, tools=tools, trace_dir=False)

    run_agent(QUESTION, client=scripted("honest_analyst"), tools=tools, trace_dir=False)  # warm
    hits = executed_lines(run)
    assert outcome["run"].outcome == "completed", outcome["run"]
    path_modules: dict[Path, set[int]] = {p: set(lines) for p, lines in hits.items()}
    keys: set[str] = set()
    for path, lines in hits.items():
        keys |= message_keys(path, lines)
        sources = imported_from(path)
        for name in names_read(path, lines):
            source = sources.get(name)
            if source is not None and on_the_path(source) and source not in path_modules:
                path_modules[source] = set()
    return path_modules, keys


def main() -> None:
    modules, keys = measure()
    total_lines = total_run = 0
    print(f"{'module':34} {'lines':>6} {'run':>5} {'share':>6}")
    for path in sorted(modules, key=module_name):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        run = len(modules[path])
        total_lines += lines
        total_run += run
        print(f"{module_name(path):34} {lines:6d} {run:5d} {run / lines:6.0%}")
    share = total_run / total_lines if total_lines else 0.0
    label = f"total: {len(modules)} modules"
    print(f"{label:34} {total_lines:6d} {total_run:5d} {share:6.0%}")
    print(f"goal: at most {GOAL_LINES} lines, at least {GOAL_SHARE:.0%} of them run")
    print(f"message keys the run looks up: {len(keys)} {sorted(keys)}")
    keyed, _ = measure(KEY)
    lines = sum(len(path.read_text(encoding="utf-8").splitlines()) for path in keyed)
    run = sum(len(hits) for hits in keyed.values())
    print(
        f"with a real-looking key: {len(keyed)} modules, {lines} lines, {run} run "
        f"({run / lines:.0%})"
    )


if __name__ == "__main__":
    main()
