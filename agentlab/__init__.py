"""agentlab: an agent loop that always stops, for the chapter notebooks.

Follow one run through these modules, in this order (the sales analyst's
run, non-streamed and going well, enters only the first seven, besides the
model client and the tool; a failing tool adds ``failures.py``, and any
message a person reads ``i18n.py``):

- ``loop.py``         ``run_agent``: ask, run tools, repeat, within budget
                      (``minimal_loop.py`` is the same loop with only a step cap);
- ``budget.py``       ``Budget`` and the guards the loop consults;
- ``request.py``      the decide phase: one model request (``streaming.py``
                      puts streamed replies together, ``quirks.py`` reads what real
                      providers add, ``retry.py`` says when to retry);
- ``tools/``          the tool registry (whitelist, argument check, time limit)
                      and ready-made tools;
- ``deadline.py``     the one deadline every phase shares;
- ``result.py``       what a run did and how it ended (``RunResult``);
- ``trace.py``        the run's events, on disk as JSON lines;
- ``isolation.py``    isolated tools: a child process, killed when its time is up;
- ``context.py``      truncating big outputs, folding old steps;
- ``failures.py``     naming a failure: transient, invalid input, permission or logic;
- ``clients/``        scripted and real ``openai.OpenAI`` clients, recording and replay;
- ``i18n.py``         looks up every message people read, Chinese or English,
                      in ``locale/zh.toml`` and ``locale/en.toml``.

Around the loop, for the chapters and the people who run them:

- ``straight_line.py`` chapter 01's script with no loop, to compare against;
- ``faults.py``       tools and models that misbehave on purpose (the demos);
- ``experiments.py``  populations of runs and the step-cap sweep (chapter 05);
- ``report.py``       pandas tables and matplotlib charts; ``palette.py`` the colours;
- ``display.py``      one run as HTML in a notebook (``run_view.py`` reads it);
- ``explorer.py``     the interactive cap explorer (altair);
- ``exercises/``      the chapters' exercises and their checker;
- ``otel.py``         a run's trace as OpenTelemetry spans;
- ``doctor.py``, ``cli.py``  ``agentlab run`` / ``demo`` / ``sweep`` / ``doctor`` /
  ``trace`` from a shell;
  ``cli_parser.py`` argparse in the course's language.

Importing ``agentlab`` does not import pandas or matplotlib.
"""

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
