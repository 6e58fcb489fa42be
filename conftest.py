"""Repository-wide pytest set-up (unit tests and nbval notebooks alike).

Kernels started by nbval inherit this process's environment, so what is set
here holds for the notebooks under test too.
"""

import os
import tempfile


def pytest_configure(config):
    # Tests never talk to a real model, however pytest is started: a
    # student's .env must not change results or spend money.
    os.environ["AGENTLAB_OFFLINE"] = "1"
    # Run traces go to a throw-away folder, not into the working tree.
    os.environ.setdefault("AGENTLAB_RUNS_DIR", tempfile.mkdtemp(prefix="agentlab-test-runs-"))
