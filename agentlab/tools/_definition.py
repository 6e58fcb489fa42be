"""Checking a ``Tool`` when it is made, so a mistake is named where it was written.

A name a model service would refuse (HTTP 400), something that is not a
function, a timeout that is not a positive number, or a schema that is not a
JSON Schema the argument check can read: each raises at once with a sentence
saying which, rather than failing later in the middle of a run. The schema is
made into the function that checks each call's arguments here, once.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from typing import Any

import fastjsonschema

from ..i18n import tr

# What chat-completions services accept as a function name (a Chinese name or a
# space is HTTP 400 there, though a scripted model would take it).
TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def check_definition(name: Any, function: Callable[..., Any], timeout: Any, schema: Any) -> None:
    """Raise ``ValueError`` or ``TypeError`` naming what is wrong with a tool's parts."""
    if not isinstance(name, str) or not TOOL_NAME.fullmatch(name):
        raise ValueError(tr("registry.bad_tool_name", name=name))
    if not callable(function):
        raise TypeError(tr("registry.not_callable", name=name, type=type(function).__name__))
    number = isinstance(timeout, int | float) and not isinstance(timeout, bool)
    if timeout is not None and not (number and timeout > 0):
        raise ValueError(tr("isolation.bad_timeout", name=name, timeout=timeout))
    if not isinstance(schema, dict):
        got = tr("registry.schema_placeholder") if schema is Ellipsis else type(schema).__name__
        raise TypeError(tr("registry.schema_not_dict", name=name, got=got))


def schema_check(name: str, schema: dict[str, Any]) -> Callable[[Any], Any]:
    """Tool ``name``'s schema made into a function that raises
    ``fastjsonschema.JsonSchemaValueException`` for arguments it refuses.

    Arguments are checked, not changed (no defaults filled in); ``format`` is
    read as a description, as JSON Schema 2020-12 reads it. A schema the check
    cannot read raises ``ValueError`` saying why.
    """
    try:
        return _compiled(json.dumps(schema, ensure_ascii=False))
    except Exception as exc:  # the reason: an unknown type, a bad pattern, a newer keyword
        raise ValueError(tr("registry.bad_schema", name=name, problem=exc)) from None


# Compiling takes about half a millisecond; a sweep makes the same tools for
# every run, so each schema (as its JSON text) is compiled once.
@functools.lru_cache(maxsize=256)
def _compiled(schema_json: str) -> Callable[[Any], Any]:
    schema = json.loads(schema_json)
    refuse_unchecked_keywords(schema)
    return fastjsonschema.compile(schema, use_default=False, use_formats=False)


# Keywords of JSON Schema 2019-09 and 2020-12 that draft 7 (what fastjsonschema
# checks) does not know: it would skip them without a word. Refused instead.
NEWER_KEYWORDS = frozenset(
    {
        "prefixItems", "unevaluatedItems", "unevaluatedProperties", "dependentRequired",
        "dependentSchemas", "minContains", "maxContains", "$dynamicRef", "$recursiveRef",
    }
)  # fmt: skip
NAME_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions"})
VALUES = frozenset({"enum", "const", "default", "examples"})  # data, not schemas


def refuse_unchecked_keywords(schema: Any, where: str = "") -> None:
    """Raise ``ValueError`` naming the first keyword the check would skip (``n.prefixItems``)."""
    if isinstance(schema, list):
        for item in schema:
            refuse_unchecked_keywords(item, where)
    if not isinstance(schema, dict):
        return
    for key, value in schema.items():
        if key in NEWER_KEYWORDS:
            raise ValueError(f"{where}{key}")
        if key in NAME_MAPS and isinstance(value, dict):
            for name, inner in value.items():
                refuse_unchecked_keywords(inner, f"{where}{name}.")
        elif key not in VALUES:
            refuse_unchecked_keywords(value, where)
