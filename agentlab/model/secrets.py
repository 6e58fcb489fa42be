"""Keeping the API key out of everything a run keeps.

A model or a proxy may echo the key back, in a reply or an error; a tool may
read it from a settings file. The loop builds one :class:`Secret` per run
from its client and applies it where text enters the run: each reply of the
model, each tool result, and the text shown while a reply streams in. So the
history, the answer, the records and the trace never hold the key; the
model sees ``***`` where a tool read it.

Only real keys count (:data:`SECRET_MIN_CHARS`): the scripted clients'
placeholders are shorter. Of a real key, any :data:`SECRET_PIECE_CHARS`
characters in a row are blanked too, in any case, also where a server echoed
it escaped for JSON or a URL: a prefix or an upper-cased echo leaves nothing
usable. This module finds and blanks; it does not decide what to log.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import Any
from urllib.parse import quote

SECRET_MIN_CHARS = 16
"""A key at least this long is a real secret; real providers' keys are 30 or more."""
SECRET_PIECE_CHARS = 12
"""Any this many characters of a real key in a row are blanked."""
MASK = "***"


def is_secret(key: object) -> bool:
    """Is ``key`` long enough to be a real key (:data:`SECRET_MIN_CHARS`)?"""
    return isinstance(key, str) and len(key) >= SECRET_MIN_CHARS


@functools.lru_cache(maxsize=8)  # one per key: built once, whatever asks for it
def _matchers(secret: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Two patterns: runs of the key's characters long enough to hold a piece of
    it (quick to find, and rare in ordinary text), and the key's spellings (for a
    real key, every piece of them) looked for inside such a run, in any case."""
    escaped = json.dumps(secret)[1:-1]
    spellings = {secret, escaped, escaped.replace("/", "\\/"), quote(secret, safe="")}
    pieces = spellings
    if is_secret(secret):
        n = SECRET_PIECE_CHARS
        pieces = {s[i : i + n] for s in spellings for i in range(len(s) - n + 1)}
    characters = "".join(re.escape(c) for c in sorted(set("".join(spellings))))
    runs = re.compile(f"[{characters}]{{{min(map(len, pieces))},}}", re.IGNORECASE)
    # A lookahead, so that overlapping pieces are all found (key_runs joins them).
    alternatives = "|".join(re.escape(p) for p in sorted(pieces, key=len, reverse=True))
    return runs, re.compile(f"(?=({alternatives}))", re.IGNORECASE)


def key_runs(text: str, secret: str | None) -> list[tuple[int, int]]:
    """Where ``text`` holds ``secret``: the ``(start, end)`` of each run of it.

    A key shorter than 8 characters is never looked for; one shorter than a
    real key only where it appears whole (pieces of ``scripted-no-key`` would
    blank ordinary words).
    """
    if not secret or len(secret) < 8:
        return []
    candidates, spellings = _matchers(secret)
    runs: list[tuple[int, int]] = []
    for candidate in candidates.finditer(text):
        for match in spellings.finditer(text, candidate.start(), candidate.end()):
            start, end = match.start(), match.start() + len(match.group(1))
            if runs and start <= runs[-1][1]:
                runs[-1] = (runs[-1][0], max(runs[-1][1], end))
            else:
                runs.append((start, end))
    return runs


def without_secret(text: str, secret: str | None, mask: str = MASK) -> str:
    """``text`` with every run of ``secret`` replaced by ``mask``."""
    runs = key_runs(text, secret)
    if not runs:  # the usual case: nothing to blank
        return text
    kept, cut = [], 0
    for start, end in runs:
        kept += [text[cut:start], mask]
        cut = end
    return "".join(kept) + text[cut:]


def without_secret_in(value: Any, secret: str | None, mask: str = MASK) -> Any:
    """``value`` with ``secret`` blanked out of every string in it (:func:`strings_changed`)."""
    return strings_changed(value, lambda text: without_secret(text, secret, mask))


def strings_changed(value: Any, change: Callable[[str], str]) -> Any:
    """``value`` with ``change`` applied to every string in it: walks dicts (their
    keys too), lists, tuples and dataclasses. What ``change`` leaves alone comes
    back as the very same object (so the caller can tell)."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, list | tuple):
        items = [strings_changed(v, change) for v in value]
        if all(new is old for new, old in zip(items, value, strict=True)):
            return value
        return value._make(items) if hasattr(value, "_make") else type(value)(items)
    if isinstance(value, dict):
        pairs = [(strings_changed(k, change), strings_changed(v, change)) for k, v in value.items()]
        kept = zip(pairs, value.items(), strict=True)
        if all(k is old_k and v is old_v for (k, v), (old_k, old_v) in kept):
            return value
        return dict(pairs)
    if is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: getattr(value, f.name) for f in fields(value) if f.init}
        changed = strings_changed(changes, change)
        return value if changed is changes else replace(value, **changed)
    return value


def _strings(value: Any) -> list[str]:
    """Every string in ``value``, walked as :func:`strings_changed` walks it."""
    found, todo = [], [value]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, list | tuple):
            todo += item
        elif isinstance(item, dict):
            todo += item.keys()
            todo += item.values()
        elif is_dataclass(item) and not isinstance(item, type):
            todo += (getattr(item, f.name) for f in fields(item))
    return found


@dataclass
class Secret:
    """The key of one run's client, and the cleaning of what enters the run.

    The key is read from the client; one given as a function is known only
    once the SDK has asked it (at the first request), so it is read again
    until a real one is there.
    """

    client: Any = field(repr=False)
    key: str | None = field(default=None, repr=False)

    def _known(self) -> str | None:
        if self.key is None:
            key = getattr(self.client, "api_key", None)
            self.key = key if is_secret(key) else None
        return self.key

    def cleaned(self, value: Any, as_json: str | None = None) -> Any:
        """``value`` (a reply, a tool result) without the key: the same object when
        it holds none. ``as_json``, the value as JSON text if the caller has it,
        saves looking at its strings one by one."""
        key = self._known()
        if key is None:
            return value
        text = as_json if as_json is not None else "\0".join(_strings(value))
        return without_secret_in(value, key) if key_runs(text, key) else value

    def shown(self, show: Callable[[str], None]) -> ShownWithoutKey:
        """``show`` for streamed text, holding back what may be the start of the key."""
        return ShownWithoutKey(show, self._known())


@dataclass
class ShownWithoutKey:
    """Shows streamed text as it arrives, cleaned of ``secret`` (a real API key).

    A delta may end in the first characters of the key, too few to recognise,
    so the last :data:`SECRET_PIECE_CHARS` characters wait for the next delta:
    a piece of the key that starts before them is then long enough to
    recognise, and is blanked. The wait moves back to the start of a piece
    still arriving. :meth:`flush` shows what is left. Without a key, text is
    shown as it comes.
    """

    show: Callable[[str], None]
    secret: str | None = field(repr=False)
    pending: str = field(default="", repr=False)

    def __call__(self, text: str) -> None:
        if self.secret is None:
            self.show(text)
            return
        self.pending += text
        cut = len(self.pending) - SECRET_PIECE_CHARS
        for start, end in key_runs(self.pending, self.secret):
            if start < cut < end:  # never show part of a piece: wait for all of it
                cut = start
        if cut > 0:
            self.show(without_secret(self.pending[:cut], self.secret))
            self.pending = self.pending[cut:]

    def flush(self) -> None:
        if self.pending:
            self.show(without_secret(self.pending, self.secret))
            self.pending = ""
