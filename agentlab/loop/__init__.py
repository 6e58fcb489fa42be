"""The loop and its budgets: the lesson itself.

Read it as a ladder, each rung a file (as minbpe has basic -> regex -> gpt4):
``minimal.py`` (chapter 01), then ``agent.py`` with ``run_agent``. The rest are
the pieces ``run_agent`` consults: ``budget.py`` (every limit), ``result.py``
(how a run ends), ``deadline`` time, ``context.py`` (big outputs), ``trace.py``.

This layer talks to a model through ``agentlab.model`` and runs tools through
``agentlab.tools``; it never imports the clients, the course or the operator's
tools.
"""

from .agent import DEFAULT_MODEL, default_system_prompt, run_agent

__all__ = ["DEFAULT_MODEL", "default_system_prompt", "run_agent"]
