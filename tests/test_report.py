"""report.py: the tables and charts say what the runs and sweeps say.

Found by the mutation audit (review9/mut4): before these tests only one chart
was rendered in a test, so a wrong column, a miscounted history or a legend
naming outcomes that did not happen would only show in a notebook. Each test
reads the figure or table back (bar heights, line data, legend texts, axis
limits) and compares it with the runs it was drawn from.
"""

from __future__ import annotations

import re

import pandas as pd
import pytest

from agentlab import Budget, run_agent
from agentlab.clients import ScriptedClient, scripted
from agentlab.clients.script import say
from agentlab.course.experiments import smallest_cap
from agentlab.course.palette import outcome_label
from agentlab.course.report import (
    messages_sent,
    outcome_table,
    phase_spans,
    plot_cap_tradeoff,
    plot_history_growth,
    plot_outcome_share,
    plot_phase_timeline,
    plot_steps_at_cap,
    plot_steps_by_outcome,
    readable,
    style_outcomes,
)
from agentlab.i18n import tr
from agentlab.tools import sales_tools

QUESTION = "分析 sales.csv"


def _honest():
    return run_agent(
        QUESTION, client=scripted("honest_analyst"), tools=sales_tools(), budget=Budget(4)
    )


def _runaway(cap=3):
    return run_agent(
        QUESTION, client=scripted("never_stops"), tools=sales_tools(), budget=Budget(cap)
    )


def _saying(text):
    return run_agent(QUESTION, client=ScriptedClient([say(text)]), tools=sales_tools())


def _legend_texts(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


# -- outcome_table, readable, style_outcomes --------------------------------------------


def test_outcome_table_counts_are_the_runs_own():
    """Each row carries its run's counts; tool_errors is not tool_calls."""
    runs = {"honest": _honest(), "runaway": _runaway()}
    table = outcome_table(runs).set_index("scenario")
    for name, run in runs.items():
        row = table.loc[name]
        assert (row["outcome"], row["stop_reason"]) == (run.outcome, run.stop_reason)
        assert (row["steps"], row["model_requests"]) == (run.steps, run.model_requests)
        assert (row["tool_calls"], row["tool_errors"]) == (run.tool_calls, run.tool_errors)
    assert table.loc["honest", "tool_calls"] == 1 and table.loc["honest", "tool_errors"] == 0


def test_outcome_table_details_only_when_asked():
    """phase, tokens and elapsed are columns only with details=True."""
    runs = {"honest": _honest()}
    assert not {"phase", "tokens", "elapsed"} & set(outcome_table(runs).columns)
    detailed = outcome_table(runs, details=True)
    assert {"phase", "tokens", "elapsed"} <= set(detailed.columns)
    assert detailed.loc[0, "tokens"] == runs["honest"].tokens


def test_answer_excerpt_fits_its_width_on_one_line():
    """An answer is cut to exactly `answer_width` characters (ending in …), one of
    exactly that width is kept whole, and line breaks become spaces."""
    runs = {
        "long": _saying("甲" * 50),
        "exact": _saying("乙" * 36),
        "lines": _saying("第一行\n第二行"),
    }
    table = outcome_table(runs, answer_width=36).set_index("scenario")
    assert table.loc["long", "answer"] == "甲" * 35 + "…"
    assert table.loc["exact", "answer"] == "乙" * 36
    assert table.loc["lines", "answer"] == "第一行 第二行"


def test_readable_uses_the_reader_language_not_the_machine_names():
    """readable() renames known columns to their tr() labels and keeps the data."""
    table = outcome_table({"honest": _honest()})
    shown = readable(table)
    assert tr("report.col.outcome") in shown.columns
    assert tr("report.col.outcome") != "outcome" and "outcome" not in shown.columns
    assert shown[tr("report.col.outcome")].tolist() == table["outcome"].tolist()


def _table_id(styled) -> str:
    return re.search(r'id="T_([0-9a-f]+)', styled.to_html()).group(1)


def test_styled_table_id_ignores_wall_clock_time_and_outcomes_get_a_symbol():
    """Two tables differing only in elapsed time get the same HTML id (nbval compares
    it), and every outcome cell shows its shape symbol, not colour alone."""
    table = outcome_table({"honest": _honest(), "runaway": _runaway()}, details=True)
    slower = table.assign(elapsed=["≈999ms", "≈998ms"])
    assert _table_id(style_outcomes(table)) == _table_id(style_outcomes(slower))
    assert _table_id(style_outcomes(table)) != _table_id(style_outcomes(table.iloc[:1]))
    html = style_outcomes(table).to_html()
    assert "● completed" in html and "■ budget_exhausted" in html


# -- plot_steps_by_outcome --------------------------------------------------------------


def test_steps_chart_bars_labels_legend_and_cap():
    """Bar heights are the steps, each bar is labelled with its stop reason, the
    legend names only outcomes that happened plus the cap, and the cap line is
    drawn inside the axes even when it is above every bar."""
    runs = {"honest": _honest(), "runaway": _runaway(3)}
    cap = 9
    ax = plot_steps_by_outcome(runs, cap=cap).axes[0]
    assert [round(bar.get_height()) for bar in ax.patches] == [r.steps for r in runs.values()]
    assert [t.get_text() for t in ax.texts] == [r.stop_reason for r in runs.values()]
    assert _legend_texts(ax) == [
        outcome_label("completed"),
        outcome_label("budget_exhausted"),
        tr("report.cap_line", cap=cap),
    ]
    assert [list(line.get_ydata()) for line in ax.lines] == [[cap, cap]]
    assert ax.get_ylim()[1] > cap


def test_steps_chart_turns_horizontal_after_five_runs():
    """Up to five runs stand side by side; the sixth turns the bars horizontal."""
    run = _runaway(2)
    five = plot_steps_by_outcome({f"r{i}": run for i in range(5)}).axes[0]
    six = plot_steps_by_outcome({f"r{i}": run for i in range(6)}).axes[0]
    assert five.get_ylabel() == tr("report.axis.steps")
    assert six.get_xlabel() == tr("report.axis.steps")


# -- messages_sent, plot_history_growth --------------------------------------------------


def test_messages_sent_counts_the_history_before_each_reply():
    """Request k carried every message before the k-th assistant reply: [2, 4]
    for one tool step then an answer (system + task; + call + result)."""
    assert messages_sent(_honest()) == [2, 4]
    assert messages_sent(_runaway(3)) == [2, 4, 6]


def test_history_chart_is_cumulative_per_request_and_shows_the_cap():
    """The line goes through (request k, messages sent so far) from k = 1, and the
    x axis reaches the cap even when the runs stopped before it."""
    runs = {"runaway": _runaway(3)}
    ax = plot_history_growth(runs, cap=8).axes[0]
    line = ax.lines[0]
    assert list(line.get_xdata()) == [1, 2, 3]
    assert list(line.get_ydata()) == [2, 6, 12]
    assert ax.get_xlim()[1] >= 8


# -- phase_spans, plot_phase_timeline ------------------------------------------------------


def test_phase_spans_are_the_phase_events_only():
    """One span per phase event, in order; start, stop and warning events are not spans."""
    run = _honest()
    assert [phase for phase, _, _ in phase_spans(run)] == ["decide", "tool", "decide"]
    phases = [e for e in run.events if e["event"] == "phase"]
    for (_, start, length), event in zip(phase_spans(run), phases, strict=True):
        assert start + length == pytest.approx(event["t"], abs=1e-3)


def test_timeline_rows_top_down_labelled_by_stop_reason_at_the_run_end():
    """Rows go top to bottom in the order given, each ends with its stop reason written
    where its last phase ended, and the x axis reaches the deadline."""
    runs = {"honest": _honest(), "runaway": _runaway(2)}
    ax = plot_phase_timeline(runs, budget_s=30.0).axes[0]
    bottom, top = ax.get_ylim()
    assert bottom > top  # the first run is the top row
    for text, run in zip(ax.texts, runs.values(), strict=True):
        assert text.get_text().split()[0] == run.stop_reason
        end = max(start + length for _, start, length in phase_spans(run))
        assert text.get_position()[0] == pytest.approx(end * 1000)
    assert ax.get_xlim()[1] >= 30_000


# -- chapter 05 charts over a hand-made sweep ------------------------------------------------


def _sweep_rows():
    """A tiny sweep, by hand: at cap 3 two of four runs ran out; at cap 6 one did."""
    rows = [
        (3, "runaway", "budget_exhausted", 3, False),
        (3, "honest", "completed", 2, True),
        (3, "honest", "budget_exhausted", 3, True),
        (3, "gives_up", "tool_error", 2, False),
        (6, "runaway", "budget_exhausted", 6, False),
        (6, "honest", "completed", 2, True),
        (6, "honest", "completed", 5, True),
        (6, "gives_up", "tool_error", 2, False),
    ]
    return pd.DataFrame(rows, columns=["cap", "kind", "outcome", "steps", "could_complete"])


def test_outcome_share_bars_are_stacked_shares_of_the_outcomes_seen():
    """Per cap the bars are shares that stack to 100 %; the legend names only outcomes
    that happened."""
    ax = plot_outcome_share(_sweep_rows()).axes[0]
    by_cap: dict[float, list[tuple[float, float]]] = {}
    for bar in ax.patches:
        x = round(bar.get_x() + bar.get_width() / 2)
        by_cap.setdefault(x, []).append((bar.get_y(), bar.get_height()))
    for bars in by_cap.values():
        assert sum(h for _, h in bars) == pytest.approx(1.0)
        tops = sorted(y + h for y, h in bars)
        assert tops[-1] == pytest.approx(1.0)  # stacked: the last bar ends at 100 %
    # cap 3: completed 1/4, tool_error 1/4, budget_exhausted 2/4
    assert sorted(h for _, h in by_cap[3]) == pytest.approx([0.25, 0.25, 0.5])
    assert _legend_texts(ax) == [
        outcome_label(o) for o in ("completed", "tool_error", "budget_exhausted")
    ]


def test_steps_at_cap_draws_that_cap_only_kinds_in_course_order_with_cut_off_counts():
    """Only the runs at the asked cap are dots; kinds go honest … repeater whatever the
    data order; each kind's label says how many of its runs ran out."""
    ax = plot_steps_at_cap(_sweep_rows(), cap=3).axes[0]
    assert sum(len(c.get_offsets()) for c in ax.collections) == 4
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert [label.split("\n")[0] for label in labels] == ["honest", "gives_up", "runaway"]
    assert labels[0].split("\n")[1] == tr("report.cut_off", n=1, total=2)
    assert labels[2].split("\n")[1] == tr("report.cut_off", n=1, total=1)


def _summary():
    return pd.DataFrame(
        {
            "cap": [2, 4, 6, 8],
            "completion_rate": [0.2, 0.8, 0.9, 1.0],
            "wasted_steps": [4, 10, 30, 50],
        }
    )


def test_tradeoff_marks_the_smallest_cap_for_the_given_target_and_the_interval():
    """The marked cap is the smallest reaching *this* target (not the default 95 %),
    the interval band covers its end caps whole, and the waste axis shows the
    largest waste."""
    summary = _summary()
    fig = plot_cap_tradeoff(summary, target=0.8, interval=(4, 6))
    rate_ax, waste_ax = fig.axes
    assert smallest_cap(summary, 0.8) == 4 != smallest_cap(summary)
    texts = _legend_texts(waste_ax)
    assert tr("report.best_cap", cap=4, target="80%") in texts
    band = [p for p in rate_ax.patches if p.get_alpha() == 0.25][0]
    assert band.get_x() == pytest.approx(3.5)
    assert band.get_x() + band.get_width() == pytest.approx(6.5)
    assert waste_ax.get_ylim()[1] >= 50


def _one_run():
    return run_agent("分析 sales.csv", client=scripted("honest_analyst"), tools=sales_tools(),
                     budget=Budget(max_steps=4), trace_dir=False)  # fmt: skip


@pytest.mark.parametrize("shape", ["list", "run"])
def test_runs_not_given_as_a_dict_are_refused_naming_runs(shape):
    """outcome_table([r1, r2]) or plot_steps_by_outcome(r) is a slip worth one clear line."""
    run = _one_run()
    given = [run] if shape == "list" else run
    message = re.escape(tr("report.runs_not_a_dict", type=type(given).__name__))
    for draw in (outcome_table, plot_steps_by_outcome, plot_history_growth, plot_phase_timeline):
        with pytest.raises(TypeError, match=message):
            draw(given)


def test_an_empty_table_of_runs_can_still_be_styled():
    """Emptying the runs dict live gives an empty table, not a KeyError from pandas."""
    html = style_outcomes(outcome_table({})).to_html()
    assert "<table" in html


def test_a_run_that_never_asked_the_model_draws_without_a_warning():
    """An empty task (or a deadline before step 1) has no request and no phase: the
    charts still draw, with no matplotlib warning on stderr (pytest turns it into an error)."""
    never = run_agent("", client=scripted("honest_analyst"), tools=sales_tools(), trace_dir=False)
    assert never.model_requests == 0
    plot_history_growth({"空问题": never})
    plot_phase_timeline({"空问题": never})
    plot_phase_timeline({})
