"""The course's one colour palette: outcomes, phases and statuses.

Colours come from the Okabe–Ito palette, which readers with the common forms
of colour blindness can tell apart. Colour is never the only signal: every
outcome also has a matplotlib ``marker``, a ``hatch`` and a text ``symbol``,
and every badge also says its code in words. ``INK`` gives the text colour
readable on each colour (WCAG contrast of at least 4.5 : 1).

Values only (and :func:`outcome_label`): no matplotlib, no pandas, so the HTML
display can use it without loading them.
"""

from __future__ import annotations

from ..i18n import tr

# Okabe & Ito (2008), "Color Universal Design".
BLUISH_GREEN = "#009E73"
ORANGE = "#E69F00"
VERMILLION = "#D55E00"
REDDISH_PURPLE = "#CC79A7"
BLUE = "#0072B2"
SKY_BLUE = "#56B4E9"
YELLOW = "#F0E442"
GREY = "#999999"
BLACK = "#000000"
WHITE = "#FFFFFF"

# Per outcome: its colour, a matplotlib marker and hatch (the shape tells what the
# colour tells), and the marker's shape as a character, for text and HTML.
OUTCOME_STYLES = {
    "completed": (BLUISH_GREEN, "o", "", "●"),
    "tool_error": (ORANGE, "^", "//", "▲"),
    "budget_exhausted": (VERMILLION, "s", "xx", "■"),
    "model_error": (REDDISH_PURPLE, "D", "..", "◆"),
    "invalid_task": (GREY, "X", "--", "✕"),
}
OUTCOME_COLORS = {outcome: style[0] for outcome, style in OUTCOME_STYLES.items()}
OUTCOME_MARKERS = {outcome: style[1] for outcome, style in OUTCOME_STYLES.items()}
OUTCOME_HATCHES = {outcome: style[2] for outcome, style in OUTCOME_STYLES.items()}
OUTCOME_SYMBOLS = {outcome: style[3] for outcome, style in OUTCOME_STYLES.items()}

PHASE_COLORS = {"decide": BLUE, "tool": ORANGE, "complete": REDDISH_PURPLE}
PHASE_HATCHES = {"decide": "", "tool": "//", "complete": ".."}

# Run status (completed/failed), tool status (ok/error), and what a guard or
# the completion check decided about a call or an answer.
STATUS_STYLES = {  # colour and symbol
    "completed": (BLUISH_GREEN, "✓"),
    "failed": (VERMILLION, "✗"),
    "ok": (BLUISH_GREEN, "✓"),
    "error": (VERMILLION, "✗"),
    "refused": (REDDISH_PURPLE, "⊘"),
    "not_run": (GREY, "–"),
    "done": (BLUISH_GREEN, "✓"),
    "not_done": (ORANGE, "…"),
    "timeout": (VERMILLION, "◷"),
}
STATUS_COLORS = {status: style[0] for status, style in STATUS_STYLES.items()}
STATUS_SYMBOLS = {status: style[1] for status, style in STATUS_STYLES.items()}

NEUTRAL = "#5B6770"  # stop reasons and other codes that are not good or bad in themselves

INK = {
    BLUISH_GREEN: BLACK,
    ORANGE: BLACK,
    VERMILLION: BLACK,
    REDDISH_PURPLE: BLACK,
    BLUE: WHITE,
    SKY_BLUE: BLACK,
    YELLOW: BLACK,
    GREY: BLACK,
    NEUTRAL: WHITE,
}


def ink(color: str) -> str:
    """The text colour readable on ``color`` (black unless the colour is dark)."""
    return INK.get(color, BLACK)


def outcome_label(outcome: str) -> str:
    """``completed 正常完成``: the code and what it means, for legends."""
    return tr("term.code_and_meaning", code=outcome, meaning=tr("term." + outcome))
