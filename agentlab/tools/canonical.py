"""One spelling for a call's arguments, so the repeat guard knows the same call however written.

``{ "relative_path": "./sales.csv" }`` and ``{"relative_path":"sales.csv"}``
ask for the same thing: keys sorted, no spaces, paths normalised.
"""

from __future__ import annotations

import json
import posixpath
from typing import Any

KEY_JSON = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def call_key(name: str, arguments_json: str | None) -> str:
    """Tool name and canonical arguments: calls with the same key are the same call.

    Example: ``call_key("analyze_csv", '{"relative_path": "./sales.csv"}')`` ->
    ``'analyze_csv:{"relative_path":"sales.csv"}'``.
    """
    return f"{name}:{canonical_arguments(arguments_json)}"


def canonical_arguments(arguments_json: str | None) -> str:
    """The arguments spelled one way; text that is not JSON is kept as sent (stripped)."""
    try:
        parsed = json.loads(arguments_json) if arguments_json and arguments_json.strip() else {}
        return KEY_JSON.encode(_normalise_paths(parsed))
    except (ValueError, RecursionError):  # not JSON, a huge number, or nested too deep
        return (arguments_json or "").strip()


def _normalise_paths(value: Any, key: str = "") -> Any:
    """``./a.csv`` and ``a.csv`` are one path: normalise values of keys ending in "path"."""
    if isinstance(value, dict):
        return {k: _normalise_paths(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalise_paths(v) for v in value]
    if isinstance(value, str) and key.endswith("path") and value.strip():
        return posixpath.normpath(value.strip())
    return value
