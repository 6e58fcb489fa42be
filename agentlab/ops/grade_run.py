"""Run one submitted notebook afresh, in a kernel of its own, within bounds.

:func:`run_notebook` executes every cell with nbclient in a new kernel
process, in a temporary folder (working folder, ``HOME``, temporary files)
that holds only a copy of the notebook and is deleted afterwards. The kernel
gets a few harmless variables (:data:`KEPT_VARIABLES`), no key or token, and
``AGENTLAB_OFFLINE=1``. Errors in cells do not stop the run; three things do,
each a status with the cell it stopped at: ``timeout`` (the whole notebook has
:data:`TIME_LIMIT_S` seconds), ``output_too_large`` (past
:data:`MAX_OUTPUT_CHARS`), ``kernel_died`` (``os._exit``, a crash, out of
memory: on Linux its address space is capped at :data:`MAX_MEMORY_BYTES`).

It does not read the outputs (:mod:`.grade_marks` does), and it is no
security sandbox: the kernel runs as the user who grades.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat import NotebookNode

TIME_LIMIT_S = 300  # a whole chapter takes 10 to 90 s on a busy 2-core machine
MAX_OUTPUT_CHARS = 20_000_000  # the chapters' own outputs are under 400 000
MAX_MEMORY_BYTES = 4 * 2**30  # a chapter's kernel uses about 250 MB

# Passed on to the kernel; everything else (API keys, tokens, proxies) is not.
KEPT_VARIABLES = ("PATH", "PYTHONPATH", "LANG", "LANGUAGE", "TZ", "AGENTLAB_LANG")
KEPT_ON_WINDOWS = ("SYSTEMROOT", "WINDIR", "COMSPEC", "PATHEXT")  # Python needs them there


@dataclass(frozen=True)
class Stopped:
    """Why a run ended before the last cell, and at which cell (its index)."""

    status: str  # timeout | output_too_large | kernel_died | kernel_not_started
    cell: int | None
    error: str = ""


class BoundedClient(NotebookClient):
    """nbclient's client with the notebook's time and output bounded, and a way to stop it."""

    def __init__(self, nb: NotebookNode, time_limit_s: float, max_output_chars: int) -> None:
        super().__init__(
            nb,
            kernel_name="python3",  # whatever kernel the student's notebook names
            allow_errors=True,
            shutdown_kernel="immediate",
            record_timing=False,
            startup_timeout=int(time_limit_s),
            timeout_func=self.time_left,
            on_cell_start=self.cell_starts,
            on_notebook_start=self.kernel_started,
        )
        self.deadline = time.monotonic() + time_limit_s
        self.max_output_chars = max_output_chars
        self.output_chars = 0
        self.cell: int | None = None  # the index of the cell running now
        self.too_much_output = False

    def time_left(self, cell: NotebookNode) -> int:
        return max(1, int(self.deadline - time.monotonic() + 0.999))  # 0 would mean "no limit"

    def cell_starts(self, cell: NotebookNode, cell_index: int) -> None:
        if self.too_much_output:  # the cell before printed too much: it is the one named
            raise DeadKernelError("stopped: too much output")
        self.cell = cell_index
        if time.monotonic() >= self.deadline:
            raise CellTimeoutError("the notebook's time is up")

    def kernel_started(self, notebook: NotebookNode) -> None:
        pid = getattr(self.km.provisioner, "pid", None)
        if pid and sys.platform == "linux":  # elsewhere the kernel's memory is not capped
            import resource

            resource.prlimit(pid, resource.RLIMIT_AS, (MAX_MEMORY_BYTES, MAX_MEMORY_BYTES))

    def output(self, outs: list, msg: dict[str, Any], display_id: Any, cell_index: int) -> Any:
        self.output_chars += len(json.dumps(msg["content"], ensure_ascii=False))
        if self.output_chars <= self.max_output_chars:
            return super().output(outs, msg, display_id, cell_index)
        self.too_much_output = True  # drop it, and end the cell as nbclient does for a dead kernel
        if self.task_poll_for_reply is not None:
            self.task_poll_for_reply.cancel()
        return None

    def kill(self) -> None:
        """Stop the kernel now, from any thread (Ctrl-C in the grader)."""
        process = getattr(getattr(self.km, "provisioner", None), "process", None)
        if process is not None:
            process.kill()


def kernel_env(workdir: Path) -> dict[str, str]:
    """The kernel's whole environment: a few harmless variables, everything else in ``workdir``."""
    kept = KEPT_VARIABLES + (KEPT_ON_WINDOWS if os.name == "nt" else ())
    env = {name: os.environ[name] for name in kept if name in os.environ}
    env.update({name: value for name, value in os.environ.items() if name.startswith("LC_")})
    temp = workdir / "tmp"
    temp.mkdir(exist_ok=True)
    env.update(
        HOME=str(workdir),
        USERPROFILE=str(workdir),
        TMPDIR=str(temp),
        TEMP=str(temp),
        TMP=str(temp),
        AGENTLAB_OFFLINE="1",
        AGENTLAB_RUNS_DIR=str(workdir / "runs"),
        PYTHONHASHSEED="0",
        MPLCONFIGDIR=matplotlib_cache(),  # the font cache is built once, not per notebook
    )
    return env


def matplotlib_cache() -> str:
    import matplotlib

    return matplotlib.get_cachedir()


def run_notebook(
    nb: NotebookNode,
    name: str,
    *,
    time_limit_s: float = TIME_LIMIT_S,
    max_output_chars: int = MAX_OUTPUT_CHARS,
    running: dict[str, BoundedClient] | None = None,
) -> Stopped | None:
    """Execute ``nb`` in place; ``None`` if every cell ran.

    Every output the notebook came with is removed first, so a cell the run
    did not reach shows nothing. ``name`` (the submission's path) names the
    copy in the temporary folder; while it runs, the client is in
    ``running[name]`` (to kill it on Ctrl-C).
    """
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    workdir = Path(tempfile.mkdtemp(prefix="agentlab-grade-"))
    client = BoundedClient(nb, time_limit_s, max_output_chars)
    if running is not None:
        running[name] = client
    try:
        (workdir / Path(name).name).write_text(nbformat.writes(nb), encoding="utf-8")
        # The kernel's own stdout and stderr (its log, os.write(2, ...)) are not the grader's.
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        asyncio.run(client.async_execute(cwd=str(workdir), env=kernel_env(workdir), **quiet))
        return None
    except CellTimeoutError:
        return Stopped("timeout", client.cell)
    except DeadKernelError:
        status = "output_too_large" if client.too_much_output else "kernel_died"
        return Stopped(status, client.cell)
    except (RuntimeError, TimeoutError) as exc:  # the kernel never answered
        if client.cell is None:
            return Stopped("kernel_not_started", None, f"{type(exc).__name__}: {exc}")
        raise
    finally:
        # nbclient's clean-up at exit, left registered when the kernel never started
        atexit.unregister(client._cleanup_kernel)
        if running is not None:
            running.pop(name, None)
        shutil.rmtree(workdir, ignore_errors=True)
