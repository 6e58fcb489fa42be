"""Tables and charts over many runs: how did each run end, and after how many steps?

- :func:`outcome_table` puts runs side by side in a pandas DataFrame, one
  row per scenario, with the course's words as column names;
- :func:`style_outcomes` colours that table by outcome for reading;
- :func:`plot_steps_by_outcome` charts steps used per run, coloured by
  outcome, with the step cap drawn.

Charts use a CJK font shipped by the ``mplfonts`` package, registered with
matplotlib on first use, so Chinese labels render on a fresh machine without
system fonts. This module reads results; it never runs the loop.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from pathlib import Path

import matplotlib
import pandas as pd
from matplotlib import font_manager
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from .result import OUTCOMES, RunResult

OUTCOME_COLORS = {
    "completed": "#2e7d32",
    "tool_error": "#ef6c00",
    "budget_exhausted": "#c62828",
    "model_error": "#6a1b9a",
    "invalid_task": "#757575",
}
OUTCOME_LABELS = {
    "completed": "completed 正常完成",
    "tool_error": "tool_error 工具报错",
    "budget_exhausted": "budget_exhausted 预算耗尽",
    "model_error": "model_error 模型服务失败",
    "invalid_task": "invalid_task 任务无效",
}
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


def excerpt(text: str | None, width: int = 36) -> str:
    if not text:
        return ""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def outcome_table(runs: Mapping[str, RunResult], answer_width: int = 36) -> pd.DataFrame:
    """One row per scenario: how the run ended and what it cost."""
    rows = [
        {
            "scenario": name,
            "status": r.status,
            "outcome": r.outcome,
            "stop_reason": r.stop_reason,
            "steps": r.steps,
            "model_requests": r.model_requests,
            "tool_calls": r.tool_calls,
            "tool_errors": r.tool_errors,
            "answer": excerpt(r.answer, answer_width),
        }
        for name, r in runs.items()
    ]
    return pd.DataFrame(rows)


def style_outcomes(table: pd.DataFrame):
    """The table coloured by outcome; a fixed id keeps the HTML reproducible."""

    def colour(value: str) -> str:
        colour = OUTCOME_COLORS.get(value)
        return f"color: white; background-color: {colour}" if colour else ""

    return (
        table.style.set_uuid("agentlab")
        .hide(axis="index")
        .map(colour, subset=["outcome"])
        .set_properties(subset=["answer"], **{"text-align": "left"})
    )


def plot_steps_by_outcome(
    runs: Mapping[str, RunResult],
    cap: int | None = None,
    title: str = "每次运行用了几步，以什么结局结束",
    save_to: str | Path | None = None,
) -> Figure:
    """Bars of steps used per run, coloured by outcome, with the cap drawn."""
    names = list(runs)
    use_chinese_font()
    fig = Figure(figsize=(8, 3.6), layout="constrained")
    ax = fig.subplots()
    colours = [OUTCOME_COLORS[runs[n].outcome] for n in names]
    bars = ax.bar(names, [runs[n].steps for n in names], color=colours, width=0.55)
    ax.bar_label(bars, labels=[runs[n].stop_reason for n in names], padding=3, fontsize=9)
    top = max([runs[n].steps for n in names] + [cap or 0])
    if cap is not None:
        ax.axhline(cap, color="#424242", linestyle="--", linewidth=1)
        ax.text(
            -0.45,
            cap + 0.08,
            f"步数上限 max_steps={cap}",
            ha="left",
            va="bottom",
            fontsize=9,
            color="#424242",
        )
    ax.set_ylim(0, top + 1.5)
    ax.set_ylabel("步数（模型请求轮数）")
    ax.set_xlabel("场景")
    ax.set_title(title)
    seen = [o for o in OUTCOMES if any(runs[n].outcome == o for n in names)]
    handles = [Patch(color=OUTCOME_COLORS[o]) for o in seen]
    ax.legend(
        handles,
        [OUTCOME_LABELS[o] for o in seen],
        title="outcome",
        loc="upper left",
        bbox_to_anchor=(1.01, 1),
        fontsize=8,
    )
    if save_to:
        fig.savefig(save_to, dpi=120)
    return fig
