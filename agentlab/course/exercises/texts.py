"""The exercises' texts: instructions, hints and feedback (the ``exercise.*`` keys).

They live beside the exercises, in ``locale/zh.toml`` and ``locale/en.toml``,
read by the same loader as the core catalog (:class:`agentlab.i18n.Catalog`,
which documents the format). :func:`tr` looks an ``exercise.*`` key up there
and any other key in the core catalog, so an exercise module needs one ``tr``.
"""

from __future__ import annotations

from pathlib import Path

from ... import i18n

TEXTS = i18n.Catalog(Path(__file__).parent / "locale")


def tr(key: str, /, **fields: object) -> str:
    """The message ``key`` in the current language, with ``fields`` filled in."""
    catalog = TEXTS if key.startswith("exercise.") else i18n.CATALOG
    return catalog.tr(key, **fields)
