"""Mutation testing of the exercises' checks (``make mutants``).

    python tests/mutants.py [--exercise ID ...] [--time-limit S] [--verbose]

A check is proven by the wrong answers it rejects. Hand-picked wrong answers (the
named mistakes of each unit) cannot prove it: this script makes them by the
hundred. Every reference answer is mutated, one small change at a time, by the
mutators below, applied to the reference's source as the named mistakes are
(``mistakes.edited``: the changed source runs in a copy of its chapter module's
namespace):

- code (a function, or a class and its methods): a comparison flipped (``<`` to
  ``<=``, ``in`` to ``not in`` ...), a number one off, ``True``/``False`` swapped,
  ``and``/``or`` swapped, a ``not`` dropped, ``+``/``-`` swapped, ``+=`` made ``=``,
  ``max``/``min`` and ``any``/``all`` swapped, a string key changed (identifier-like
  strings only: ``"role"``, ``"transient"``; prose is for people and not judged), a
  statement dropped, a condition negated, a function made to return at once;
- a prediction (a dict): each field's value changed (a number one off, a bool
  flipped, a text changed, a list one short);
- a "read" exercise: its reading function mutated as code, then read from the data.

Code the check never runs on the reference (a chapter 03 check never raises an HTTP
error, so the retry code of a reference shared with chapter 04 never runs) is not
mutated: no run could tell such a mutant apart (``mutmut --use-coverage`` does the
same). The lines run are traced once per exercise, in this process.

Each mutant is judged by its exercise's check (``judge``, in a forked copy, as in a
notebook) and must not pass. A mutant that passes is a survivor: the check misses
a wrong answer (make the check see it, and name it as a mistake in the unit), or
the mutant is equivalent (it does the same as the reference, or differs only where
the exercise asks nothing): those are listed in ``tests/mutants_equivalent.toml``,
each with its reason. Prints the survivors that are not listed, and listed ones that
no mutant matches any more; exits 1 if there is either.

This script does not judge the named mistakes (``agentlab exercises verify`` does).
"""

from __future__ import annotations

import argparse
import ast
import copy
import inspect
import os
import sys
import textwrap
import threading
import time
import tomllib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

EQUIVALENT = Path(__file__).with_name("mutants_equivalent.toml")

COMPARE_FLIPS = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In,
    ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}  # fmt: skip
OPERATOR_SWAPS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.FloorDiv: ast.Div}
NAME_SWAPS = {"max": "min", "min": "max", "any": "all", "all": "any"}


@dataclass(frozen=True)
class Mutant:
    exercise: str
    name: str  # "<what changed>: <line before> → <line after>", unique within the exercise
    answer: Callable[[], Any]  # makes the wrong answer (compiling it may fail: then it is killed)


# -- mutating code -----------------------------------------------------------------------


def _sites(tree: ast.AST) -> Iterator[tuple[int, str, Any]]:
    """(index of the node in ``ast.walk`` order, mutator, variant) for every mutation."""
    for index, node in enumerate(ast.walk(tree)):
        if isinstance(node, ast.Compare):
            for k, op in enumerate(node.ops):
                if type(op) in COMPARE_FLIPS:
                    yield index, "comparison", k
        elif isinstance(node, ast.Constant) and not _is_docstring(node, tree):
            value = node.value
            if isinstance(value, bool):
                yield index, "bool", None
            elif isinstance(value, int | float):
                yield index, "number", +1
                yield index, "number", -1
            elif isinstance(value, str) and (value == "" or _is_key(value)):
                yield index, "string", None
        elif isinstance(node, ast.BoolOp):
            yield index, "and/or", None
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            yield index, "not dropped", None
        elif isinstance(node, ast.BinOp) and type(node.op) in OPERATOR_SWAPS:
            yield index, "operator", None
        elif isinstance(node, ast.AugAssign):
            yield index, "+= made =", None
        elif isinstance(node, ast.Name) and node.id in NAME_SWAPS:
            yield index, "name", None
        if isinstance(node, ast.If | ast.While | ast.IfExp):
            yield index, "condition negated", None
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) and node.body:
            if not isinstance(node, ast.Lambda):
                yield index, "returns at once", None
        for field in ("body", "orelse", "finalbody"):
            statements = getattr(node, field, None)
            if isinstance(statements, list) and not isinstance(node, ast.Module):
                for k, statement in enumerate(statements):
                    if not _is_docstring_statement(statement, node, k):
                        yield index, "statement dropped", (field, k)


def _is_key(text: str) -> bool:
    """A key or a code ("role", "UNKNOWN_TOOL"), not words for a person or a model."""
    return text.isascii() and text.isidentifier()


def _is_docstring_statement(statement: ast.stmt, parent: ast.AST, k: int) -> bool:
    return (
        k == 0
        and isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _is_docstring(node: ast.Constant, tree: ast.AST) -> bool:
    return any(
        isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and parent.body
        and _is_docstring_statement(parent.body[0], parent, 0)
        and parent.body[0].value is node
        for parent in ast.walk(tree)
    )


def _mutate(node: ast.AST, mutator: str, variant: Any) -> None:
    """Make the mutation in place, on ``node`` (a node of a copy of the tree)."""
    if mutator == "comparison":
        node.ops[variant] = COMPARE_FLIPS[type(node.ops[variant])]()
    elif mutator == "bool":
        node.value = not node.value
    elif mutator == "number":
        node.value = node.value + variant
    elif mutator == "string":
        node.value = node.value + "X" if node.value else "X"
    elif mutator == "and/or":
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif mutator == "not dropped":
        # `not x` becomes `(x)`: a BoolOp of one value is unparsed as the value itself
        node.__class__, node.op, node.values = ast.BoolOp, ast.Or(), [node.operand]
        del node.operand
    elif mutator == "operator":
        node.op = OPERATOR_SWAPS[type(node.op)]()
    elif mutator == "+= made =":
        node.__class__, node.targets, node.value = ast.Assign, [node.target], node.value
        del node.target, node.op
    elif mutator == "name":
        node.id = NAME_SWAPS[node.id]
    elif mutator == "condition negated":
        node.test = ast.UnaryOp(ast.Not(), node.test)
    elif mutator == "returns at once":
        node.body.insert(_after_docstring(node), ast.Return(None))
    elif mutator == "statement dropped":
        field, k = variant
        getattr(node, field)[k] = ast.Pass()


def _after_docstring(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    return 1 if _is_docstring_statement(function.body[0], function, 0) else 0


def _line(tree: ast.AST, index: int, mutator: str, variant: Any) -> str:
    """The statement the mutation is in, as one line (a compound statement: its header)."""
    nodes = list(ast.walk(tree))
    target = nodes[index]
    if mutator == "statement dropped":
        field, k = variant
        target = getattr(target, field)[k]
    elif mutator == "returns at once":
        return _header(target)
    enclosing = target
    for node in nodes:  # the innermost statement holding the target
        if isinstance(node, ast.stmt) and any(n is target for n in ast.walk(node)):
            enclosing = node
    return _header(enclosing)


def _header(statement: ast.AST) -> str:
    if isinstance(statement, ast.If | ast.For | ast.While | ast.With | ast.Try):
        copied = copy.copy(statement)
        copied.body, copied.orelse = [ast.Pass()], []
        if isinstance(copied, ast.Try):
            copied.handlers, copied.finalbody = [], [ast.Pass()]
        return ast.unparse(copied).splitlines()[0]
    if isinstance(statement, ast.FunctionDef | ast.ClassDef):
        copied = copy.copy(statement)
        copied.body, copied.decorator_list = [ast.Pass()], []
        return ast.unparse(copied).splitlines()[0]
    return " ".join(ast.unparse(statement).split())


def lines_run(exercise: Any, function: Any) -> set[int]:
    """The lines of ``function``'s source (1 = its first) that ``exercise``'s check runs
    when it judges the reference, in this process, threads included."""
    from agentlab.course.exercises.running import _judge, _prepared

    filename = inspect.getsourcefile(function)
    lines, first = inspect.getsourcelines(function)
    seen: set[int] = set()

    def local(frame: Any, event: str, arg: Any) -> Any:
        if event == "line" and first <= frame.f_lineno < first + len(lines):
            seen.add(frame.f_lineno - first + 1)
        return local

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename == filename else None

    _prepared(exercise)
    threading.settrace(tracer)
    sys.settrace(tracer)
    try:
        _judge(exercise, function, 30.0)
    finally:
        sys.settrace(None)
        threading.settrace(None)  # type: ignore[arg-type]
    return seen


def _statement_run(tree: ast.AST, node: ast.AST, run: set[int]) -> bool:
    """Did any line of the innermost statement that holds ``node`` run?"""
    start, end = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
    if start is None or end is None:
        return True
    holders = [
        statement
        for statement in ast.walk(tree)
        if isinstance(statement, ast.stmt)
        and statement.lineno <= start
        and end <= (statement.end_lineno or statement.lineno)
    ]
    if not holders:
        return True
    holder = min(holders, key=lambda s: (s.end_lineno or s.lineno) - s.lineno)
    return any(line in run for line in range(holder.lineno, (holder.end_lineno or 0) + 1))


def code_mutants(
    exercise: str, function: Any, run: set[int] | None = None
) -> Iterator[tuple[str, Any]]:
    """(name, a maker of the mutated function or class) for every mutation of its source
    on a line in ``run`` (every line when None)."""
    source = textwrap.dedent(inspect.getsource(function))
    tree = ast.parse(source)
    nodes = list(ast.walk(tree))
    made = []
    for index, mutator, variant in _sites(tree):
        site = nodes[index]
        if mutator == "statement dropped":  # the site holds the list; this is what goes
            site = getattr(site, variant[0])[variant[1]]
        if run is not None and not _statement_run(tree, site, run):
            continue
        mutated = copy.deepcopy(tree)
        before = _line(tree, index, mutator, variant)
        _mutate(list(ast.walk(mutated))[index], mutator, variant)
        after = _line(mutated, index, mutator, variant)
        after = {"returns at once": "return", "statement dropped": "pass"}.get(mutator, after)
        where = (getattr(nodes[index], "lineno", 0), getattr(nodes[index], "col_offset", 0))
        new_source = ast.unparse(ast.fix_missing_locations(mutated))
        made.append((where, f"{mutator}: {before} → {after}", new_source))
    seen: Counter[str] = Counter()
    for _, name, new_source in sorted(made, key=lambda m: m[0]):  # (2) is the later line
        seen[name] += 1
        yield (
            name + (f" ({seen[name]})" if seen[name] > 1 else ""),
            _compiled(function, source, new_source),
        )


def _compiled(function: Any, source: str, new_source: str) -> Callable[[], Any]:
    from agentlab.course.exercises.mistakes import edited

    return lambda: edited(function, {source: new_source})


# -- mutating predictions ----------------------------------------------------------------


def value_mutants(value: Any) -> list[Any]:
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [value + 1, value - 1]
    if isinstance(value, float):
        return [round(value + 0.1, 6), round(value - 0.1, 6)]
    if isinstance(value, str):
        return [value + "X"]
    if isinstance(value, list):
        return [value[:-1], value + value[-1:]] if value else [["X"]]
    if value is None:
        return [0]
    return []


def prediction_mutants(reference: dict[Any, Any]) -> Iterator[tuple[str, Any]]:
    for field, value in reference.items():
        for changed in value_mutants(value):
            answer = {**reference, field: changed}
            yield f"field: {field} = {value!r} → {changed!r}", (lambda a=answer: a)


# -- every exercise ----------------------------------------------------------------------


def mutants(exercise: Any) -> Iterator[Mutant]:
    if exercise.data is not None:  # a reading: the reading function, mutated, reads the data
        for name, make in code_mutants(exercise.id, exercise.solution):
            yield Mutant(exercise.id, name, lambda make=make: make()(exercise.data()))
    elif isinstance(exercise.reference, dict):
        for name, make in prediction_mutants(exercise.reference):
            yield Mutant(exercise.id, name, make)
    else:
        run = lines_run(exercise, exercise.reference)
        for name, make in code_mutants(exercise.id, exercise.reference, run):
            yield Mutant(exercise.id, name, make)


def equivalents() -> dict[str, dict[str, str]]:
    """{exercise id: {mutant name: why it is equivalent}}."""
    return tomllib.loads(EQUIVALENT.read_text(encoding="utf-8"))


def judged(mutant: Mutant, exercise: Any, time_limit_s: float) -> str:
    from agentlab.course.exercises.running import judge

    try:
        answer = mutant.answer()
    except Exception:  # the mutant does not compile or cannot be read: it is no answer
        return "killed"
    return judge(exercise, answer, time_limit_s).status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--exercise", action="append", help="only these exercises")
    parser.add_argument("--time-limit", type=float, default=3.0, help="per mutant (seconds)")
    parser.add_argument("--verbose", action="store_true", help="print every mutant")
    args = parser.parse_args(argv)
    os.environ.setdefault("AGENTLAB_LANG", "zh")
    from agentlab.course.exercises import exercises

    listed = equivalents()
    started = time.monotonic()
    made = killed = explained = 0
    survivors, matched = [], set()
    for exercise in exercises():
        if args.exercise and exercise.id not in args.exercise:
            continue
        for mutant in mutants(exercise):
            made += 1
            status = judged(mutant, exercise, args.time_limit)
            reason = listed.get(exercise.id, {}).get(mutant.name)
            if status != "passed":
                killed += 1
            elif reason is not None:
                explained += 1
                matched.add((exercise.id, mutant.name))
            else:
                survivors.append(mutant)
            if args.verbose:
                print(f"{status:8} {exercise.id:22} {mutant.name}", flush=True)
    stale = [
        (exercise_id, name)
        for exercise_id, names in listed.items()
        if not args.exercise or exercise_id in args.exercise
        for name in names
        if (exercise_id, name) not in matched
    ]
    for mutant in survivors:
        print(f"survived: {mutant.exercise}: {mutant.name}")
    for exercise_id, name in stale:
        print(f"listed as equivalent, but no surviving mutant has that name: {exercise_id}: {name}")
    seconds = time.monotonic() - started
    print(
        f"{made} mutants: {killed} killed, {explained} equivalent (listed with a reason), "
        f"{len(survivors)} unexplained survivors; {seconds:.0f} s"
    )
    return 1 if survivors or stale else 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    sys.exit(main())
