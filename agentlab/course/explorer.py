"""A cap explorer that needs no kernel: a slider over ``max_steps`` in one chart.

:func:`cap_explorer` turns a precomputed sweep (chapter 05) into one Vega-Lite
chart, built with altair: moving the slider redraws, in the browser, the
outcome mix at the chosen cap and, across all caps, the completion rate and
the steps wasted on exhausted runs. The data travels inside the chart (a few
rows per cap, :func:`~agentlab.course.experiments.summarize`'s figures), so it
works on a static page or with the kernel stopped; its JSON is the same on
every run (fixed parameter and view names), so nbval can compare it.

It is shown as ``application/vnd.vegalite.v5+json``, which JupyterLab renders
with its built-in Vega renderer; altair's default HTML would fetch Vega from a
CDN. This module neither runs sweeps (``experiments.py``) nor draws the PNG
charts kept for print (``report.py``).
"""

from __future__ import annotations

import math
from typing import Any

import altair as alt
import pandas as pd

from ..i18n import tr
from .experiments import smallest_cap, summarize
from .palette import OUTCOME_COLORS, outcome_label

# The course's palette (Okabe–Ito): the outcomes a sweep can end with.
OUTCOME_COLOURS = {
    o: OUTCOME_COLORS[o] for o in ("completed", "tool_error", "budget_exhausted", "model_error")
}
RULE_COLOUR = "#4D4D4D"
VEGALITE_MIMETYPE = "application/vnd.vegalite.v5+json"
PARAM = "max_steps"  # the slider's parameter: a fixed name keeps the JSON the same every time
PANEL_HEIGHT = 260


class ExplorerChart(alt.HConcatChart):
    """An altair chart that always displays as Vega-Lite JSON (see the module docstring)."""

    def _repr_mimebundle_(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return {VEGALITE_MIMETYPE: self.to_dict(), "text/plain": tr("explorer.text")}


def explorer_data(results: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The two small tables the chart carries, from a sweep's :func:`summarize`:
    ``mix``, one row per (cap, outcome) with ``share`` and ``runs``; ``curve``,
    one row per cap with ``completion_rate`` and ``wasted_steps``."""
    if len(results) == 0:
        raise ValueError(tr("explorer.empty"))
    summary = summarize(results)
    mix = []
    for row in summary.itertuples(index=False):
        for outcome in OUTCOME_COLOURS:
            share = float(getattr(row, f"share_{outcome}"))
            mix.append(
                {
                    "cap": int(row.cap),
                    "outcome": outcome,
                    "label": outcome_label(outcome),
                    "share": share,
                    "runs": round(share * int(row.runs)),
                }
            )
    curve = pd.DataFrame(
        {
            "cap": summary["cap"].astype(int),
            "completion_rate": summary["completion_rate"].astype(float),
            "wasted_steps": summary["wasted_steps"].astype(int),
        }
    )
    return pd.DataFrame(mix), curve.reset_index(drop=True)


def cap_explorer(results: pd.DataFrame, initial_cap: int | None = None) -> ExplorerChart:
    """A chart with a ``max_steps`` slider over the caps of a sweep (``results``).

    The slider starts at ``initial_cap``, by default the smallest cap that
    completes 95% of the tasks that can complete (the largest cap of the sweep
    when none does).
    """
    mix, curve = explorer_data(results)
    caps = curve["cap"].tolist()
    if initial_cap is None:
        initial_cap = smallest_cap(curve) or caps[-1]
    if initial_cap not in caps:
        raise ValueError(tr("explorer.bad_cap", cap=initial_cap, low=caps[0], high=caps[-1]))
    # Steps of the sweep's spacing (1 for range(1, 25), 2 for range(2, 31, 2), ...).
    spacing = math.gcd(*(cap - caps[0] for cap in caps)) or 1
    step_cap = alt.param(
        name=PARAM,
        value=int(initial_cap),
        bind=alt.binding_range(
            min=caps[0], max=caps[-1], step=spacing, name=tr("explorer.slider") + " "
        ),
    )
    at_cap = alt.datum.cap == step_cap
    chart = ExplorerChart(
        hconcat=[_mix_panel(mix, at_cap), _curve_panel(curve, at_cap)],
        title=alt.TitleParams(tr("explorer.title"), anchor="start", fontSize=15),
        spacing=36,
    )
    return chart.add_params(step_cap).configure_view(stroke=None).configure_axis(labelFontSize=11)


def _mix_panel(mix: pd.DataFrame, at_cap: Any) -> alt.LayerChart:
    """Bars: the share of runs per outcome at the chosen cap."""
    labels = [outcome_label(o) for o in OUTCOME_COLOURS]
    base = alt.Chart(mix).transform_filter(at_cap)
    y = alt.Y("label:N", sort=labels, title=None, axis=alt.Axis(labelLimit=200))
    share = alt.X(
        "share:Q",
        title=tr("explorer.share_axis"),
        scale=alt.Scale(domain=[0, 1]),
        axis=alt.Axis(format=".0%", values=[0, 0.25, 0.5, 0.75, 1], labelOverlap=False),
    )
    bars = base.mark_bar(height={"band": 0.7}).encode(
        y=y,
        x=share,
        color=alt.Color(
            "label:N",
            scale=alt.Scale(domain=labels, range=list(OUTCOME_COLOURS.values())),
            legend=None,
        ),
        tooltip=[
            alt.Tooltip("label:N", title=tr("explorer.outcome_tip")),
            alt.Tooltip("runs:Q", title=tr("explorer.runs_tip")),
            alt.Tooltip("share:Q", title=tr("explorer.share_axis"), format=".0%"),
        ],
    )
    numbers = base.mark_text(align="left", dx=4, fontSize=12).encode(
        y=y, x=share, text=alt.Text("share:Q", format=".0%")
    )
    title = alt.TitleParams(
        {"expr": f"'{tr('explorer.mix_title')} ' + {PARAM}"}, anchor="start", fontSize=13
    )
    return alt.layer(bars, numbers, name="outcome_mix", title=title).properties(
        width=220, height=PANEL_HEIGHT
    )


def _curve_panel(curve: pd.DataFrame, at_cap: Any) -> alt.LayerChart:
    """Completion rate and wasted steps over all caps; the chosen cap marked and read out."""
    base = alt.Chart(curve)
    x = alt.X("cap:Q", title=tr("explorer.cap_axis"), axis=alt.Axis(tickMinStep=1, format="d"))
    green, red = OUTCOME_COLOURS["completed"], OUTCOME_COLOURS["budget_exhausted"]
    rate_y = alt.Y(
        "completion_rate:Q",
        title=tr("explorer.rate_axis"),
        scale=alt.Scale(domain=[0, 1]),
        axis=alt.Axis(format=".0%", titleColor=green),
    )
    waste_y = alt.Y(
        "wasted_steps:Q", title=tr("explorer.waste_axis"), axis=alt.Axis(titleColor=red)
    )
    chosen = base.transform_filter(at_cap)
    # The figures at the chosen cap, written beside the rule (left of it near the right edge).
    readout = (
        chosen.transform_calculate(
            readout=(
                f"'{tr('explorer.readout_rate')} ' + format(datum.completion_rate, '.0%') + "
                f"'  {tr('explorer.readout_waste')} ' + datum.wasted_steps"
            )
        )
        .mark_text(
            align={"expr": f"{PARAM} > {int(curve['cap'].median())} ? 'right' : 'left'"},
            dx={"expr": f"{PARAM} > {int(curve['cap'].median())} ? -6 : 6"},
            y=PANEL_HEIGHT - 12,  # low in the panel: the completion line runs along the top
            fontSize=12,
            fontWeight="bold",
            color=RULE_COLOUR,
        )
        .encode(x=x, text="readout:N")
    )
    rate = alt.layer(
        base.mark_line(color=green, point=alt.OverlayMarkDef(color=green, size=18)).encode(
            x=x, y=rate_y
        ),
        chosen.mark_point(color=green, size=120, filled=True, opacity=1).encode(x=x, y=rate_y),
        chosen.mark_rule(color=RULE_COLOUR, strokeDash=[5, 4]).encode(x=x),
        readout,
    )
    square = {"color": red, "shape": "square"}
    waste = alt.layer(
        base.mark_line(color=red, point=alt.OverlayMarkDef(size=18, **square)).encode(
            x=x, y=waste_y
        ),
        chosen.mark_point(size=120, filled=True, opacity=1, **square).encode(x=x, y=waste_y),
    )
    title = alt.TitleParams(tr("explorer.curve_title"), anchor="start", fontSize=13)
    return (
        alt.layer(rate, waste, name="cap_curves", title=title)
        .resolve_scale(y="independent")
        .properties(width=380, height=PANEL_HEIGHT)
    )
