"""agentlab: an agent loop that always stops, for the chapter notebooks.

The pieces, one module each:

- ``loop.py``     ``run_agent``: ask, run tools, repeat, within budget;
- ``budget.py``   ``Budget`` and the guards the loop consults;
- ``request.py``  one model request (the *decide* phase);
- ``result.py``   ``RunResult``: status, outcome, stop reason, history;
- ``tools/``      the tool registry and ready-made tools;
- ``clients/``    scripted and real ``openai.OpenAI`` clients;
- ``report.py``   pandas tables and matplotlib charts (imported on demand).

Importing ``agentlab`` does not import pandas or matplotlib.
"""

from .budget import MAX_STEPS, Budget
from .loop import run_agent
from .result import OUTCOMES, STOP_REASONS, RunResult

__all__ = ["MAX_STEPS", "OUTCOMES", "STOP_REASONS", "Budget", "RunResult", "run_agent"]
__version__ = "0.1.0"
