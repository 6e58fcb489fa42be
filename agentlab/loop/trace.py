"""The run trace: one JSON line per event, written as it happens.

Every run keeps its events in memory (``RunResult.events``) and, unless told
``trace_dir=False``, also appends them to ``<trace_dir>/<task_id>/trace.jsonl``.
When a tool output had to be truncated, the full output is saved beside it
under ``outputs/``. Each line is written out at once, so a run that stops for
any reason, even one abandoning hung work, leaves a complete trace behind.

Every event has ``event`` (``start``, ``phase``, ``warning``, ``wrap_up``, ``stop``) and
``t``, the seconds since the run started. ``trace_dir`` defaults to
``$AGENTLAB_RUNS_DIR`` or ``./runs`` (ignored by git).

A trace folder that cannot be written (read-only, disk full) does not stop
the run: the trace is switched off and the run carries a warning saying so.
A listener (``on_event``) that raises is dropped the same way.
The trace holds what the model and tools said, never the API key.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ..i18n import described, reason, tr

# Made once (json.dumps with options builds a new encoder per call). default=str:
# anything that is not JSON (a path) is written as text.
EVENT_JSON = json.JSONEncoder(ensure_ascii=False, default=str)


@dataclass
class Trace:
    """The events of one run, in memory and (when ``folder`` is set) on disk.

    ``listener``, if given, also receives every event as it happens (the CLI's
    live demo prints them).
    """

    folder: Path | None
    started: float
    """``time.monotonic()`` when the run started: each event's ``t`` counts from it."""
    listener: Callable[[dict[str, Any]], None] | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    failure: str | None = None
    """Why the trace stopped being written to disk, if it did."""
    listener_failure: str | None = None
    """Why ``listener`` stopped receiving events, if it raised."""
    _file: IO[str] | None = field(default=None, repr=False)

    @classmethod
    def open(
        cls,
        trace_dir: str | Path | bool | None,
        task_id: str,
        started: float,
        listener: Callable[[dict[str, Any]], None] | None = None,
    ) -> Trace:
        """The trace of run ``task_id``: on disk unless ``trace_dir`` is ``False``."""
        if trace_dir is False:
            return cls(None, started, listener)
        if trace_dir in (None, True):
            trace_dir = os.environ.get("AGENTLAB_RUNS_DIR") or "runs"
        trace = cls(Path(trace_dir) / task_id, started, listener)
        try:
            trace.folder.mkdir(parents=True, exist_ok=True)
            # A rerun of the same task_id starts afresh: no full outputs of the run before.
            shutil.rmtree(trace.folder / "outputs", ignore_errors=True)
            # Line-buffered: each event is on disk as soon as it is written. A lone
            # surrogate (a model may send "\ud83d") is written as that JSON escape.
            trace._file = open(
                trace.folder / "trace.jsonl",
                "w",
                encoding="utf-8",
                errors="backslashreplace",
                buffering=1,
            )
        except OSError as exc:
            trace._give_up(exc)
        return trace

    @property
    def path(self) -> str | None:
        """The trace file, or None when there is none (switched off, or unwritable)."""
        if self.folder is None or self.failure is not None:
            return None
        return str(self.folder / "trace.jsonl")

    def event(self, event: str, **fields: Any) -> None:
        """Record one event (``t`` is added)."""
        record = {"event": event, "t": round(time.monotonic() - self.started, 4), **fields}
        self.events.append(record)
        if self.listener is not None:
            try:
                self.listener(record)
            except (Exception, SystemExit, GeneratorExit) as exc:  # dropped; the run goes on
                self.listener = None
                self.listener_failure = tr("trace.listener_failed", error=described(exc))
        if self._file is not None:
            try:
                self._file.write(EVENT_JSON.encode(record) + "\n")
            except OSError as exc:
                self._give_up(exc)

    def save_output(self, name: str, result: dict[str, Any]) -> str | None:
        """Keep a full tool output beside the trace; return its path (None if not kept)."""
        if self._file is None:
            return None
        try:
            outputs = self.folder / "outputs"
            outputs.mkdir(exist_ok=True)
            path = outputs / f"{name}.json"
            text = json.dumps(result, ensure_ascii=False, indent=1)
            path.write_text(text, encoding="utf-8", errors="backslashreplace")
        except OSError as exc:
            self._give_up(exc)
            return None
        return str(path)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def _give_up(self, exc: OSError) -> None:
        """Stop writing to disk; the run goes on and says why in a warning."""
        if self._file is not None:
            try:
                self._file.close()
            except OSError:
                pass
        self._file = None
        self.failure = tr("trace.write_failed", folder=str(self.folder), error=reason(exc))


def read_trace(path: str | Path | None) -> list[dict[str, Any]]:
    """The events of a trace file, in order.

    ``None`` (the ``trace_path`` of a run without a trace file) and a line that
    is not JSON are a ``ValueError`` saying so; a missing file is Python's own
    ``FileNotFoundError``.
    """
    if path is None:
        raise ValueError(tr("trace.none"))
    events = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            events.append(json.loads(line))
        # ValueError: not JSON, or an integer too long to convert; RecursionError: "[[[…"
        except (ValueError, RecursionError) as exc:
            raise ValueError(tr("trace.bad_line", path=str(path), line=number)) from exc
    return events
