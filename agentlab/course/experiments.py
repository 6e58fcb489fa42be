"""Choosing a step cap from data: task populations, sweeps, derived measures.

A cap in single digits cuts off honest multi-step tasks; a cap in the
hundreds lets a runaway loop burn for a long time. Instead of guessing, run
a population of scripted tasks through the **real** ``run_agent`` at many
caps and look at what happens. :func:`make_population` draws a seeded
population of :class:`TaskProfile`:

=============  ================================================  ======================
kind           what the scripted model does                      at a large cap
=============  ================================================  ======================
``honest``     k tool steps, then answers                        completed
``recovers``   hits a tool error at step e, carries on, answers  completed
``gives_up``   hits a tool error at step e and gives up          tool_error
``runaway``    asks for a new tool step forever                  budget_exhausted
``repeater``   asks for the very same call forever               budget_exhausted
=============  ================================================  ======================

k, the tool steps an honest task needs, is drawn from 1..15 with weight
``16 - k`` (short tasks are common, long ones rare: P(k=1) = 15/120,
P(k=15) = 1/120).

:func:`sweep` runs every (profile, cap) pair, :func:`summarize` derives the
per-cap measures, :func:`smallest_cap` reads off the smallest cap that reaches
a completion-rate target, and :func:`bootstrap_caps` says how much that answer
would move with another sample of tasks. It draws nothing (``report.py``,
``explorer.py``) and adds nothing to the loop: every run is a plain
``run_agent`` call with a scripted client and ``trace_dir=False``.
"""

from __future__ import annotations

import numbers
import random
import signal
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..clients.script import Conversation, Turn, call, say
from ..clients.scripted import ScriptedClient
from ..i18n import tr
from ..loop.agent import run_agent
from ..loop.budget import SEED_REPEATS, Budget
from ..tools import Tool, ToolRegistry, error, ok

KINDS = ("honest", "recovers", "gives_up", "runaway", "repeater")
DEFAULT_MIX = {"honest": 0.6, "recovers": 0.1, "gives_up": 0.1, "runaway": 0.1, "repeater": 0.1}
MAX_TOOL_STEPS = 15


@dataclass(frozen=True)
class TaskProfile:
    """One scripted task: how its model behaves and what it would need."""

    id: int
    kind: str
    tool_steps: int  # successful tool steps the task needs (honest, recovers, gives_up)
    error_at: int | None = None  # the tool step that fails (recovers, gives_up)

    @property
    def needed_steps(self) -> int | None:
        """Steps (model requests) an unlimited run takes to end; ``None``: never."""
        if self.kind == "honest":
            return self.tool_steps + 1
        if self.kind == "recovers":
            return self.tool_steps + 2  # the failed call costs a step
        if self.kind == "gives_up":
            return self.error_at + 1
        return None

    @property
    def could_complete(self) -> bool:
        return self.kind in ("honest", "recovers")


def make_population(
    n: int = 200, seed: int = 0, mix: dict[str, float] | None = None
) -> list[TaskProfile]:
    """``n`` profiles drawn with ``random.Random(seed)``: same seed, same population."""
    mix = mix or DEFAULT_MIX
    unknown = set(mix) - set(KINDS)
    if unknown:
        names = ", ".join(sorted(unknown))
        raise ValueError(tr("experiments.unknown_kind", unknown=names, known=", ".join(KINDS)))
    rng = random.Random(seed)
    weights = [MAX_TOOL_STEPS + 1 - k for k in range(1, MAX_TOOL_STEPS + 1)]
    kinds = rng.choices(list(mix), weights=list(mix.values()), k=n)
    profiles = []
    for i, kind in enumerate(kinds):
        k = rng.choices(range(1, MAX_TOOL_STEPS + 1), weights=weights)[0]
        error_at = rng.randint(1, k) if kind in ("recovers", "gives_up") else None
        profiles.append(TaskProfile(i, kind, k, error_at))
    return profiles


def task_tools() -> ToolRegistry:
    """``do_step(n)`` does one part of the work; ``lookup(key)`` fails for ``missing``."""
    return ToolRegistry(
        [
            Tool(
                "do_step",
                tr("experiments.describe.do_step"),
                {"properties": {"n": {"type": "integer"}}, "required": ["n"]},
                lambda n: ok({"part": n, "done": True}),
            ),
            Tool(
                "lookup",
                tr("experiments.describe.lookup"),
                {"properties": {"key": {"type": "string"}}, "required": ["key"]},
                lambda key: (
                    error("NOT_FOUND", tr("experiments.no_value", key=repr(key)))
                    if key == "missing"
                    else ok({"key": key})
                ),
            ),
        ]
    )


def policy_for(profile: TaskProfile) -> Callable[[Conversation], Turn]:
    """The scripted model that plays ``profile``, deciding from the conversation."""

    def policy(conversation: Conversation) -> Turn:
        history = conversation.exchanges()
        done = sum(1 for e in history if e.ok and e.tool == "do_step")
        if profile.kind == "runaway":
            return call("do_step", n=len(history) + 1)
        if profile.kind == "repeater":
            return call("do_step", n=1)
        if profile.kind in ("recovers", "gives_up") and len(history) + 1 == profile.error_at:
            return call("lookup", key="missing")
        if profile.kind == "gives_up" and history and not history[-1].ok:
            return say(tr("experiments.reply.gives_up"))
        if done >= profile.tool_steps:
            return say(tr("experiments.reply.done", done=done))
        return call("do_step", n=done + 1)

    return policy


def run_profile(profile: TaskProfile, cap: int, budget: Budget | None = None) -> dict:
    """Run one profile at one cap with the real loop; one tidy row."""
    budget = budget or Budget(max_steps=cap)
    result = run_agent(
        f"task {profile.id}",
        client=ScriptedClient(policy_for(profile), name=profile.kind),
        tools=task_tools(),
        budget=budget,
        on_text=None,
        trace_dir=False,
        task_id=f"p{profile.id}-cap{cap}",
    )
    return {
        "profile": profile.id,
        "kind": profile.kind,
        "needed_steps": profile.needed_steps,
        "could_complete": profile.could_complete,
        "cap": cap,
        "outcome": result.outcome,
        "stop_reason": result.stop_reason,
        "steps": result.steps,
        "model_requests": result.model_requests,
        "tokens": result.tokens,
    }


def with_repeat_guard(cap: int) -> Budget:
    """A budget of ``cap`` steps plus seed 002's repeat rule (3rd identical call
    refused, 4th stops), for ``sweep(..., budget=with_repeat_guard)``."""
    return Budget(max_steps=cap, **SEED_REPEATS)


def _run_batch(batch: list[tuple[dict, int, dict | None]]) -> list[dict]:
    """Worker entry point (module level so a process pool can call it)."""
    return [run_profile(TaskProfile(**p), cap, Budget(**b) if b else None) for p, cap, b in batch]


def sweep(
    population: Sequence[TaskProfile],
    caps: Iterable[int],
    budget: Callable[[int], Budget] | None = None,
    workers: int = 1,
    progress: bool = False,
) -> pd.DataFrame:
    """Every (profile, cap) pair through ``run_agent``; a tidy DataFrame.

    ``budget(cap)`` builds each run's budget (default ``Budget(max_steps=cap)``),
    e.g. :func:`with_repeat_guard` to add seed 002's repeat guard. ``workers > 1``
    spreads the runs over processes. ``progress`` shows a tqdm bar on stderr
    (keep it off in notebooks under test).
    """
    from tqdm import tqdm

    if not isinstance(caps, Iterable):  # caps=24: one number, not the caps to try
        raise TypeError(tr("experiments.caps_not_a_list", type=type(caps).__name__))
    # numpy's integers (np.arange, a DataFrame column) are caps too, kept as int
    caps = [
        int(c) if isinstance(c, numbers.Integral) and not isinstance(c, bool) else c for c in caps
    ]
    if not caps or any(not isinstance(c, int) or isinstance(c, bool) or c < 1 for c in caps):
        raise ValueError(tr("experiments.bad_caps"))
    if budget is not None and not callable(budget):  # Budget(...) itself, not a maker
        raise TypeError(tr("experiments.bad_budget", type=type(budget).__name__))
    budgets = {cap: budget(cap) for cap in caps} if budget else {}
    for made in budgets.values():
        if not isinstance(made, Budget):  # e.g. a lambda that forgot to return
            raise TypeError(tr("experiments.bad_budget", type=type(made).__name__))
    jobs = [
        (asdict(p), cap, asdict(budgets[cap]) if budget else None)
        for cap in caps
        for p in population
    ]
    if workers <= 1:
        rows = [_run_batch([job])[0] for job in tqdm(jobs, disable=not progress, unit="run")]
    else:
        import multiprocessing

        size = max(1, len(jobs) // (workers * 8))
        batches = [jobs[i : i + size] for i in range(0, len(jobs), size)]
        rows = []
        with _deaf_to_ctrl_c(multiprocessing.get_context("spawn").Pool, workers) as pool:
            for part in tqdm(
                pool.imap(_run_batch, batches), total=len(batches), disable=not progress
            ):
                rows.extend(part)
    return pd.DataFrame(rows)


def _deaf_to_ctrl_c(make_pool: Callable[[int], Any], workers: int) -> Any:
    """A pool whose workers ignore Ctrl-C (they inherit the ignored signal from
    birth); the parent alone gets ``KeyboardInterrupt``, and leaving its ``with``
    block terminates them, so one Ctrl-C is one message, not one traceback per worker."""
    if threading.current_thread() is not threading.main_thread():
        return make_pool(workers)  # only the main thread may set a signal handler
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        return make_pool(workers)
    finally:
        signal.signal(signal.SIGINT, previous)


def summarize(results: pd.DataFrame) -> pd.DataFrame:
    """Per cap: completion rate, wasted steps, tokens per completed task, outcome shares."""
    rows = []
    for cap, group in results.groupby("cap", sort=True):
        able = group[group["could_complete"]]
        completed = group[group["outcome"] == "completed"]
        exhausted = group[group["outcome"] == "budget_exhausted"]
        row = {
            "cap": cap,
            "runs": len(group),
            "completion_rate": (able["outcome"] == "completed").mean() if len(able) else 0.0,
            "wasted_steps": int(exhausted["steps"].sum()),
            "total_steps": int(group["steps"].sum()),
            "tokens_per_completed": completed["tokens"].sum() / len(completed)
            if len(completed)
            else float("nan"),
        }
        for outcome in ("completed", "tool_error", "budget_exhausted", "model_error"):
            row[f"share_{outcome}"] = (group["outcome"] == outcome).mean()
        rows.append(row)
    return pd.DataFrame(rows)


def smallest_cap(summary: pd.DataFrame, target: float = 0.95) -> int | None:
    """The smallest cap whose completion rate reaches ``target`` (None if none does)."""
    check_target(target)
    reached = summary[summary["completion_rate"] >= target]
    return int(reached["cap"].min()) if len(reached) else None


def check_target(target: Any) -> None:
    """A completion rate in (0, 1]: 95 (a percentage) would find no cap, silently."""
    rate = isinstance(target, int | float | np.number) and not isinstance(target, bool)
    if not (rate and 0 < target <= 1):
        raise ValueError(tr("experiments.bad_target", target=target))


def bootstrap_caps(
    results: pd.DataFrame, target: float = 0.95, draws: int = 1000, seed: int = 0
) -> list[int | None]:
    """How sure is the smallest good cap? Resample the tasks with replacement
    ``draws`` times (seeded) and find the smallest good cap of each sample.

    The spread of the answers is the uncertainty a sample of a few dozen
    tasks leaves; ``None`` means that sample reached the target at no cap.
    Example: for the 30 tasks of seed 0 (chapter 05's first sample), 844 of
    1000 samples say 13 and the rest 12 down to 9: the one population's 13
    is not a law. Chapter 05 resamples its four samples pooled (120 tasks).
    """
    check_target(target)
    caps = sorted(results["cap"].unique())
    # one row per task that could complete: did it complete at each cap?
    able = results[results["could_complete"]]
    completed = (able["outcome"] == "completed").groupby([able["profile"], able["cap"]]).any()
    table = completed.unstack("cap").reindex(columns=caps, fill_value=False)
    tasks = results["profile"].unique()
    row_of = {task: i for i, task in enumerate(table.index)}
    done = table.to_numpy(dtype=float)
    rng = np.random.default_rng(seed)
    found: list[int | None] = []
    for _ in range(draws):
        sample = rng.choice(tasks, size=len(tasks), replace=True)
        rows = [row_of[task] for task in sample if task in row_of]
        rate = done[rows].mean(axis=0) if rows else np.zeros(len(caps))
        good = np.flatnonzero(rate >= target)
        found.append(int(caps[good[0]]) if len(good) else None)
    return found


def cap_interval(caps: list[int | None], level: float = 0.9) -> tuple[int | None, int | None]:
    """The central ``level`` share of the caps :func:`bootstrap_caps` found.

    ``None`` (a sample that reached the target at no cap) counts as larger
    than any cap, so a ``None`` at the top end says: some samples never got
    there. Example: ``cap_interval([12, 13, 13, 14, 15], 0.6)`` -> ``(13, 14)``.
    """
    if not caps:  # e.g. bootstrap_caps(..., draws=0)
        raise ValueError(tr("experiments.no_caps"))
    ordered = sorted(caps, key=lambda c: float("inf") if c is None else c)
    tail = (1 - level) / 2
    last = len(ordered) - 1
    return ordered[round(tail * last)], ordered[round((1 - tail) * last)]
