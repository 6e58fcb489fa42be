"""Why a call's arguments were refused, in one sentence that names the argument.

``fastjsonschema`` stops at the first rule the arguments break and says which
(``JsonSchemaValueException.rule``: ``type``, ``required``, ``enum``,
``minimum``, ``additionalProperties``, ``anyOf`` ...), where (``path``) and
what it saw (``value``): :func:`refused` says it with the catalog's words,
e.g. ``times：应为 integer，实际是 string``. Also here: arguments that are not
JSON at all (:func:`not_json`).
"""

from __future__ import annotations

import json
from typing import Any

import fastjsonschema

from ..i18n import json_reason, tr
from .result import MAX_NESTING


def not_json(text: str, exc: ValueError | RecursionError) -> str:
    if isinstance(exc, RecursionError):  # "[[[[…" nested deeper than Python can follow
        return too_deep()
    if not isinstance(exc, json.JSONDecodeError):  # an integer with too many digits
        return tr("registry.bad_number", error=exc)
    shown = text if len(text) <= 200 else text[:200] + "..."
    return tr("registry.bad_json", reason=json_reason(exc), position=exc.pos, shown=shown)


def too_deep() -> str:
    return tr("registry.too_deep", limit=MAX_NESTING)


def refused(exc: fastjsonschema.JsonSchemaValueException, arguments: dict[str, Any]) -> str:
    """The broken rule as a sentence, prefixed with where it is (``opts：n：...``)."""
    where = _where(exc.path[1:], arguments)  # path[0] is "data", the arguments themselves
    problem = _problem(exc.rule, exc.rule_definition, exc.value, exc.definition or {})
    for name in reversed(where):
        if isinstance(name, int):
            problem = tr("registry.item", index=name, problem=problem)
        else:
            problem = tr("registry.field", name=name, problem=problem)
    return problem


def _where(path: list[str], arguments: dict[str, Any]) -> list[str | int]:
    """``path`` with list positions as numbers: ``["tags", 1]``, the second tag."""
    where: list[str | int] = []
    value: Any = arguments
    for part in path:
        if isinstance(value, list) and part.isdigit():
            where.append(int(part))
            value = value[int(part)] if int(part) < len(value) else None
        else:
            where.append(part)
            value = value.get(part) if isinstance(value, dict) else None
    return where


def _problem(rule: str | None, limit: Any, value: Any, schema: dict[str, Any]) -> str:
    if rule == "type":
        expected = " | ".join(limit if isinstance(limit, list) else [limit])
        return tr("registry.wrong_type", expected=expected, actual=json_type(value))
    if rule == "anyOf":  # (oneOf may also fail by fitting two branches: said as a rule)
        return _no_branch_fits(limit, value)
    if rule == "required":
        missing = [name for name in limit if name not in value]
        return tr("registry.missing_required", names=", ".join(missing))
    if rule == "additionalProperties":
        allowed = list(schema.get("properties") or {})
        extra = sorted(set(value) - set(allowed))
        shown = ", ".join(allowed) or tr("registry.none")
        return tr("registry.unexpected", names=", ".join(extra), allowed=shown)
    if rule == "enum":
        return tr("registry.not_in_enum", allowed=limit, value=repr(value))
    if rule == "const":
        return tr("registry.not_const", expected=repr(limit), value=repr(value))
    if rule in BOUNDS:
        return tr(BOUNDS[rule], limit=limit, value=value)
    if rule in SIZES:
        key, counted = SIZES[rule]
        return tr(key, limit=limit, **{counted: len(value)})
    if rule == "pattern":
        return tr("registry.no_match", pattern=limit)
    return tr("registry.breaks_rule", rule=rule)


BOUNDS = {
    "minimum": "registry.too_small",
    "maximum": "registry.too_large",
    "exclusiveMinimum": "registry.not_above",
    "exclusiveMaximum": "registry.not_below",
}
SIZES = {
    "minLength": ("registry.too_short", "length"),
    "maxLength": ("registry.too_long", "length"),
    "minItems": ("registry.too_few_items", "count"),
    "maxItems": ("registry.too_many_items", "count"),
}


def _no_branch_fits(branches: list[dict[str, Any]], value: Any) -> str:
    """``anyOf``: pydantic writes ``Optional[X]`` as ``[X, {"type": "null"}]``.

    Branches that only name types say so (``应为 integer | null``); when one
    branch other than null is left, its own first complaint is the clearer one.
    """
    if all(set(branch) <= {"type", "title", "description"} for branch in branches):
        names = [branch["type"] for branch in branches if "type" in branch]
        expected = " | ".join(n for t in names for n in (t if isinstance(t, list) else [t]))
        return tr("registry.wrong_type", expected=expected, actual=json_type(value))
    others = [branch for branch in branches if branch.get("type") != "null"]
    if len(others) == 1 and value is not None:
        try:
            fastjsonschema.compile(others[0], use_default=False, use_formats=False)(value)
        except fastjsonschema.JsonSchemaValueException as exc:
            return refused(exc, value)
        except fastjsonschema.JsonSchemaDefinitionException:  # it needs the rest (a $ref)
            pass
    return tr("registry.breaks_rule", rule="anyOf")


def json_type(value: Any) -> str:
    """The JSON name of a value's type: ``True`` is a boolean, ``1.0`` an integer."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"  # JSON does not tell 1 from 1.0
    names = {float: "number", str: "string", list: "array", dict: "object"}
    return names.get(type(value), type(value).__name__)
