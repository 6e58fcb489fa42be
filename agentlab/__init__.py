"""agentlab: an agent loop that always stops, for the chapter notebooks.

Follow one run through these modules, in this order:

- ``loop.py``         ``run_agent``: ask, run tools, repeat, within budget
                      (``minimal_loop.py`` is the same loop with only a step cap);
- ``budget.py``       ``Budget`` and the guards the loop consults;
- ``request.py``      the decide phase: one model request (``streaming.py``
                      puts streamed replies together, ``quirks.py`` reads what real
                      providers add, ``retry.py`` says when to retry);
- ``tools/``          the tool registry (whitelist, argument check, time limit)
                      and ready-made tools;
- ``result.py``       what a run did and how it ended (``RunResult``);
- ``deadline.py``     the one deadline every phase shares;
- ``isolation.py``    isolated tools: a child process, killed when its time is up;
- ``trace.py``        the run's events, on disk as JSON lines;
- ``context.py``      truncating big outputs, folding old steps;
- ``failures.py``     naming a failure: transient, invalid input, permission or logic;
- ``clients/``        scripted and real ``openai.OpenAI`` clients, recording and replay;
- ``i18n.py``         every message people read, in Chinese and English;
- ``report.py``       pandas tables and matplotlib charts (imported on demand).

Importing ``agentlab`` does not import pandas or matplotlib.
"""

from importlib.metadata import PackageNotFoundError, version

from .budget import DEFAULT_MAX_STEPS, DEMO_MAX_STEPS, Budget
from .loop import run_agent
from .result import OUTCOMES, STOP_REASONS, RunResult

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
