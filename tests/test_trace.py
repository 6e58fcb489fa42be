"""trace.py: where the trace goes, that a rerun starts afresh, and what ``t`` counts.

Found by the mutation audit (review9/mut4): the suite passed every run an
explicit ``trace_dir``, so the default place (``$AGENTLAB_RUNS_DIR``) and a
rerun's file were never looked at, and no test read ``t``'s value.
"""

from __future__ import annotations

from pathlib import Path

from agentlab import Budget, run_agent
from agentlab.clients import ScriptedClient, call, say, scripted
from agentlab.loop.trace import read_trace
from agentlab.tools import Tool, ToolRegistry, ok, sales_tools

QUESTION = "分析 sales.csv"


def _run(**options):
    return run_agent(
        QUESTION,
        client=scripted("honest_analyst"),
        tools=sales_tools(),
        budget=Budget(4),
        on_text=None,
        **options,
    )


def test_by_default_the_trace_goes_under_agentlab_runs_dir(tmp_path, monkeypatch):
    """No trace_dir: the trace is written to $AGENTLAB_RUNS_DIR/<task_id>/trace.jsonl."""
    monkeypatch.setenv("AGENTLAB_RUNS_DIR", str(tmp_path / "runs"))
    result = _run(task_id="default-place")
    expected = tmp_path / "runs" / "default-place" / "trace.jsonl"
    assert result.trace_path == str(expected)
    assert read_trace(expected) == result.events


def test_a_rerun_of_the_same_task_id_replaces_its_trace(tmp_path):
    """The second run of a task_id leaves its own events only, not both runs'."""
    _run(task_id="twice", trace_dir=tmp_path)
    second = _run(task_id="twice", trace_dir=tmp_path)
    events = read_trace(Path(second.trace_path))
    assert [e["event"] for e in events].count("start") == 1
    assert events == second.events


def test_t_counts_seconds_from_the_start_of_the_run(tmp_path):
    """Every event's t lies between 0 and the run's elapsed time, in order (the bound
    is generous: the stop event is written just after elapsed_s is read)."""
    result = _run(task_id="clock", trace_dir=tmp_path)
    times = [e["t"] for e in result.events]
    assert times == sorted(times)
    assert 0 <= times[0] and times[-1] <= result.elapsed_s + 1.0


def test_full_outputs_are_kept_only_beside_a_trace_being_written(tmp_path):
    """Once the trace gave up (disk full), a truncated output is not saved elsewhere
    either: saved_to stays None, as trace_path does."""
    full = tmp_path / "runs" / "full-disk"
    full.mkdir(parents=True)
    (full / "trace.jsonl").symlink_to("/dev/full")  # every write fails with ENOSPC
    big = Tool("big", "A long log.", {"properties": {}}, lambda: ok({"log": "line\n" * 2000}))
    result = run_agent(
        QUESTION,
        client=ScriptedClient([call("big"), say("done")]),
        tools=ToolRegistry([big]),
        budget=Budget(4, max_tool_output_chars=1000),
        on_text=None,
        trace_dir=tmp_path / "runs",
        task_id="full-disk",
    )
    record = result.tool_results[0]
    assert record["truncated_chars"] > 0
    assert (result.trace_path, record["saved_to"]) == (None, None)
    assert not (full / "outputs").exists()


def test_read_trace_skips_blank_lines(tmp_path):
    """A trace file with blank lines (edited by hand, joined from parts) still reads."""
    path = tmp_path / "trace.jsonl"
    path.write_text('{"event": "start", "t": 0}\n\n{"event": "stop", "t": 1}\n  \n', "utf-8")
    assert [e["event"] for e in read_trace(path)] == ["start", "stop"]
