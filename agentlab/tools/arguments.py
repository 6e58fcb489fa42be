"""A call's arguments: JSON text in, a dict that fits the tool's JSON schema out.

:func:`read_arguments` parses the model's text and checks it with the tool's
schema (compiled by ``fastjsonschema`` when the ``Tool`` was made). What is
wrong becomes one sentence naming the argument (``_argument_errors.py``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import fastjsonschema

from ..i18n import tr
from . import _argument_errors as why
from .result import MAX_NESTING, too_deep


def read_arguments(
    name: str, arguments_json: str | None, check: Callable[[Any], Any]
) -> dict | str:
    """Tool ``name``'s arguments as a dict that passed ``check``, or a message saying
    what is wrong with them."""
    if not isinstance(arguments_json, str | None):  # a person calling tools.call by hand
        return tr("registry.arguments_not_text", type=type(arguments_json).__name__)
    try:  # some providers send "" for a tool without parameters
        arguments = json.loads(arguments_json) if (arguments_json or "").strip() else {}
    except (ValueError, RecursionError) as exc:
        return why.not_json(arguments_json, exc)
    if not isinstance(arguments, dict):
        return tr("registry.not_an_object", type=why.json_type(arguments))
    nests = arguments_json and arguments_json.count("{") + arguments_json.count("[") > MAX_NESTING
    if nests and too_deep(arguments):  # the check and json.dumps follow nesting on the stack
        return why.too_deep()
    try:
        check(arguments)
    except fastjsonschema.JsonSchemaValueException as refused:
        return f"{name}: {why.refused(refused, arguments)}"
    return arguments
