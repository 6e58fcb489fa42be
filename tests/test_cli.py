"""The instructor CLI: each command, and one-line errors with exit code 2."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from unicodedata import east_asian_width

import pandas as pd
import pytest

from agentlab.i18n import tr
from agentlab.ops.cli import build_parser, demo_scenarios, main, parse_caps
from agentlab.ops.cli_parser import error_line

from .conftest import interrupted, stderr_when_the_reader_leaves
from .display_scenarios import scenarios


def test_run_prints_the_result_as_json(capsys):
    code = main(
        ["run", "分析 data/input/sales.csv，哪个类别最高？", "--scripted", "honest_analyst"]
    )
    out, err = capsys.readouterr()
    result = json.loads(out)
    assert code == 0
    assert result["status"] == "completed" and "显示器" in result["summary"]["answer"]
    assert "显示器" in out  # ensure_ascii is off
    assert tr("cli.scripted_asked", name="honest_analyst") in err


def test_run_says_where_its_trace_is(capsys, monkeypatch, tmp_path):
    """An instructor opens the trace next: the path is on stderr, the JSON unchanged."""
    monkeypatch.setenv("AGENTLAB_RUNS_DIR", str(tmp_path))
    assert main(["run", "分析 sales.csv", "--scripted", "honest_analyst"]) == 0
    out, err = capsys.readouterr()
    [trace] = tmp_path.glob("*/trace.jsonl")
    assert json.loads(out)["task_id"] == trace.parent.name
    assert tr("cli.trace_at", path=str(trace)) in err


def test_run_falls_back_to_a_scripted_model_and_says_so(capsys):
    code = main(["run", "分析 sales.csv", "--max-steps", "1"])
    out, err = capsys.readouterr()
    assert code == 1  # one step cannot finish a two-step task
    assert json.loads(out)["stop_reason"] == "max_steps"
    assert tr("cli.scripted_fallback", name="honest_analyst", reason="") in err
    assert "AGENTLAB_OFFLINE" in err


def test_run_with_file_tools_and_streaming(capsys):
    code = main(
        ["run", "读一下 meeting.md，把 TODO 行写进 todo-list.md", "--tools", "files", "--stream"]
    )
    out, err = capsys.readouterr()
    assert code == 0 and json.loads(out)["summary"]["tool_calls_used"] == 2
    assert "TODO" in err  # the streamed answer went to stderr, stdout stayed JSON


def test_demo_prints_every_scenario(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    for words in (
        "正常完成",
        "completed",
        "tool_error",
        "max_steps",
        "repeat_call",
        "deadline",
        "decide",
    ):
        assert words in out
    # Chinese characters take two columns in a terminal: every row of the table is as wide
    table = [line for line in out.splitlines() if line.strip()][-(len(demo_scenarios()) + 1) :]
    widths = {sum(2 if east_asian_width(c) in "WF" else 1 for c in line) for line in table}
    header_and_rows = [line.split()[0] for line in table]
    assert len(widths) == 1 and header_and_rows[1] == tr("cli.demo.ok"), (widths, table)


def test_demo_shows_every_outcome(capsys):
    """The README: `agentlab demo` runs every outcome once, then a table."""
    assert main(["demo"]) == 0
    table = capsys.readouterr().out
    for outcome in ("completed", "tool_error", "budget_exhausted", "model_error"):
        assert f" {outcome} " in table, outcome


def test_demo_streams_phases_live(capsys):
    assert main(["demo", "--stream"]) == 0
    out = capsys.readouterr().out
    assert f"{tr('cli.step', step=1)} decide   ok       -> analyze_csv" in out
    assert "TOOL_KILLED" in out


def test_demo_stream_says_how_each_scenario_stopped(capsys):
    """Live, the instructor pauses after each scenario: why it ended is on screen there,
    not only in the table at the very end."""
    assert main(["demo", "--stream"]) == 0
    out = capsys.readouterr().out
    live = [block.split("\n\n")[0] for block in out.split("\n== ")[1:]]  # the table follows
    assert len(live) == len(demo_scenarios())
    for block, (reason, outcome) in zip(
        live,
        [
            ("answered", "completed"),
            ("answered", "tool_error"),
            ("max_steps", "budget_exhausted"),
            ("repeat_call", "budget_exhausted"),
            ("deadline", "budget_exhausted"),
            ("deadline", "budget_exhausted"),
            ("model_error", "model_error"),
        ],
        strict=True,
    ):
        last = block.strip().splitlines()[-1]
        assert tr("cli.stopped", stop_reason=reason, outcome=outcome) in last, block


def test_sweep_writes_csv_and_charts(tmp_path, capsys):
    out_dir = tmp_path / "sweep"
    assert main(["sweep", "--caps", "1-12", "--n", "20", "--seed", "0", "--out", str(out_dir)]) == 0
    names = sorted(p.name for p in out_dir.iterdir())
    assert names == [
        "cap_tradeoff.png",
        "outcome_share.png",
        "steps_at_cap.png",
        "summary.csv",
        "sweep.csv",
    ]
    table = pd.read_csv(out_dir / "sweep.csv")
    assert len(table) == 20 * 12 and sorted(table["cap"].unique()) == list(range(1, 13))
    assert (
        tr("cli.sweep.best", target="95%", cap=11, rate="100%", wasted=66)[:12]
        in capsys.readouterr().out
    )


def test_trace_writes_one_self_contained_page(tmp_path, capsys):
    run = scenarios()["wander"](task_id="wander", trace_dir=tmp_path)
    trace = Path(run.trace_path)
    out = tmp_path / "wander.html"
    assert main(["trace", str(trace), "--out", str(out)]) == 0
    assert capsys.readouterr().out.strip() == str(out)
    page = out.read_text(encoding="utf-8")
    assert "<script" not in page and not re.search(r"\bsrc=|\bhref=|url\(|https?://", page)
    assert re.search(r'<div class="al-title">[^<]*wander', page)  # named after its folder
    assert main(["trace", str(trace)]) == 0  # default: beside the trace
    assert trace.with_suffix(".html").exists()


@pytest.mark.parametrize(
    "content", [None, "not json\n", '{"no": "event field"}\n', "[1, 2]\n", "\n"]
)
def test_trace_rejects_what_is_not_a_trace_in_one_line(tmp_path, capsys, content):
    path = tmp_path / "trace.jsonl"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    assert main(["trace", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith(error_line("agentlab trace", ""))
    assert err.count(str(path)) <= 1  # named once, not "cannot read X: X line 1 ..."


COMMANDS = "'run', 'demo', 'sweep', 'doctor', 'trace', 'exercises', 'grade'"
SCRIPTED = "'honest_analyst', 'never_stops', 'todo_clerk'"


@pytest.mark.parametrize(
    "argv, fragment",
    [
        ([], tr("cli.argparse.required", names="{run,demo,sweep,doctor,trace,exercises,grade}")),
        (["fly"], tr("cli.argparse.choice", value="'fly'", choices=COMMANDS)),
        (["run"], "question"),
        (["run", "x", "--max-steps", "0"], tr("cli.not_positive", text="'0'")),
        (
            ["run", "x", "--scripted", "genius"],
            tr("cli.argparse.choice", value="'genius'", choices=SCRIPTED),
        ),
        (["sweep", "--out", "o", "--caps", "5-1"], tr("cli.bad_caps", text="'5-1'")),
        (["sweep", "--out", "o", "--caps", "a"], tr("cli.bad_caps", text="'a'")),
        (["sweep", "--out", "o", "--caps", "0-3"], tr("cli.caps_positive")),
        (["sweep", "--caps", "1-3"], "--out"),
        (["sweep", "--out", "o", "--target", "2"], tr("cli.bad_target")),
    ],
)
def test_bad_arguments_give_one_line_and_exit_code_2(argv, fragment, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as info:
        main(argv)
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert len(err.strip().splitlines()) == 1 and fragment in err


@pytest.mark.parametrize(
    "argv",
    [
        ["run"],
        ["run", "x", "--record", "a.json", "--replay", "b.json"],
        ["run", "--replay", "missing.json"],
        ["run", "x", "--record", "no/such/folder/r.json"],
        ["sweep", "--out", "o", "--target", "2"],
    ],
)
def test_a_command_s_own_checks_name_the_command_as_argparse_does(
    argv, capsys, tmp_path, monkeypatch
):
    """`agentlab run：错误：…`, as for `--max-steps 0`, not `agentlab：错误：…`."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit):
        main(argv)
    assert capsys.readouterr().err.startswith(error_line(f"agentlab {argv[0]}", ""))


def test_out_must_not_be_a_file(tmp_path, capsys):
    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(SystemExit) as info:
        main(["sweep", "--out", str(tmp_path / "file"), "--caps", "1-2"])
    expected = tr("cli.out_not_folder", path=str(tmp_path / "file"))
    assert info.value.code == 2 and expected in capsys.readouterr().err


def test_caps_parsing():
    assert parse_caps("1-3,7,5") == [1, 2, 3, 5, 7]


def test_python_dash_m_and_help_text():
    out = subprocess.run(
        [sys.executable, "-m", "agentlab", "sweep", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "--caps" in out and tr("cli.sweep.seed") in out


def test_every_option_with_a_default_says_it_in_its_help():
    """Chapter 05 shows `agentlab sweep --caps 1-30 --seed 0`; a student who gets 14
    where the notebook got 13 should read in --help that --n is 200, not the chapter's 30."""
    import argparse

    [commands] = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    silent = []
    for name, sub in commands.choices.items():
        for action in sub._actions:
            if action.required or action.default in (None, False, argparse.SUPPRESS):
                continue
            if not re.search("默认|default", action.help or ""):
                silent.append(f"{name} {action.option_strings[0]}")
    assert not silent, silent


@pytest.mark.parametrize("command", [["demo"], ["exercises", "list"]])
def test_output_that_cannot_take_chinese_gets_utf8_instead_of_a_crash(command):
    """A Windows pipe or redirect on a Western locale is cp1252; the commands
    switched such output to UTF-8 rather than raising UnicodeEncodeError."""
    done = subprocess.run(
        [sys.executable, "-m", "agentlab", *command],
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "cp1252", "AGENTLAB_LANG": "zh"},
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    assert re.search("[\u4e00-\u9fff]", done.stdout.decode("utf-8"))  # Chinese, as UTF-8


def test_a_lone_surrogate_in_what_a_command_prints_is_written_as_its_escape():
    """A model may send half an emoji ("\\ud83d"); `agentlab run` prints its answer as JSON."""
    code = "from agentlab.i18n import printable_output; printable_output(); print('好\\ud83d')"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=False)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    assert done.stdout.decode("utf-8").strip() == "好\\ud83d"


def test_run_with_a_proxy_that_cannot_work_falls_back_and_names_it(capsys, monkeypatch, tmp_path):
    """A proxy the HTTP library rejects raised ValueError from inside the SDK: a traceback."""
    monkeypatch.chdir(tmp_path)  # no .env
    monkeypatch.delenv("AGENTLAB_OFFLINE")
    for name, value in {
        "LLM_API_KEY": "sk-cli-proxy-test-0123456789",
        "LLM_BASE_URL": "http://127.0.0.1:9/v1",
        "LLM_MODEL": "m",
        "ALL_PROXY": "socks4://clash:proxypass@127.0.0.1:7890",
    }.items():
        monkeypatch.setenv(name, value)
    code = main(["run", "分析 sales.csv", "--max-steps", "1"])
    out, err = capsys.readouterr()
    assert code == 1 and json.loads(out)["stop_reason"] == "max_steps"
    assert tr("cli.scripted_fallback", name="honest_analyst", reason="") in err
    assert "ALL_PROXY" in err and "proxypass" not in out + err


def test_an_output_that_cannot_be_written_is_one_line_before_any_run(tmp_path, capsys):
    """No traceback, and no sweep (or paid request) first only to fail at the end."""
    (tmp_path / "file").write_text("x", encoding="utf-8")
    (tmp_path / "a-folder").mkdir()
    for argv, where in (
        (["sweep", "--out", str(tmp_path / "file" / "out"), "--caps", "1-2"], "file"),
        (["run", "x", "--scripted", "honest_analyst", "--record", str(tmp_path / "no" / "r.json")],
         "r.json"),
        (["run", "x", "--scripted", "honest_analyst", "--record", str(tmp_path / "a-folder")],
         "a-folder"),
    ):  # fmt: skip
        with pytest.raises(SystemExit) as info:
            main(argv)
        captured = capsys.readouterr()
        assert info.value.code == 2 and captured.out == ""
        assert len(captured.err.strip().splitlines()) == 1 and where in captured.err
        assert "Traceback" not in captured.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-folder", "file"]  # no .partial


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")
def test_ctrl_c_during_a_command_is_one_line_and_exit_code_130():
    """An instructor stopping a live demo with Ctrl-C gets a sentence, not a traceback."""
    code = (
        "import sys\n"
        "import agentlab.ops.cli as cli\n"
        "from agentlab import Budget\n"
        "from agentlab.clients import Hang, ScriptedClient\n"
        "from agentlab.tools import sales_tools\n"
        "cli.demo_scenarios = lambda: [cli.DemoScenario('slow', 'x',"
        " lambda: ScriptedClient([Hang(30.0)]), sales_tools, Budget(max_seconds=60))]\n"
        "sys.exit(cli.main(['demo', '--stream']))\n"
    )

    def busy(stdout):  # the scenario has started: its model is hanging now
        for line in stdout:
            if line.startswith("== slow"):
                return

    exit_code, err = interrupted(
        [sys.executable, "-c", code], busy, env={**os.environ, "AGENTLAB_LANG": "zh"}
    )
    assert exit_code == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert err.strip() == tr("cli.interrupted", prog="agentlab demo")


@pytest.mark.skipif(sys.platform == "win32", reason="a process group's SIGINT is POSIX")
def test_ctrl_c_reaches_sweep_workers_too_and_they_print_nothing(tmp_path):
    """A terminal sends Ctrl-C to every process of the command: the pool's workers
    printed their own tracebacks beside the command's one line. (Whether they print
    races the pool's terminate, so test_experiments asks the workers themselves.)"""
    code = (
        "import sys\n"
        "import tqdm\n"
        "from agentlab.ops.cli import main\n"
        "def started(batches, **options):  # the pool is up: say so, then hand out the work\n"
        "    print('pool running', flush=True)\n"
        "    return batches\n"
        "tqdm.tqdm = started\n"
        f"sys.exit(main(['sweep', '--out', {str(tmp_path / 'out')!r}, '--workers', '2',"
        " '--n', '400']))\n"
    )

    def busy(stdout):  # waiting on a line, not a clock: a loaded machine may take long
        assert stdout.readline() == "pool running\n"

    exit_code, err = interrupted(
        [sys.executable, "-c", code], busy, group=True, env={**os.environ, "AGENTLAB_LANG": "zh"}
    )
    assert exit_code == 130, err
    assert err.strip() == tr("cli.interrupted", prog="agentlab sweep")


def test_output_piped_into_a_reader_that_stops_early_is_no_traceback():
    """`agentlab run ... | head -3`: the reader goes away before the JSON is all written."""
    err = stderr_when_the_reader_leaves(
        [sys.executable, "-m", "agentlab", "run", "x", "--scripted", "honest_analyst"],
        env={**os.environ, "AGENTLAB_LANG": "zh"},
    )
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
