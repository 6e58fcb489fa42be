"""Students follow one run into the package: the path stays short.

Issue 12's measure: one non-streamed run of the honest sales analyst enters
at most 7 files of the package besides the model client (``clients/``) and
the tool's own modules (``tools/sales.py`` and the sandbox it uses). The
test names the files, so a change that adds a stop on the way shows up here.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import agentlab
from agentlab import run_agent
from agentlab.clients import scripted
from agentlab.tools import sales_tools

from .conftest import SEED_QUESTION

PACKAGE = Path(agentlab.__file__).parent
THE_TOOL = {"tools/sales.py", "tools/sandbox.py"}


def by_the_client(frame) -> bool:
    """A client's code up the stack: its own work (a scripted reply's words) is not the loop's."""
    caller = frame.f_back
    while caller is not None:
        if caller.f_code.co_filename.startswith(str(PACKAGE / "clients")):
            return True
        caller = caller.f_back
    return False


def files_entered(run) -> set[str]:
    entered: set[str] = set()

    def tracer(frame, event, arg):
        filename = frame.f_code.co_filename
        if event == "call" and filename.startswith(str(PACKAGE)) and not by_the_client(frame):
            entered.add(Path(os.path.relpath(filename, PACKAGE)).as_posix())

    sys.settrace(tracer)
    try:
        run()
    finally:
        sys.settrace(None)
    return {f for f in entered if not f.startswith("clients/") and f not in THE_TOOL}


def test_one_run_of_the_sales_analyst_enters_seven_files():
    client, tools = scripted("honest_analyst"), sales_tools()
    result = {}

    def run():
        result["run"] = run_agent(SEED_QUESTION, client=client, tools=tools, trace_dir=False)

    entered = files_entered(run)
    assert result["run"].outcome == "completed"
    assert entered == {
        "loop/agent.py",
        "loop/budget.py",
        "model/request.py",
        "tools/registry.py",
        "deadline.py",
        "loop/result.py",
        "loop/trace.py",
        "loop/guards.py",
        "loop/decide.py",
        "loop/state.py",
        "model/secrets.py",
    }
