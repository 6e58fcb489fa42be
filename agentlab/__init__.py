"""agentlab: an agent loop that always stops, for the chapter notebooks.

The package is built in layers, one folder each; a layer imports only the
layers below it (``make lint`` checks, with import-linter):

- ``ops/``       the instructor's and operator's tools: ``agentlab`` command, doctor,
                 OpenTelemetry export, exercises command;
- ``course/``    around the loop, for the chapters: exercises, run display, reports,
                 experiments, the cap explorer, tools and models that fail on purpose;
- ``clients/``   scripted and real ``openai.OpenAI`` clients, recording and replay;
- ``loop/``      the loop and its budgets — the lesson itself. Read it as a ladder:
                 ``minimal.py``, then ``agent.py`` (``run_agent``) and the pieces it
                 consults (``budget.py``, ``guards.py``, ``decide.py``, ``state.py``,
                 ``result.py``, ``context.py``, ``trace.py``);
- ``model/``     talking to a model service: a request, streams, providers' ways,
                 failures, retries, secrets;
  ``tools/``     the tool registry (whitelist, argument check, time limit) and
                 ready-made tools;
- ``deadline.py`` the one deadline every phase shares; ``i18n.py`` looks up the
                 messages people read, Chinese or English, in ``locale/*.toml``.

Importing ``agentlab`` does not import pandas or matplotlib.
"""

import sys
from importlib.metadata import PackageNotFoundError, version

from .loop.agent import run_agent
from .loop.budget import DEFAULT_MAX_STEPS, DEMO_MAX_STEPS, Budget
from .loop.result import OUTCOMES, STOP_REASONS, RunResult

__all__ = [
    "DEFAULT_MAX_STEPS",
    "DEMO_MAX_STEPS",
    "OUTCOMES",
    "STOP_REASONS",
    "Budget",
    "RunResult",
    "run_agent",
]

try:
    __version__ = version("agentlab")  # pyproject.toml is the one place it is written
except PackageNotFoundError:  # running from a copied source folder, not installed
    __version__ = "unknown"


def _show_runs_as_pictures() -> None:
    """In Jupyter, a ``RunResult`` shows itself as a picture of the run.

    The loop does not know about HTML: the course's renderer is registered
    with IPython here, at the top of the package, and imported only when a
    run is first shown.
    """
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None:
        return

    def run_html(result: RunResult) -> str:
        from .course.display import run_html

        return run_html(result)

    shell.display_formatter.formatters["text/html"].for_type(RunResult, run_html)


_show_runs_as_pictures()
