"""Keeping the model's context small: truncating big outputs, folding old steps.

The longer a loop runs, the more tool output piles up in the history, and a
model buried in 30 steps of logs starts to forget its first instructions.

- **Truncation** (:func:`fit_result`): a tool result whose JSON is longer
  than ``max_chars`` is cut down before the model sees it, whatever its
  shape. Long texts keep their head, their tail and their *key lines*
  (errors, failures, tracebacks); long lists keep their first items and say
  how many were left out; objects with many or big fields share the room
  fairly; very deep nesting is summarised. The result stays valid JSON, uses
  the room it is given, and carries a ``"truncated"`` note saying how long
  the full output was and where it was saved; a cut text says in its own
  marker how many characters it lost.
- **Folding** (:func:`fold_history`): tool messages of finished steps older
  than the last ``keep_steps`` are replaced by one-line conclusions
  (``[folded] read_text({"rel_path":"meeting.md"}) -> ok (…)``). Their full
  content stays in the run's ``tool_results`` and trace.

Both change only what the model is sent; nothing here decides to stop.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..i18n import tr
from ..tools.registry import RESULT_JSON

if TYPE_CHECKING:  # result.py imports this module: the type is for readers and checkers only
    from .result import ToolRecord

KEY_LINE = re.compile(r"error|fail|exception|traceback|fatal|错误|失败|异常", re.IGNORECASE)
MIN_OUTPUT_CHARS = 200  # below this not even a status and a note fit
MAX_DEPTH = 6  # from this depth on, a value too big for its room is summarised, not cut


def dumps(value: Any) -> str:
    """JSON as the model receives it (UTF-8 text, not ``\\u`` escapes)."""
    return RESULT_JSON.encode(value)


def fit_result(
    result: dict[str, Any], max_chars: int, saved_as: str | None = None
) -> tuple[str, int]:
    """``result`` as JSON text of at most ``max_chars`` characters, and how many went.

    Example: the ``huge_output`` fault tool's result (``faults.py``: 52,630
    characters of JSON around a 51,064-character build log) with
    ``max_chars=3000`` comes back as 2,989 characters (49,641 went): the
    log's first and last lines, its two ERROR lines and a marker in the text
    (``…[truncated: removed 48450 of 51064 characters, kept 2 key line(s)]``),
    plus ``"truncated"`` saying the output was 52,630 characters long and
    where it was saved.
    """
    full = dumps(result)
    if len(full) <= max_chars:
        return full, 0
    where = tr("context.saved_as", path=saved_as) if saved_as else tr("context.not_saved")
    note = tr("context.note", total=len(full), where=where)
    room = max_chars - len(dumps({"truncated": note}))  # what the note leaves for the rest
    for _ in range(10):  # fitting is estimated; tighten until it holds
        fitted = {**_fit_dict(result, max(room, 2), 0), "truncated": note}
        text = dumps(fitted)
        if len(text) <= max_chars:
            return text, len(full) - len(text)
        room -= len(text) - max_chars
    text = dumps({"status": result.get("status"), "truncated": note[: max_chars // 2]})
    return text, len(full) - len(text)


def _fit(value: Any, room: int, depth: int) -> Any:
    """``value`` shrunk so that its JSON takes about ``room`` characters at most."""
    size = len(dumps(value))
    if size <= room:
        return value
    if depth >= MAX_DEPTH or room < 24:
        return _summary(value, room)
    if isinstance(value, str):
        return _fit_text(value, room)
    if isinstance(value, list):
        return _fit_list(value, room, depth)
    if isinstance(value, dict):
        return _fit_dict(value, room, depth)
    return value  # a number, true/false or null is always small


def _fit_list(items: list[Any], room: int, depth: int) -> list[Any]:
    """The first items that fit (the last one cut to the room left), then a count."""
    kept: list[Any] = []
    used = 2  # the brackets
    reserve = len(dumps(tr("context.more_items", count=len(items)))) + 2
    for item in items:
        left = room - used - reserve
        size = len(dumps(item)) + 2  # ", " between items
        if size <= left:
            kept.append(item)
            used += size
            continue
        if left >= 40:  # enough room for a useful piece of this item
            kept.append(_fit(item, left - 2, depth + 1))
        break
    if len(kept) < len(items):
        kept.append(tr("context.more_items", count=len(items) - len(kept)))
    return kept


def _fit_dict(fields: dict[str, Any], room: int, depth: int) -> dict[str, Any]:
    """Fields share the room: small ones are kept whole, big ones split the rest.

    When there are too many fields for each to get a useful share, fields are
    kept in order while they fit (a big one cut to the room left) and the
    count of the others is given under ``"…"``.
    """
    sizes = {key: len(dumps(value)) for key, value in fields.items()}
    overhead = {key: len(dumps(key)) + 4 for key in fields}  # "key": , and spaces
    share = _fair_share(list(sizes.values()), room - 2 - sum(overhead.values()))
    if share >= min(24, max(sizes.values(), default=0)):
        return {
            key: _fit(value, min(sizes[key], share), depth + 1) for key, value in fields.items()
        }
    kept: dict[str, Any] = {}
    left = room - 2 - len(dumps({"…": tr("context.more_keys", count=len(fields))}))
    for key, value in fields.items():
        if overhead[key] + sizes[key] <= left:
            kept[key] = value
        elif left - overhead[key] >= 40:  # room for a useful piece of this one
            kept[key] = _fit(value, left - overhead[key], depth + 1)
        else:
            continue
        left -= overhead[key] + len(dumps(kept[key]))
    if len(kept) < len(fields):
        kept["…"] = tr("context.more_keys", count=len(fields) - len(kept))
    return kept


def _fair_share(sizes: list[int], room: int) -> int:
    """The largest cap c with sum(min(size, c)) <= room ("water filling").

    Example: sizes [10, 50, 500] and room 200 -> 140 (10 + 50 + 140 = 200):
    the small fields stay whole and the big one gets the rest. Returns 0 if
    there is no room at all.
    """
    if room <= 0:
        return 0
    low, high = 0, max(sizes, default=0)
    while low < high:
        middle = (low + high + 1) // 2
        if sum(min(size, middle) for size in sizes) <= room:
            low = middle
        else:
            high = middle - 1
    return low


def _fit_text(text: str, room: int) -> str:
    """Head + key lines + tail of ``text``, its JSON at most ``room`` characters."""
    limit = room - 2  # the quotes
    for _ in range(10):
        shrunk = shrink_text(text, max(limit, 8))
        encoded = len(dumps(shrunk))
        if encoded <= room:
            return shrunk
        # escapes (\n, \", \\) made it longer than counted: shrink in proportion
        limit = min(limit - 1, len(shrunk) * room // encoded)
    return text[: max(room // 4, 1)]


def shrink_text(text: str, limit: int) -> str:
    """Head + key lines + tail of ``text`` in about ``limit`` characters, with a marker.

    Whole lines are taken from the start and the end in turn with two thirds
    of the room; key lines (errors, failures, tracebacks) from the middle
    come next; whatever room is left goes to more lines at both ends.
    """
    if len(text) <= limit:
        return text
    marker_room = len(tr("context.marker", removed=len(text), total=len(text), keys=99)) + 2
    budget = max(limit - marker_room, 8)
    lines = text.splitlines(keepends=True)
    if len(lines) < 3:  # one long line: cut by characters
        half = budget // 2
        marker = tr("context.marker", removed=len(text) - 2 * half, total=len(text), keys=0)
        return text[:half] + "\n" + marker + "\n" + text[len(text) - half :]
    head, tail, left = _take_ends(lines, 0, len(lines), budget * 2 // 3, set())
    left += budget - budget * 2 // 3
    keys: set[int] = set()
    for number in range(head, tail):
        if KEY_LINE.search(lines[number]) and len(lines[number]) <= left:
            keys.add(number)
            left -= len(lines[number])
    head, tail, left = _take_ends(lines, head, tail, left, keys)
    middle = [lines[n] for n in sorted(keys) if head <= n < tail]
    start, end = "".join(lines[:head]), "".join(lines[tail:])
    removed = len(text) - len(start) - len(end) - sum(map(len, middle))
    marker = tr("context.marker", removed=removed, total=len(text), keys=len(middle))
    return start + "".join(middle) + marker + "\n" + end


def _take_ends(
    lines: list[str], head: int, tail: int, room: int, already: set[int]
) -> tuple[int, int, int]:
    """Keep more whole lines from the start and the end, in turn, while they fit.

    ``lines[:head]`` and ``lines[tail:]`` are kept already; lines in
    ``already`` cost nothing (they are kept as key lines). Returns the new
    ``head``, ``tail`` and the room left.
    """
    while head < tail:
        grew = False
        for from_start in (True, False):
            if head >= tail:
                break
            number = head if from_start else tail - 1
            cost = 0 if number in already else len(lines[number])
            if cost <= room:
                room -= cost
                head, tail = (head + 1, tail) if from_start else (head, tail - 1)
                grew = True
        if not grew:
            break
    return head, tail, room


def _summary(value: Any, room: int) -> str:
    """A short description of a value that does not fit at all."""
    if isinstance(value, dict):
        text = tr("context.object", count=len(value))
    elif isinstance(value, list):
        text = tr("context.list", count=len(value))
    else:
        text = tr("context.text", count=len(str(value)))
    return text[: max(room - 2, 1)]


def conclusion(record: ToolRecord) -> str:
    """One line that says what a finished tool call did."""
    head = f"{record['tool']}({record['normalized_args']})"
    if record["status"] == "ok":
        data = record["result"].get("data")
        size = len(dumps(data)) if data is not None else 0
        return tr("context.folded_ok", call=head, size=size)
    error = record["result"].get("error") or {}
    message = (error.get("message") or "")[:80]
    return tr("context.folded_error", call=head, code=error.get("code"), message=message)


def fold_history(
    messages: list[dict[str, Any]],
    records: list[ToolRecord],
    current_step: int,
    keep_steps: int,
) -> None:
    """Replace tool messages older than ``keep_steps`` steps by their conclusions."""
    by_call = {r["call_id"]: r for r in records}
    for message in messages:
        record = by_call.get(message.get("tool_call_id")) if message.get("role") == "tool" else None
        if record is not None and current_step - record["step"] >= keep_steps:
            message["content"] = conclusion(record)
