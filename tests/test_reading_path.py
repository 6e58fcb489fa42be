"""Students follow one run into the package: the rare paths stay out of its way.

``benchmarks/run_path.py`` measures what a student must open to follow one
honest, non-streamed run of the sales analyst (``make bench`` prints it).
This test holds the shape of that path: the run enters the loop, the model
request, the registry and the tool, and none of the modules that exist for
what did not happen (a failure, an odd reply, a stream, a big output, a
guard that is off, a hung tool, a retry).
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

import run_path  # noqa: E402

NOT_ON_THE_HONEST_PATH = {
    "loop/circles.py",
    "loop/context.py",
    "loop/ending.py",
    "model/failures.py",
    "model/framing.py",
    "model/quirks.py",
    "model/retry.py",
    "model/streaming.py",
    "tools/isolation.py",
    "tools/_argument_errors.py",
    "tools/_platforms.py",
}


def test_one_honest_run_enters_no_module_of_the_rare_paths():
    modules, keys = run_path.measure()  # asserts the run completed
    entered = {run_path.module_name(path) for path in modules}
    assert {"loop/agent.py", "model/request.py", "tools/registry.py", "tools/sales.py"} <= entered
    assert entered & NOT_ON_THE_HONEST_PATH == set()
    assert keys == {"loop.system_prompt"}, "an honest run looks up no message but its prompt"
