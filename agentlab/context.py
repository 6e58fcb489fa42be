"""Keeping the model's context small: truncating big outputs, folding old steps.

The longer a loop runs, the more tool output piles up in the history, and a
model buried in 30 steps of logs starts to forget its first instructions.

- **Truncation** (:func:`fit_result`): a tool result whose JSON is longer
  than ``max_chars`` is cut down before the model sees it. Its longest text
  keeps the head, the tail and the *key lines* (errors, failures,
  tracebacks), with a marker saying how much was removed and where the full
  output was saved. The result stays valid JSON.
- **Folding** (:func:`fold_history`): tool messages of finished steps older
  than the last ``keep_steps`` are replaced by one-line conclusions
  (``read_text(meeting.md) -> ok``). Their full content stays in the run's
  ``tool_results`` and trace.

Both change only what the model is sent; nothing here decides to stop.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

KEY_LINE = re.compile(r"error|fail|exception|traceback|fatal|错误|失败|异常", re.IGNORECASE)
MARKER = "…[truncated: removed {removed} of {total} characters, kept {keys} key line(s); {where}]"


# Made once (json.dumps with options builds a new encoder on every call).
RESULT_JSON = json.JSONEncoder(ensure_ascii=False)


def serialised(result: dict[str, Any]) -> str:
    return RESULT_JSON.encode(result)


def fit_result(
    result: dict[str, Any], max_chars: int | None, saved_to: str | None = None
) -> tuple[dict[str, Any], int]:
    """``result`` made to fit ``max_chars`` of JSON, and how many characters went."""
    total = len(serialised(result))
    if max_chars is None or total <= max_chars:
        return result, 0
    where = f"full output saved to {saved_to}" if saved_to else "full output not saved"
    fitted = copy.deepcopy(result)
    for _ in range(8):  # shrink the longest text until it fits (a few rounds at most)
        excess = len(serialised(fitted)) - max_chars
        if excess <= 0:
            break
        path, text = _longest_string(fitted)
        if path is None or len(text) <= 200:
            break
        target = max(100, len(text) - excess - len(MARKER) - 60)
        _set(fitted, path, shrink_text(text, target, where))
    removed = total - len(serialised(fitted))
    return fitted, max(removed, 0)


def shrink_text(text: str, limit: int, where: str = "") -> str:
    """Head + key lines + tail of ``text`` in about ``limit`` characters, with a marker."""
    if len(text) <= limit:
        return text
    lines = text.splitlines(keepends=True)
    if len(lines) < 3:  # one long line: cut by characters
        half = limit // 2
        marker = MARKER.format(removed=len(text) - 2 * half, total=len(text), keys=0, where=where)
        return text[:half] + "\n" + marker + "\n" + text[-half:]
    head, tail, keys = [], [], []
    budget_each = limit * 2 // 5
    used = 0
    for line in lines:  # head
        if used + len(line) > budget_each:
            break
        head.append(line)
        used += len(line)
    used = 0
    for line in reversed(lines[len(head) :]):  # tail
        if used + len(line) > budget_each:
            break
        tail.insert(0, line)
        used += len(line)
    middle = lines[len(head) : len(lines) - len(tail)]
    used = 0
    for line in middle:  # key lines from the part that would be lost
        if KEY_LINE.search(line) and used + len(line) <= limit - 2 * budget_each:
            keys.append(line)
            used += len(line)
    kept = "".join(head) + "".join(keys) + "".join(tail)
    marker = MARKER.format(
        removed=len(text) - len(kept), total=len(text), keys=len(keys), where=where
    )
    return "".join(head) + "".join(keys) + marker + "\n" + "".join(tail)


def _longest_string(value: Any, path: tuple = ()) -> tuple[tuple | None, str]:
    best: tuple[tuple | None, str] = (None, "")
    if isinstance(value, str):
        return path, value
    if isinstance(value, dict):
        children = list(value.items())
    elif isinstance(value, list):
        children = list(enumerate(value))
    else:
        return best
    for key, child in children:
        found = _longest_string(child, (*path, key))
        if found[0] is not None and len(found[1]) > len(best[1]):
            best = found
    return best


def _set(container: Any, path: tuple, value: str) -> None:
    for key in path[:-1]:
        container = container[key]
    container[path[-1]] = value


def conclusion(record: dict[str, Any]) -> str:
    """One line that says what a finished tool call did."""
    args = record.get("normalized_args") or record.get("arguments") or ""
    head = f"{record['tool']}({args})"
    if record["status"] == "ok":
        data = record["result"].get("data")
        size = len(serialised(data)) if data is not None else 0
        return f"[folded] {head} -> ok ({size} characters of data, kept in the trace)"
    error = record["result"].get("error") or {}
    return f"[folded] {head} -> error {error.get('code')}: {error.get('message', '')[:80]}"


def fold_history(
    messages: list[dict[str, Any]],
    records: list[dict[str, Any]],
    current_step: int,
    keep_steps: int,
) -> int:
    """Replace tool messages older than ``keep_steps`` steps by conclusions; return how many."""
    by_call = {r["call_id"]: r for r in records}
    folded = 0
    for message in messages:
        record = by_call.get(message.get("tool_call_id")) if message.get("role") == "tool" else None
        if record is None or current_step - record["step"] < keep_steps:
            continue
        if not str(message["content"]).startswith("[folded]"):
            message["content"] = conclusion(record)
            folded += 1
    return folded
