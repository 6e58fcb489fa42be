"""Named mistakes: plausible wrong answers, made from the reference answer by a small change.

A :class:`Mistake` is what a student really gets wrong, written in the exercise's
``units/<id>.toml`` as the change that turns the reference into it::

    [[mistakes]]
    label = "cap checked after the request (one request too many)"
    edits = [["range(max_steps)", "range(max_steps + 1)"]]
    says = "发出了 4 次模型请求（多了 1 次）"

- for code, ``edits`` of the reference's source, ``[old, new]`` pairs: each ``old``
  text must be in the source, and every place it occurs is replaced, in the order
  given. The edited source runs in a copy of the reference module's namespace, so
  it sees the same imports;
- for a prediction (the reference is a dict), the ``fields`` it gets wrong:
  ``fields = { status = "failed" }`` (a key of digits names an int key).

``says`` is a piece of the Chinese feedback the check must give that answer:
``agentlab exercises verify`` judges every mistake and holds the check to it.

This module knows nothing about checks or any particular exercise.
"""

from __future__ import annotations

import inspect
import sys
import textwrap
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Mistake:
    """``label`` (what is wrong, in English, for maintainers), the ``change`` that
    makes it from the reference, and a piece of the Chinese feedback it ``says``."""

    label: str
    change: dict[Any, Any]
    says: str

    @classmethod
    def read(cls, entry: dict[str, Any]) -> Mistake:
        """A mistake from its table in a unit file."""
        if "fields" in entry:
            fields = entry["fields"].items()
            change = {int(k) if k.isdigit() else k: v for k, v in fields}
        else:
            change = dict(entry["edits"])
        return cls(entry["label"], change, entry["says"])

    def answer(self, reference: Any) -> Any:
        """The wrong answer: ``reference`` with this mistake made."""
        if isinstance(reference, dict):
            return {**reference, **self.change}
        return edited(reference, self.change)


def edited(reference: Any, edits: dict[str, str]) -> Any:
    """The function or class ``reference``, rebuilt from its source with ``edits``
    (``{old: new}``) made; ``ValueError`` when an ``old`` text is not in it."""
    source = textwrap.dedent(inspect.getsource(reference))
    for old, new in edits.items():
        if old not in source:
            raise ValueError(f"{reference.__qualname__} has no {old!r} to change")
        source = source.replace(old, new)
    namespace = dict(vars(sys.modules[reference.__module__]))
    exec(compile(source, f"<{reference.__qualname__}, edited>", "exec"), namespace)
    return namespace[reference.__name__]
