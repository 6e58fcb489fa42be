"""Tables and charts over many runs: how did each run end, and after how many steps?

- :func:`outcome_table` puts runs side by side in a pandas DataFrame, one
  row per scenario, with the course's words as column names;
- :func:`style_outcomes` colours that table by outcome for reading;
- :func:`plot_steps_by_outcome` charts steps used per run, coloured by
  outcome, with the step cap drawn;
- :func:`plot_phase_timeline` shows where a run's time went, phase by phase;
- for sweeps over caps (chapter 04): :func:`plot_outcome_share`,
  :func:`plot_steps_at_cap` and :func:`plot_cap_tradeoff`.

Charts use a CJK font shipped by the ``mplfonts`` package, registered with
matplotlib on first use, so Chinese labels render on a fresh machine without
system fonts. This module reads results; it never runs the loop.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
from matplotlib import font_manager
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from .experiments import smallest_cap
from .i18n import tr
from .result import OUTCOMES, RunResult

OUTCOME_COLORS = {
    "completed": "#2e7d32",
    "tool_error": "#ef6c00",
    "budget_exhausted": "#c62828",
    "model_error": "#6a1b9a",
    "invalid_task": "#757575",
}
PHASE_COLORS = {"decide": "#1565c0", "tool": "#ef6c00", "complete": "#6a1b9a"}
CJK_FONT_FILE = "NotoSansCJKsc-Regular.otf"


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


def outcome_label(outcome: str) -> str:
    """``completed 正常完成``: the code and what it means, for legends."""
    return f"{outcome} {tr('term.' + outcome)}"


# Column names people read; the DataFrames keep the machine names.
COLUMN_KEYS = {
    "scenario": "report.col.scenario",
    "status": "report.col.status",
    "outcome": "report.col.outcome",
    "stop_reason": "report.col.stop_reason",
    "steps": "report.col.steps",
    "model_requests": "report.col.model_requests",
    "tool_calls": "report.col.tool_calls",
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


def _legend_outside(ax, colours: dict[str, str], title: str | None = None) -> None:
    """A legend of coloured patches to the right of the axes."""
    handles = [Patch(color=c) for c in colours.values()]
    ax.legend(
        handles, list(colours), title=title, loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8
    )


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
    for name, r in runs.items():
        row = {
            "scenario": name,
            "status": r.status,
            "outcome": r.outcome,
            "stop_reason": r.stop_reason,
            "steps": r.steps,
            "model_requests": r.model_requests,
            "tool_calls": r.tool_calls,
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
    """The table for reading: coloured by outcome, people's column names, and a
    fixed id so the HTML is the same on every run."""

    def colour(value: str) -> str:
        colour = OUTCOME_COLORS.get(value)
        return f"color: white; background-color: {colour}" if colour else ""

    styled = table.style.set_uuid("agentlab").hide(axis="index").map(colour, subset=["outcome"])
    if "answer" in table.columns:
        styled = styled.set_properties(subset=["answer"], **{"text-align": "left"})
    labels = {c: tr(k) for c, k in COLUMN_KEYS.items() if c in table.columns}
    return styled.relabel_index([labels.get(c, c) for c in table.columns], axis="columns")


def plot_steps_by_outcome(
    runs: Mapping[str, RunResult],
    cap: int | None = None,
    title: str | None = None,
    save_to: str | Path | None = None,
) -> Figure:
    """Bars of steps used per run, coloured by outcome, with the cap drawn.

    Up to five runs stand side by side; more are drawn as horizontal bars so
    their names stay readable.
    """
    names = list(runs)
    steps = [runs[n].steps for n in names]
    colours = [OUTCOME_COLORS[runs[n].outcome] for n in names]
    reasons = [runs[n].stop_reason for n in names]
    top = max(steps + [cap or 0]) + 1.5
    use_chinese_font()
    horizontal = len(names) > 5
    fig = Figure(figsize=(8, 0.42 * len(names) + 1.4 if horizontal else 3.6), layout="constrained")
    ax = fig.subplots()
    cap_label = tr("report.cap_line", cap=cap)
    if horizontal:
        bars = ax.barh(names, steps, color=colours, height=0.6)
        ax.invert_yaxis()
        ax.set_xlim(0, top + 1)
        ax.set_xlabel(tr("report.axis.steps"))
        if cap is not None:
            ax.axvline(cap, color="#424242", linestyle="--", linewidth=1)
            ax.text(cap, -0.7, cap_label, ha="center", va="bottom", fontsize=9, color="#424242")
    else:
        bars = ax.bar(names, steps, color=colours, width=0.55)
        ax.set_ylim(0, top)
        ax.set_ylabel(tr("report.axis.steps"))
        ax.set_xlabel(tr("report.col.scenario"))
        if cap is not None:
            ax.axhline(cap, color="#424242", linestyle="--", linewidth=1)
            ax.text(
                -0.45, cap + 0.08, cap_label, ha="left", va="bottom", fontsize=9, color="#424242"
            )
    ax.bar_label(bars, labels=reasons, padding=3, fontsize=9)
    ax.set_title(title or tr("report.title.steps"))
    seen = [o for o in OUTCOMES if any(runs[n].outcome == o for n in names)]
    _legend_outside(
        ax, {outcome_label(o): OUTCOME_COLORS[o] for o in seen}, tr("report.legend.outcome")
    )
    return _finish(fig, save_to)


def phase_spans(result: RunResult) -> list[tuple[str, float, float]]:
    """(phase, start, duration) in seconds, from the run's events.

    A phase event is written when the phase ends, at ``t`` seconds into the
    run, so the phase started at ``t - elapsed_s``.
    """
    return [
        (e["phase"], e["t"] - e["elapsed_s"], e["elapsed_s"])
        for e in result.events
        if e["event"] == "phase"
    ]


def plot_phase_timeline(
    runs: Mapping[str, RunResult],
    budget_s: float | None = None,
    title: str | None = None,
    save_to: str | Path | None = None,
) -> Figure:
    """Where each run's time went, phase by phase, with the deadline drawn."""
    use_chinese_font()
    names = list(runs)
    fig = Figure(figsize=(8, 0.6 * len(names) + 1.6), layout="constrained")
    ax = fig.subplots()
    for row, name in enumerate(names):
        for phase, start, length in phase_spans(runs[name]):
            ax.barh(
                row,
                length * 1000,
                left=start * 1000,
                color=PHASE_COLORS[phase],
                edgecolor="white",
                height=0.5,
            )
        ax.text(
            runs[name].elapsed_s * 1000, row, f"  {runs[name].stop_reason}", va="center", fontsize=9
        )
    if budget_s is not None:
        ax.axvline(budget_s * 1000, color="#c62828", linestyle="--", linewidth=1)
        ax.text(
            budget_s * 1000,
            -0.55,
            tr("report.deadline_line", ms=f"{budget_s * 1000:.0f}"),
            color="#c62828",
            ha="center",
            va="bottom",
            fontsize=9,
        )
    ax.set_yticks(range(len(names)), names)
    ax.set_ylim(len(names) - 0.5, -0.9)  # top row first, room above it for the label
    ax.set_xlabel(tr("report.axis.ms"))
    ax.set_title(title or tr("report.title.timeline"))
    longest = max([r.elapsed_s for r in runs.values()] + [budget_s or 0])
    ax.set_xlim(0, longest * 1000 * 1.3)
    labels = {f"{phase} {tr('term.' + phase)}": colour for phase, colour in PHASE_COLORS.items()}
    _legend_outside(ax, labels, tr("report.legend.phase"))
    return _finish(fig, save_to)


# -- chapter 04: choosing a cap from a sweep ------------------------------------------


def plot_outcome_share(
    results: pd.DataFrame,
    title: str | None = None,
    save_to: str | Path | None = None,
) -> Figure:
    """Stacked bars: the share of each outcome at every cap of a sweep."""
    use_chinese_font()
    shares = results.groupby("cap")["outcome"].value_counts(normalize=True).unstack(fill_value=0.0)
    fig = Figure(figsize=(9, 3.8), layout="constrained")
    ax = fig.subplots()
    bottom = pd.Series(0.0, index=shares.index)
    for outcome in OUTCOMES:
        if outcome not in shares:
            continue
        ax.bar(
            shares.index,
            shares[outcome],
            bottom=bottom,
            width=0.8,
            color=OUTCOME_COLORS[outcome],
            label=outcome_label(outcome),
        )
        bottom += shares[outcome]
    ax.set_xlabel(tr("report.axis.cap"))
    ax.set_ylabel(tr("report.axis.share"))
    ax.set_ylim(0, 1)
    ax.yaxis.set_major_formatter(lambda value, _: f"{value:.0%}")
    ax.set_title(title or tr("report.title.share"))
    ax.legend(
        title=tr("report.legend.outcome"), loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8
    )
    return _finish(fig, save_to)


def plot_steps_at_cap(
    results: pd.DataFrame,
    cap: int,
    title: str | None = None,
    save_to: str | Path | None = None,
) -> Figure:
    """Steps used against outcome for one cap (one dot per run), with the cap drawn."""
    use_chinese_font()
    at_cap = results[results["cap"] == cap]
    present = [o for o in OUTCOMES if (at_cap["outcome"] == o).any()]
    fig = Figure(figsize=(7, 3.8), layout="constrained")
    ax = fig.subplots()
    jitter = np.random.default_rng(0)  # fixed seed: the same picture every time
    labels = []
    for x, outcome in enumerate(present):
        steps = at_cap.loc[at_cap["outcome"] == outcome, "steps"].to_numpy()
        xs = x + jitter.uniform(-0.25, 0.25, size=len(steps))
        ax.scatter(xs, steps, s=14, alpha=0.6, color=OUTCOME_COLORS[outcome])
        labels.append(f"{outcome_label(outcome)}\n{tr('report.runs', n=len(steps))}")
    ax.axhline(cap, color="#424242", linestyle="--", linewidth=1)
    ax.text(
        -0.55, cap + 0.15, tr("report.cap_line", cap=cap), va="bottom", fontsize=9, color="#424242"
    )
    ax.set_xticks(range(len(present)), labels, fontsize=9)
    ax.set_xlim(-0.6, len(present) - 0.4)
    ax.set_ylim(0, cap + 2)
    ax.set_ylabel(tr("report.axis.used_steps"))
    ax.set_title(title or tr("report.title.steps_at_cap", cap=cap))
    return _finish(fig, save_to)


def plot_cap_tradeoff(
    summary: pd.DataFrame,
    target: float = 0.95,
    title: str | None = None,
    save_to: str | Path | None = None,
) -> Figure:
    """Completion rate and wasted steps against cap, the smallest good cap marked."""
    use_chinese_font()
    fig = Figure(figsize=(9, 3.8), layout="constrained")
    rate_ax = fig.subplots()
    waste_ax = rate_ax.twinx()
    rate_ax.plot(
        summary["cap"],
        summary["completion_rate"],
        color="#2e7d32",
        marker="o",
        markersize=3,
        label=tr("report.completion_line"),
    )
    waste_ax.plot(
        summary["cap"],
        summary["wasted_steps"],
        color="#c62828",
        marker="s",
        markersize=3,
        label=tr("report.waste_line"),
    )
    rate_ax.axhline(target, color="#2e7d32", linestyle=":", linewidth=1)
    cap = smallest_cap(summary, target)
    if cap is not None:
        rate_ax.axvline(cap, color="#424242", linestyle="--", linewidth=1)
        rate_ax.annotate(
            tr("report.best_cap", cap=cap, target=f"{target:.0%}"),
            (cap, target),
            xytext=(8, -40),
            textcoords="offset points",
            fontsize=9,
        )
    rate_ax.set_ylim(0, 1.05)
    rate_ax.yaxis.set_major_formatter(lambda value, _: f"{value:.0%}")
    rate_ax.set_xlabel(tr("report.axis.cap"))
    rate_ax.set_ylabel(tr("report.col.completion_rate"), color="#2e7d32")
    waste_ax.set_ylabel(tr("report.col.wasted_steps"), color="#c62828")
    waste_ax.set_ylim(0, max(1, summary["wasted_steps"].max()) * 1.1)
    lines = rate_ax.get_lines()[:1] + waste_ax.get_lines()[:1]
    rate_ax.legend(lines, [line.get_label() for line in lines], loc="center right", fontsize=8)
    rate_ax.set_title(title or tr("report.title.tradeoff"))
    return _finish(fig, save_to)
