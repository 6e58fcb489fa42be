"""The run trace: one JSON line per phase, written as it happens.

Every run (unless told ``trace_dir=False``) gets a folder
``<trace_dir>/<task_id>/`` holding ``trace.jsonl`` and, when a tool output
had to be truncated, the full output under ``outputs/``. Each event is
flushed as soon as it is written, so a run that stops for any reason, even
one abandoning hung work, leaves a complete trace behind.

``trace_dir`` defaults to ``$AGENTLAB_RUNS_DIR`` or ``./runs`` (ignored by
git). The trace holds what the model and tools said, never the API key.
"""

from __future__ import annotations

import json
import os
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Made once; anything that is not JSON (a path, an exception) is written as text.
EVENT_JSON = json.JSONEncoder(ensure_ascii=False, default=str)


def default_trace_dir() -> Path:
    return Path(os.environ.get("AGENTLAB_RUNS_DIR") or "runs")


@dataclass
class Trace:
    """Appends events to ``folder/trace.jsonl``; a disabled trace writes nothing.

    ``listener``, if given, also receives every event as it happens (the CLI's
    live demo prints them).
    """

    folder: Path | None
    listener: Callable[[dict[str, Any]], None] | None = None
    _file: str | None = field(init=False, repr=False, default=None)
    _fd: int | None = field(init=False, repr=False, default=None)
    _closer: weakref.finalize | None = field(init=False, repr=False, default=None)

    @classmethod
    def open(
        cls,
        trace_dir: str | Path | bool | None,
        task_id: str,
        listener: Callable[[dict[str, Any]], None] | None = None,
    ) -> Trace:
        if trace_dir is False:
            return cls(None, listener)
        root = default_trace_dir() if trace_dir in (None, True) else Path(trace_dir)
        folder = root / task_id
        folder.mkdir(parents=True, exist_ok=True)
        trace = cls(folder, listener)
        # Kept open for the run (a rerun starts afresh: O_TRUNC). It is closed
        # when the run finishes, or when the trace is garbage-collected if a
        # run never gets that far.
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND
        trace._fd = os.open(trace._file, flags, 0o644)
        trace._closer = weakref.finalize(trace, os.close, trace._fd)
        return trace

    def __post_init__(self) -> None:
        self._file = None if self.folder is None else str(self.folder / "trace.jsonl")

    @property
    def path(self) -> str | None:
        return self._file

    def event(self, **fields: Any) -> None:
        if self.listener is not None:
            self.listener(fields)
        if self._file is None:
            return
        line = (EVENT_JSON.encode(fields) + "\n").encode("utf-8")
        if self._fd is not None:
            os.write(self._fd, line)  # unbuffered: on disk the moment it happens
        else:  # closed (or never opened by Trace.open): append once
            with open(self._file, "ab") as handle:
                handle.write(line)

    def close(self) -> None:
        """Stop holding the file open; later events are still appended."""
        if self._closer is not None:
            self._closer()
        self._fd = None

    def save_output(self, name: str, result: dict[str, Any]) -> str | None:
        """Keep a full tool output beside the trace; return its path."""
        if self.folder is None:
            return None
        outputs = self.folder / "outputs"
        outputs.mkdir(exist_ok=True)
        path = outputs / f"{name}.json"
        path.write_text(json.dumps(result, ensure_ascii=False, indent=1), encoding="utf-8")
        return str(path)


def read_trace(path: str | Path) -> list[dict[str, Any]]:
    """The events of a trace file, in order."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]
