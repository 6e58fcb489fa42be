"""The cap explorer: a Vega-Lite chart whose slider covers the sweep, whose data
are summarize()'s figures, and whose JSON is the same every time it is made.

(That the slider really redraws the chart is checked in a browser:
tests/browser/check_explorer.py, run by `make browser-test`.)
"""

from __future__ import annotations

import json
import subprocess
import sys

import altair as alt
import pandas as pd
import pytest

from agentlab.course.experiments import make_population, smallest_cap, summarize, sweep
from agentlab.course.explorer import OUTCOME_COLOURS, VEGALITE_MIMETYPE, cap_explorer

CAPS = range(1, 17)  # small: the browser check uses chapter 05's 30 tasks x 24 caps


@pytest.fixture(scope="module")
def results() -> pd.DataFrame:
    return sweep(make_population(20, seed=0), CAPS)


def datasets(spec: dict) -> tuple[list[dict], list[dict]]:
    """The chart's two tables: the outcome mix and the curves."""
    tables = list(spec["datasets"].values())
    mix = [t for t in tables if "share" in t[0]]
    curve = [t for t in tables if "completion_rate" in t[0]]
    assert len(mix) == len(curve) == 1 and len(tables) == 2
    return mix[0], curve[0]


def test_the_json_is_the_same_every_time_the_chart_is_made(results):
    first = cap_explorer(results, initial_cap=8).to_dict()
    # Charts made in between advance altair's automatic name counters
    # (param_1, view_1, ...); the explorer must not depend on them.
    other = alt.Chart(pd.DataFrame({"a": [1, 2]})).mark_point().encode(x="a:Q")
    for _ in range(3):
        alt.hconcat(other.add_params(alt.selection_point()), other).to_dict()
    second = cap_explorer(results, initial_cap=8).to_dict()
    assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)
    text = json.dumps(first)
    assert "view_" not in text and "param_" not in text
    assert len(text) < 40_000  # small enough to keep in a committed notebook


def test_the_charts_data_are_summarizes_figures_for_every_cap(results):
    mix, curve = datasets(cap_explorer(results).to_dict())
    summary = summarize(results).set_index("cap")
    assert [row["cap"] for row in curve] == list(CAPS)
    for row in curve:
        assert row["completion_rate"] == summary.loc[row["cap"], "completion_rate"]
        assert row["wasted_steps"] == summary.loc[row["cap"], "wasted_steps"]
    assert len(mix) == len(CAPS) * len(OUTCOME_COLOURS)
    for row in mix:
        assert row["share"] == summary.loc[row["cap"], f"share_{row['outcome']}"]
        at_cap = results[results["cap"] == row["cap"]]
        assert row["runs"] == (at_cap["outcome"] == row["outcome"]).sum()
    for cap in CAPS:  # the shares at every cap add up to all runs
        assert sum(r["share"] for r in mix if r["cap"] == cap) == pytest.approx(1.0)


def test_the_slider_covers_the_swept_caps_and_starts_where_asked(results):
    spec = cap_explorer(results, initial_cap=4).to_dict()
    [param] = spec["params"]
    assert param["name"] == "max_steps" and param["value"] == 4
    assert param["bind"]["input"] == "range"
    assert (param["bind"]["min"], param["bind"]["max"], param["bind"]["step"]) == (1, 16, 1)
    # every layer that shows "the chosen cap" filters on the slider's value
    text = json.dumps(spec)
    assert text.count('"(datum.cap === max_steps)"') >= 4
    default = cap_explorer(results).to_dict()["params"][0]["value"]
    assert default == smallest_cap(summarize(results))


def test_a_sweep_with_spaced_caps_gets_a_slider_with_the_same_spacing():
    spaced = sweep(make_population(6, seed=1), range(2, 13, 2))
    bind = cap_explorer(spaced, initial_cap=6).to_dict()["params"][0]["bind"]
    assert (bind["min"], bind["max"], bind["step"]) == (2, 12, 2)


def test_it_displays_as_vega_lite_v5_json_that_jupyterlab_renders(results):
    chart = cap_explorer(results)
    bundle = chart._repr_mimebundle_()
    assert set(bundle) == {VEGALITE_MIMETYPE, "text/plain"}
    assert VEGALITE_MIMETYPE == "application/vnd.vegalite.v5+json"
    assert "/vega-lite/v5" in bundle[VEGALITE_MIMETYPE]["$schema"]
    assert "Vega-Lite" in bundle["text/plain"]


def test_labels_follow_the_language_switch(results, monkeypatch):
    monkeypatch.setenv("AGENTLAB_LANG", "en")
    english = json.dumps(cap_explorer(results).to_dict(), ensure_ascii=False)
    monkeypatch.setenv("AGENTLAB_LANG", "zh")
    chinese = json.dumps(cap_explorer(results).to_dict(), ensure_ascii=False)
    assert "步数上限" in chinese and "预算耗尽" in chinese
    assert "步数上限" not in english and "step cap max_steps" in english


def test_bad_input_gets_a_clear_error(results):
    with pytest.raises(ValueError, match="sweep"):
        cap_explorer(results.iloc[0:0])
    with pytest.raises(ValueError, match="17"):
        cap_explorer(results, initial_cap=17)


def test_importing_agentlab_does_not_import_altair():
    code = "import sys, agentlab; print('altair' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
