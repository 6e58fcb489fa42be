"""The exercises' texts: instructions, hints and feedback (the ``exercise.*`` keys).

Each exercise's own texts (its title, prompt, hint and feedback) live in its
unit, ``units/<id>.toml``, under ``[zh]`` and ``[en]``: ``exercise.01-loop.title``
is ``title`` there. The texts several exercises share (the verdict lines, the loop
exercises' scenarios, chapter 05's cases) live in ``locale/zh.toml`` and
``locale/en.toml``. Both follow the format of the core catalog
(:class:`agentlab.i18n.Catalog`, which documents it). :func:`tr` looks an
``exercise.*`` key up in them and any other key in the core catalog, so an exercise
module needs one ``tr``.
"""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path
from typing import Any

from ... import i18n

HERE = Path(__file__).parent


class UnitTexts(i18n.Catalog):
    """The ``[zh]`` and ``[en]`` tables of every unit in ``folder``, as one catalog."""

    def messages(self, lang: str) -> dict[str, i18n.Message]:
        return _unit_messages(self.folder, lang)


@functools.cache
def _unit_messages(folder: Path, lang: str) -> dict[str, i18n.Message]:
    found: dict[str, i18n.Message] = {}
    for path in sorted(folder.glob("*.toml")):
        table = tomllib.loads(path.read_text(encoding="utf-8")).get(lang, {})
        found |= _flatten(table, f"exercise.{path.stem}.")
    return found


def _flatten(table: dict[str, Any], prefix: str) -> dict[str, i18n.Message]:
    """Dotted keys, as the core catalog's loader makes them (``other``: a plural table)."""
    flat: dict[str, i18n.Message] = {}
    for name, value in table.items():
        if isinstance(value, dict) and "other" not in value:
            flat |= _flatten(value, f"{prefix}{name}.")
        else:
            flat[prefix + name] = value
    return flat


TEXTS = i18n.Catalog(HERE / "locale")
UNITS = UnitTexts(HERE / "units")


def tr(key: str, /, **fields: object) -> str:
    """The message ``key`` in the current language, with ``fields`` filled in."""
    if not key.startswith("exercise."):
        return i18n.CATALOG.tr(key, **fields)
    return (UNITS if key in UNITS else TEXTS).tr(key, **fields)
