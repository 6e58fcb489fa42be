"""Tables and charts over many runs: how did each run end, and after how many steps?

:func:`outcome_table` puts runs side by side in a pandas DataFrame (one row per
scenario) and :func:`style_outcomes` colours it by outcome; the ``plot_*``
functions chart steps by outcome, where a run's time went phase by phase, how
the history a request carries grows, and, for sweeps over caps (chapter 05),
outcome shares, steps at one cap and the cap trade-off.

Colours come from ``palette.py``, never as the only signal (outcomes also have
a marker and a hatch, tables a symbol). Charts use the CJK font shipped by the
``mplfonts`` package, so Chinese labels render on a fresh machine. This module
reads results; it never runs the loop.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pandas as pd
from matplotlib import font_manager
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from ..i18n import tr
from ..loop.result import OUTCOMES, RunResult
from . import run_view
from .experiments import smallest_cap
from .palette import (
    BLACK,
    BLUISH_GREEN,
    GREY,
    NEUTRAL,
    OUTCOME_COLORS,
    OUTCOME_HATCHES,
    OUTCOME_MARKERS,
    OUTCOME_SYMBOLS,
    PHASE_COLORS,
    PHASE_HATCHES,
    VERMILLION,
    ink,
    outcome_label,
)

CJK_FONT_FILE = "NotoSansCJKsc-Regular.otf"


@functools.cache  # registering the font again would only repeat the work
def chinese_font() -> str:
    """Register the bundled Noto Sans CJK SC with matplotlib; return its family name."""
    font_file = resources.files("mplfonts") / "fonts" / CJK_FONT_FILE
    with resources.as_file(font_file) as path:
        font_manager.fontManager.addfont(str(path))
        return font_manager.FontProperties(fname=str(path)).get_name()


def use_chinese_font() -> str:
    """Put the CJK font first in matplotlib's font list; return its name.

    This changes matplotlib's global rcParams on purpose: tick labels are
    created when a figure is drawn, which in a notebook happens after the
    cell ran, so a temporary ``rc_context`` would not reach them. DejaVu
    Sans stays as the fallback for glyphs the CJK font lacks.
    """
    family = chinese_font()
    matplotlib.rcParams["font.family"] = [family, "DejaVu Sans"]
    matplotlib.rcParams["axes.unicode_minus"] = False  # CJK fonts may lack U+2212
    return family


# Column names people read; the DataFrames keep the machine names.
COLUMN_KEYS = {
    "scenario": "report.col.scenario",
    "status": "report.col.status",
    "outcome": "report.col.outcome",
    "stop_reason": "report.col.stop_reason",
    "steps": "report.col.steps",
    "model_requests": "report.col.model_requests",
    "tool_calls": "report.col.tool_calls",
    "calls_not_run": "report.col.calls_not_run",
    "tool_errors": "report.col.tool_errors",
    "phase": "report.col.phase",
    "tokens": "report.col.tokens",
    "elapsed": "report.col.elapsed",
    "answer": "report.col.answer",
    "cap": "report.col.cap",
    "completion_rate": "report.col.completion_rate",
    "wasted_steps": "report.col.wasted_steps",
    "tokens_per_completed": "report.col.tokens_per_completed",
}


def readable(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with the column names people read (Chinese unless switched); same data."""
    return table.rename(columns={c: tr(k) for c, k in COLUMN_KEYS.items() if c in table.columns})


def _legend_outside(ax, patches: dict[str, Any], title: str | None = None) -> None:
    """A legend of patches (colour and hatch) to the right of the axes."""
    ax.legend(
        list(patches.values()),
        list(patches),
        title=title,
        loc="upper left",
        bbox_to_anchor=(1.01, 1),
        fontsize=8,
    )


def _outcome_patches(outcomes: list[str]) -> dict[str, Patch]:
    return {
        outcome_label(o): Patch(
            facecolor=OUTCOME_COLORS[o], hatch=OUTCOME_HATCHES[o], edgecolor="white"
        )
        for o in outcomes
    }


def _figure(width: float, height: float) -> tuple[Figure, Any]:
    """A figure with one set of axes, its labels in the CJK font."""
    use_chinese_font()
    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, fig.subplots()


def _finish(fig: Figure, save_to: str | Path | None) -> Figure:
    """Save the figure as PNG when asked; return it for display."""
    if save_to:
        fig.savefig(save_to, dpi=120)
    return fig


def _excerpt(text: str | None, width: int = 36) -> str:
    if not text:
        return ""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _named_runs(runs: Any) -> Mapping[str, RunResult]:
    """``runs`` as given, once it is a dict of name -> run (a list has no names to show)."""
    if not isinstance(runs, Mapping):
        raise TypeError(tr("report.runs_not_a_dict", type=type(runs).__name__))
    return runs


def outcome_table(
    runs: Mapping[str, RunResult], answer_width: int = 36, details: bool = False
) -> pd.DataFrame:
    """One row per scenario: how the run ended and what it cost.

    Columns keep the course's machine names (``outcome``, ``stop_reason``, …);
    :func:`style_outcomes` and :func:`readable` show them to people.
    ``details=True`` adds ``phase``, ``tokens`` and ``elapsed``. Elapsed time
    is wall-clock and differs on every run, so it is shown as ``≈83ms``, a
    form the notebooks' nbval sanitizer masks.
    """
    rows = []
    for name, r in _named_runs(runs).items():
        row = {
            "scenario": name,
            "status": r.status,
            "outcome": r.outcome,
            "stop_reason": r.stop_reason,
            "steps": r.steps,
            "model_requests": r.model_requests,
            "tool_calls": r.tool_calls,
            "calls_not_run": r.calls_not_run,
            "tool_errors": r.tool_errors,
        }
        if details:
            row["phase"] = r.phase or ""
            row["tokens"] = r.tokens
            row["elapsed"] = f"≈{r.elapsed_s * 1000:.0f}ms"
        row["answer"] = _excerpt(r.answer, answer_width)
        rows.append(row)
    return pd.DataFrame(rows)


def style_outcomes(table: pd.DataFrame):
    """The table for reading: coloured by outcome, people's column names, and an
    id made from the table's content, so the HTML is the same on every run and
    two tables in one notebook do not restyle each other."""

    def colour(value: str) -> str:
        colour = OUTCOME_COLORS.get(value)
        return f"color: {ink(colour)}; background-color: {colour}" if colour else ""

    def symbol(value: str) -> str:  # a shape as well as a colour
        return f"{OUTCOME_SYMBOLS[value]} {value}" if value in OUTCOME_SYMBOLS else value

    stable = table.drop(columns=["elapsed"], errors="ignore")  # wall-clock time varies
    uuid = hashlib.sha1(stable.to_json(force_ascii=False).encode()).hexdigest()[:10]
    styled = table.style.set_uuid(uuid).hide(axis="index")
    if "outcome" in table.columns:  # not in outcome_table({}): no runs, no columns
        styled = styled.map(colour, subset=["outcome"]).format(symbol, subset=["outcome"])
    if "answer" in table.columns:
        styled = styled.set_properties(subset=["answer"], **{"text-align": "left"})
    return styled.relabel_index(list(readable(table).columns), axis="columns")


def plot_steps_by_outcome(
    runs: Mapping[str, RunResult],
    cap: int | None = None,
    title: str | None = None,
    save_to: str | Path | None = None,
) -> Figure:
    """Bars of steps used per run, coloured and hatched by outcome, with the cap drawn.

    Up to five runs stand side by side; more are drawn as horizontal bars so
    their names stay readable.
    """
    names = list(_named_runs(runs))
    steps = [runs[n].steps for n in names]
    outcomes = [runs[n].outcome for n in names]
    top = max(steps + [cap or 0]) + 1.5
    horizontal = len(names) > 5
    fig, ax = _figure(8, 0.42 * len(names) + 1.4 if horizontal else 3.6)
    style = {
        "color": [OUTCOME_COLORS[o] for o in outcomes],
        "hatch": [OUTCOME_HATCHES[o] for o in outcomes],
        "edgecolor": "white",
    }
    if horizontal:
        bars = ax.barh(names, steps, height=0.6, **style)
        ax.invert_yaxis()
        ax.set_xlim(0, top * 1.3 + 2)  # room for the stop reason written after each bar
        ax.set_xlabel(tr("report.axis.steps"))
        draw_cap = ax.axvline
    else:
        bars = ax.bar(names, steps, width=0.55, **style)
        ax.set_ylim(0, top)
        ax.set_ylabel(tr("report.axis.steps"))
        ax.set_xlabel(tr("report.col.scenario"))
        draw_cap = ax.axhline
    ax.bar_label(bars, labels=[runs[n].stop_reason for n in names], padding=3, fontsize=9)
    ax.set_title(title or tr("report.title.steps"))
    patches = _outcome_patches([o for o in OUTCOMES if o in outcomes])
    if cap is not None:  # the cap is named in the legend, not written across the bars
        draw_cap(cap, color=NEUTRAL, linestyle="--", linewidth=1)
        patches[tr("report.cap_line", cap=cap)] = Line2D([], [], color=NEUTRAL, linestyle="--")
    _legend_outside(ax, patches, tr("report.legend.outcome"))
    return _finish(fig, save_to)


def messages_sent(run: RunResult) -> list[int]:
    """How many messages each model request of ``run`` carried, in order.

    The chat-completions API is stateless: request k sends the whole history
    so far, so it carried every message before the k-th assistant reply.
    Example: a run of two steps with one tool call each -> ``[2, 4]``
    (system + task; then those two, the assistant's call and the tool result).
    """
    return [i for i, m in enumerate(run.messages) if m["role"] == "assistant"]


def plot_history_growth(
    runs: Mapping[str, RunResult],
    cap: int | None = None,
    title: str | None = None,
    save_to: str | Path | None = None,
) -> Figure:
    """Messages sent so far, request by request, per run: the cost of a stateless API.

    Each request re-sends the whole history, so the running total grows with
    the square of the steps. Runs share their first steps, so their lines lie
    on one another; each ends with its run's outcome marker. The cap is drawn.
    """
    fig, ax = _figure(8.5, 3.8)
    handles: dict[str, Any] = {}
    for number, (name, run) in enumerate(_named_runs(runs).items()):
        totals = np.cumsum(messages_sent(run))
        steps = np.arange(1, len(totals) + 1)
        colour = OUTCOME_COLORS[run.outcome]
        style = ("-", "--", ":", "-.")[number % 4]  # lines of one outcome stay apart
        (line,) = ax.plot(steps, totals, style, color=colour, linewidth=1.6)
        if len(totals):
            ax.plot(
                steps[-1:], totals[-1:], OUTCOME_MARKERS[run.outcome], color=colour, markersize=8
            )
        handles[tr("report.named_outcome", name=name, outcome=outcome_label(run.outcome))] = line
    if cap is not None:
        ax.axvline(cap, color=NEUTRAL, linestyle="--", linewidth=1)
        handles[tr("report.cap_line", cap=cap)] = Line2D([], [], color=NEUTRAL, linestyle="--")
    ax.set_xlabel(tr("report.axis.request"))
    ax.set_ylabel(tr("report.axis.messages_sent"))
    ax.xaxis.get_major_locator().set_params(integer=True)
    # at least one request wide: a run that never asked the model still draws, quietly
    longest = max([1, cap or 0] + [r.model_requests for r in runs.values()])
    ax.set_xlim(0.5, longest + 0.5)
    ax.set_title(title or tr("report.title.history"))
    _legend_outside(ax, handles, tr("report.legend.run"))
    return _finish(fig, save_to)


def phase_spans(result: RunResult) -> list[tuple[str, float, float]]:
    """(phase, start, duration) in seconds, from the run's events.

    A phase event is written when the phase ends, at ``t`` seconds into the
    run, so the phase started at ``t - elapsed_s`` (``run_view.phase_spans``).
    """
    phases = [e for e in result.events if e["event"] == "phase"]
    return [(span.phase, span.start, span.duration) for span in run_view.phase_spans(phases)]


def plot_phase_timeline(
    runs: Mapping[str, RunResult],
    budget_s: float | None = None,
    title: str | None = None,
    save_to: str | Path | None = None,
    extra_spans: Mapping[str, list[tuple[str, float, float]]] | None = None,
) -> Figure:
    """Where each run's time went, phase by phase, with the deadline drawn.

    ``extra_spans`` adds rows that are not runs — e.g. the same hang under
    another design — as ``{name: [(phase, start_s, duration_s), ...]}``.
    """
    rows = {name: phase_spans(run) for name, run in _named_runs(runs).items()}
    rows.update(extra_spans or {})
    ends = {
        name: max((start + length for _, start, length in spans), default=0.0)
        for name, spans in rows.items()
    }
    names = list(rows)
    fig, ax = _figure(8.5, 0.6 * len(names) + 1.6)
    for row, name in enumerate(names):
        for phase, start, length in rows[name]:
            ax.barh(
                row,
                length * 1000,
                left=start * 1000,
                color=PHASE_COLORS[phase],
                hatch=PHASE_HATCHES[phase],
                edgecolor="white",
                height=0.5,
            )
        ending = runs[name].stop_reason if name in runs else ""
        ax.text(
            ends[name] * 1000,
            row,
            f"  {ending} {ends[name] * 1000:.0f} ms",
            va="center",
            fontsize=9,
        )
    patches: dict[str, Any] = {
        tr("term.code_and_meaning", code=phase, meaning=tr("term." + phase)): Patch(
            facecolor=colour, hatch=PHASE_HATCHES[phase], edgecolor="white"
        )
        for phase, colour in PHASE_COLORS.items()
    }
    if budget_s is not None:  # named in the legend, so no label crosses the line
        ax.axvline(budget_s * 1000, color=BLACK, linestyle="--", linewidth=1.2)
        label = tr("report.deadline_line", ms=f"{budget_s * 1000:.0f}")
        patches[label] = Line2D([], [], color=BLACK, linestyle="--")
    ax.set_yticks(range(len(names)), names)
    ax.set_ylim(max(len(names), 1) - 0.5, -0.5)  # top row first
    ax.set_xlabel(tr("report.axis.ms"))
    ax.set_title(title or tr("report.title.timeline"))
    longest = max([*ends.values(), budget_s or 0, 0.001])  # no phase at all: 1 ms wide
    ax.set_xlim(0, longest * 1000 * 1.35)
    _legend_outside(ax, patches, tr("report.legend.phase"))
    return _finish(fig, save_to)


# -- chapter 05: choosing a cap from a sweep ------------------------------------------


def plot_outcome_share(
    results: pd.DataFrame,
    title: str | None = None,
    save_to: str | Path | None = None,
    mark_cap: int | None = None,
    mark_label: str | None = None,
) -> Figure:
    """Stacked bars: the share of each outcome at every cap of a sweep.

    ``mark_cap`` draws a line at a cap worth pointing at, named in the legend
    by ``mark_label`` (default "上限 N").
    """
    shares = results.groupby("cap")["outcome"].value_counts(normalize=True).unstack(fill_value=0.0)
    fig, ax = _figure(9, 3.8)
    bottom = pd.Series(0.0, index=shares.index)
    handles: dict[str, Any] = {}
    for outcome in OUTCOMES:
        if outcome not in shares:
            continue
        ax.bar(
            shares.index,
            shares[outcome],
            bottom=bottom,
            width=0.8,
            color=OUTCOME_COLORS[outcome],
            hatch=OUTCOME_HATCHES[outcome],
            edgecolor="white",
        )
        bottom += shares[outcome]
    handles.update(_outcome_patches([o for o in OUTCOMES if o in shares]))
    if mark_cap is not None:
        ax.axvline(mark_cap, color=BLACK, linestyle="--", linewidth=1.6)
        handles[mark_label or tr("report.marked_cap", cap=mark_cap)] = Line2D(
            [], [], color=BLACK, linestyle="--"
        )
    ax.set_xlabel(tr("report.axis.cap"))
    ax.set_ylabel(tr("report.axis.share"))
    ax.set_ylim(0, 1)
    ax.yaxis.set_major_formatter(lambda value, _: f"{value:.0%}")
    ax.set_title(title or tr("report.title.share"))
    _legend_outside(ax, handles, tr("report.legend.outcome"))
    return _finish(fig, save_to)


def plot_steps_at_cap(
    results: pd.DataFrame,
    cap: int,
    title: str | None = None,
    save_to: str | Path | None = None,
) -> Figure:
    """One dot per run at one cap: steps used, grouped by the kind of task.

    Runs that ran out of budget sit on the cap line in every group, so an
    honest task cut off just short of its end is told apart from a runaway.
    Colour and marker give the outcome.
    """
    at_cap = results[results["cap"] == cap]
    kinds = [k for k in at_cap["kind"].drop_duplicates()]
    order = ["honest", "recovers", "gives_up", "runaway", "repeater"]
    kinds.sort(key=lambda k: order.index(k) if k in order else len(order))
    fig, ax = _figure(9, 3.9)
    jitter = np.random.default_rng(0)  # fixed seed: the same picture every time
    labels = []
    for x, kind in enumerate(kinds):
        group = at_cap[at_cap["kind"] == kind]
        for outcome in OUTCOMES:
            steps = group.loc[group["outcome"] == outcome, "steps"].to_numpy()
            if len(steps) == 0:
                continue
            xs = x + jitter.uniform(-0.28, 0.28, size=len(steps))
            ax.scatter(
                xs, steps, s=22, alpha=0.75, color=OUTCOME_COLORS[outcome],
                marker=OUTCOME_MARKERS[outcome], edgecolors="white", linewidths=0.4,
            )  # fmt: skip
        cut = int((group["outcome"] == "budget_exhausted").sum())
        labels.append(f"{kind}\n{tr('report.cut_off', n=cut, total=len(group))}")
    ax.axhline(cap, color=NEUTRAL, linestyle="--", linewidth=1)
    ax.set_xticks(range(len(kinds)), labels, fontsize=9)
    ax.set_xlim(-0.6, len(kinds) - 0.4)
    ax.set_ylim(0, cap + 2)
    ax.set_ylabel(tr("report.axis.used_steps"))
    ax.set_xlabel(tr("report.axis.kind"))
    ax.set_title(title or tr("report.title.steps_at_cap", cap=cap))
    present = [o for o in OUTCOMES if (at_cap["outcome"] == o).any()]
    handles: dict[str, Any] = {
        outcome_label(o): Line2D(
            [], [], linestyle="", marker=OUTCOME_MARKERS[o], color=OUTCOME_COLORS[o], markersize=7
        )
        for o in present
    }
    handles[tr("report.cap_line", cap=cap)] = Line2D([], [], color=NEUTRAL, linestyle="--")
    _legend_outside(ax, handles, tr("report.legend.outcome"))
    return _finish(fig, save_to)


def plot_cap_tradeoff(
    summary: pd.DataFrame,
    target: float = 0.95,
    title: str | None = None,
    save_to: str | Path | None = None,
    interval: tuple[int, int] | None = None,
    recommended: int | None = None,
) -> Figure:
    """Completion rate and wasted steps against cap, the smallest good cap marked.

    ``interval`` shades a range of caps (e.g. where 90 % of bootstrap samples
    put the smallest good cap, :func:`agentlab.course.experiments.cap_interval`);
    ``recommended`` draws the cap chosen with a margin as a thick line.
    """
    fig, rate_ax = _figure(9, 3.8)
    waste_ax = rate_ax.twinx()
    (rate,) = rate_ax.plot(
        summary["cap"], summary["completion_rate"], color=BLUISH_GREEN, marker="o", markersize=4
    )
    (waste,) = waste_ax.plot(
        summary["cap"], summary["wasted_steps"], color=VERMILLION, marker="s", markersize=4,
        linestyle="--",
    )  # fmt: skip
    goal = rate_ax.axhline(target, color=BLUISH_GREEN, linestyle=":", linewidth=1.2)
    handles: dict[str, Any] = {
        tr("report.completion_line"): rate,
        tr("report.waste_line"): waste,
        tr("report.target_line", target=f"{target:.0%}"): goal,
    }
    if interval is not None:
        band = rate_ax.axvspan(interval[0] - 0.5, interval[1] + 0.5, color=GREY, alpha=0.25)
        handles[tr("report.interval", low=interval[0], high=interval[1])] = band
    cap = smallest_cap(summary, target)
    if cap is not None:
        best = rate_ax.axvline(cap, color=NEUTRAL, linestyle="--", linewidth=1)
        handles[tr("report.best_cap", cap=cap, target=f"{target:.0%}")] = best
    if recommended is not None:
        chosen = rate_ax.axvline(recommended, color=BLACK, linewidth=2.5)
        handles[tr("report.recommended", cap=recommended)] = chosen
    rate_ax.set_ylim(0, 1.05)
    rate_ax.yaxis.set_major_formatter(lambda value, _: f"{value:.0%}")
    rate_ax.set_xlabel(tr("report.axis.cap"))
    rate_ax.set_ylabel(tr("report.col.completion_rate"))
    waste_ax.set_ylabel(tr("report.col.wasted_steps"))
    waste_ax.set_ylim(0, max(1, summary["wasted_steps"].max()) * 1.1)
    rate_ax.set_title(title or tr("report.title.tradeoff"))
    # inside, lower right: the right of the axes holds the second axis' numbers
    waste_ax.legend(list(handles.values()), list(handles), loc="lower right", fontsize=8)
    return _finish(fig, save_to)
