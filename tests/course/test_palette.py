"""The course's one palette (``agentlab.course.palette``): every outcome, phase and status has
a colour, the shape tells what the colour tells, text stays readable on every colour, and
the module loads neither matplotlib nor pandas."""

from __future__ import annotations

import ast
from pathlib import Path

from agentlab import OUTCOMES
from agentlab.course import palette


def contrast(a: str, b: str) -> float:
    def luminance(colour: str) -> float:
        rgb = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_one_palette_for_every_outcome_phase_and_status():
    for table in (palette.OUTCOME_COLORS, palette.OUTCOME_MARKERS, palette.OUTCOME_HATCHES):
        assert set(table) == set(OUTCOMES)
    assert len(set(palette.OUTCOME_COLORS.values())) == len(OUTCOMES)
    assert len(set(palette.OUTCOME_MARKERS.values())) == len(OUTCOMES)  # shape tells too
    assert len(set(palette.OUTCOME_SYMBOLS.values())) == len(OUTCOMES)
    assert set(palette.PHASE_COLORS) == {"decide", "tool", "complete"} == set(palette.PHASE_HATCHES)
    colours = [
        *palette.OUTCOME_COLORS.values(),
        *palette.PHASE_COLORS.values(),
        *palette.STATUS_COLORS.values(),
        palette.NEUTRAL,
    ]
    assert [c for c in colours if contrast(c, palette.ink(c)) < 4.5] == []
    source = Path(palette.__file__).read_text(encoding="utf-8")
    imports = [
        n for n in ast.walk(ast.parse(source)) if isinstance(n, (ast.Import, ast.ImportFrom))
    ]
    assert [getattr(n, "module", None) for n in imports] == ["__future__", "i18n"]  # no matplotlib
