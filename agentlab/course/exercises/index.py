"""Every exercise of the course, in chapter order (the order ``list`` prints)."""

from __future__ import annotations

from . import ch01, ch02, ch03, ch04, ch05
from .core import Exercise

EXERCISES: list[Exercise] = [
    *ch01.EXERCISES,
    *ch02.EXERCISES,
    *ch03.EXERCISES,
    *ch04.EXERCISES,
    *ch05.EXERCISES,
]
