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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


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
        (folder / "trace.jsonl").write_text("", encoding="utf-8")  # a rerun starts afresh
        return cls(folder, listener)

    @property
    def path(self) -> str | None:
        return None if self.folder is None else str(self.folder / "trace.jsonl")

    def event(self, **fields: Any) -> None:
        if self.listener is not None:
            self.listener(fields)
        if self.folder is None:
            return
        line = json.dumps(fields, ensure_ascii=False, default=str)
        with open(self.folder / "trace.jsonl", "a", encoding="utf-8") as handle:
            handle.write(line + "\n")
            handle.flush()

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
