"""A run at a glance, as HTML: for Jupyter (``run_html``) and for a trace file (``trace_html``).

A ``RunResult`` and a run trace are first turned into the same
:class:`~agentlab.course.run_view.RunView`. This module works out what the page
shows from it (badges, counts, timeline bars, tool results laid out as JSON,
the table of events); the Jinja2 templates in ``templates/`` lay that out.
Codes (``stop_reason``, ``outcome``, error ``code``) are shown as they are,
with their meaning in words (:func:`agentlab.i18n.tr`) and a colour from
:mod:`agentlab.course.palette`.

Deliberately:

- no JavaScript: folding uses ``<details>``, so the page reads the same offline;
- every style sits under the ``al-run`` class, so nothing restyles JupyterLab;
- no ids, no wall-clock timestamps: the same run gives the same HTML. Time
  spent is written only as ``≈12ms`` labels and ``--x:`` / ``--w:``
  percentages, forms the notebooks' nbval sanitizer masks;
- autoescape: every text from a model, a tool or a file is escaped; only the
  course's own stylesheet is marked safe.

This module draws; it runs nothing and reads no file but its templates.
"""

from __future__ import annotations

import functools
import json
import math
import re
from importlib.resources import files
from typing import Any

import jinja2
import jinja2.ext
from markupsafe import Markup

from ..i18n import CATALOG, language, tr
from ..tools.isolation import kill_signal_name
from . import palette
from .run_view import CallView, RunView, parse_json, view_of_events, view_of_result

FOLD_CHARS = 300  # tool results longer than this fold away behind <details>
FOLD_TEXT_CHARS = 1200  # model text and prompts fold only when really long
# What truncation left in a text ("…[已截断：…]"); captured, so re.split keeps it.
TRUNCATION_MARK = re.compile(r"(…\[[^\]\n]*\])")


def run_html(result: Any) -> str:
    """The HTML fragment showing ``result`` (a ``RunResult``), for Jupyter."""
    return environment().get_template("run.html").render(page(view_of_result(result)))


def trace_html(events: list[dict[str, Any]], title: str | None = None) -> str:
    """A whole self-contained HTML page for a run trace (the events of one run):
    no script, no link, nothing fetched."""
    view = view_of_events(events)
    heading = tr("display.viewer_title", name=title or view.task_id or "trace")
    return environment().get_template("page.html").render(page(view, heading, events))


def page(
    view: RunView, heading: str | None = None, events: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """What the templates draw: the view, and what is worked out from it here."""
    return {
        "view": view,
        "heading": heading or tr("display.title"),
        "lang": "zh-CN" if language() == "zh" else "en",
        "css": stylesheet(),
        "badges": badges(view),
        "counts": counts(view),
        "timeline": timeline(view),
        "events": None if events is None else event_rows(events),
    }


# -- what the page shows, worked out ------------------------------------------------------

# Catalog keys kept in tables (not built from strings), so every key is written
# out somewhere in the source.
COUNT_LABELS = {
    "steps": "display.count.steps",
    "model_requests": "display.count.model_requests",
    "tool_calls": "display.count.tool_calls",
    "calls_not_run": "display.count.calls_not_run",
    "tool_errors": "display.count.tool_errors",
    "tokens": "display.count.tokens",
}
GUARD_NOTES = {
    "REPEATED_CALL": "display.guard.REPEATED_CALL",
    "TOO_MANY_CALLS": "display.guard.TOO_MANY_CALLS",
    "NOT_RUN": "display.guard.NOT_RUN",
}


def meaning(code: str | None) -> str:
    """What a code means, in words: what a guard or a check decided
    (``display.status.<code>``), else what the course's glossary says
    (``term.<code>``); empty for a code the catalog does not know."""
    for key in (f"display.status.{code}", f"term.{code}"):
        if key in CATALOG:
            return tr(key)
    return ""


def ms(seconds: Any) -> str:
    """Elapsed time in the one form the nbval sanitizer masks: ``≈83ms``."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        return ""
    return f"≈{seconds * 1000:.0f}ms" if math.isfinite(seconds) else ""


def colours(color: str) -> str:
    """The CSS variables of a badge or pill: its colour and the ink readable on it."""
    return f"--c:{color};--ink:{palette.ink(color)}"


def badges(view: RunView) -> list[dict[str, Any]]:
    """The header badges, each a code with its colour, symbol and meaning.

    Only the outcome, the headline, is ``filled``; the others are outlined."""
    shown = [
        ("status", "display.field.status", palette.STATUS_COLORS, palette.STATUS_SYMBOLS),
        ("outcome", "display.field.outcome", palette.OUTCOME_COLORS, palette.OUTCOME_SYMBOLS),
        ("stop_reason", "display.field.stop_reason", {}, {}),
        ("phase", "display.field.phase", palette.PHASE_COLORS, {}),
    ]
    out = []
    for field, key, colors, symbols in shown:
        code = getattr(view, field)
        if code:
            # stop reasons are neither good nor bad in themselves
            neutral = palette.NEUTRAL if field == "stop_reason" else palette.GREY
            out.append(
                {
                    "field": field,
                    "label": tr(key),
                    "code": code,
                    "colours": colours(colors.get(code, neutral)),
                    "symbol": symbols.get(code, ""),
                    "meaning": meaning(code),
                    "filled": field == "outcome",
                }
            )
    return out


def counts(view: RunView) -> list[tuple[str, Any, str]]:
    """(key, figure, label) for each count the run has, then the time it took."""
    out = [(k, v, tr(COUNT_LABELS[k])) for k, v in view.counts.items() if v is not None]
    if view.elapsed_s is not None:
        out.append(("elapsed", ms(view.elapsed_s), tr("display.count.elapsed")))
    return out


def timeline(view: RunView) -> dict[str, Any] | None:
    """One row per step, a bar per phase on the run's time axis (in percent of it),
    the deadline as a line where it is near. ``None`` when no phase was recorded."""
    if not view.spans:
        return None
    end = max([view.end_s or 0.0] + [s.start + s.duration for s in view.spans])
    deadline = view.max_seconds
    # The deadline goes on the axis only when it is near: a deadline of
    # minutes would squash a run of milliseconds into a sliver.
    on_axis = bool(deadline) and deadline <= 4 * end
    total = (max(end, deadline) if on_axis else end) or 1.0
    rows: dict[int, list[dict[str, str]]] = {}
    for span in view.spans:
        x = min(span.start / total, 1.0) * 100
        w = min(span.duration / total * 100, 100 - x)
        words = f"{meaning(span.phase) or span.phase} · {span.status} · {ms(span.duration)}"
        bar = {"phase": span.phase, "status": span.status, "x": f"{x:.1f}", "w": f"{w:.1f}"}
        rows.setdefault(span.step, []).append(bar | {"title": words})
    key = "display.deadline" if on_axis else "display.deadline_far"
    return {
        "rows": sorted(rows.items()),
        "deadline_x": f"{deadline / total * 100:.1f}" if on_axis else None,
        "deadline": tr(key, seconds=deadline) if deadline else None,
        "total": ms(total),
    }


def arguments_shown(arguments: str | None) -> tuple[str | None, bool]:
    """The arguments a model sent, laid out as JSON: (text, whether it was not JSON).

    ``None`` for no arguments at all; text that is not JSON is shown as it was sent."""
    text = "" if arguments is None else str(arguments)
    parsed = parse_json(text) if text.strip() else {}
    if parsed == {}:
        return None, False
    if parsed is None and text.strip() != "null":
        return text, True
    return pretty(parsed), False


def result_shown(call: CallView) -> dict[str, Any] | None:
    """What the tool sent back, as the model received it.

    Of the usual structured result only the data part (status and error are
    shown above the result), what truncation told the model (``note``) and the
    sources; ``None`` when that leaves nothing to show (an error result)."""
    content = str(call.content)
    parsed = parse_json(content)
    if not (isinstance(parsed, dict) and {"status", "data", "error"} <= parsed.keys()):
        return {"content": content, "preview": None, "note": None, "source": None}
    note = parsed.get("truncated") if isinstance(parsed.get("truncated"), str) else None
    if parsed["data"] is None and note is None:
        return None
    source = parsed.get("source")
    return {
        "content": pretty(parsed["data"]),
        "preview": dumps(parsed["data"]),
        "note": note,
        "source": ", ".join(map(str, source)) if isinstance(source, list) and source else None,
    }


def first_line(text: str) -> str:
    """What a folded text shows before it is opened."""
    return text.strip().splitlines()[0] if text.strip() else ""


def pretty(value: Any, indent: int = 0) -> str:
    """JSON, indented, except that a multi-line string is written out line by line."""
    pad = " " * (indent + 2)
    flat = dumps(value)
    if len(flat) <= 72 and "\\n" not in flat:
        return flat
    if isinstance(value, str) and "\n" in value.strip("\n"):
        return "|\n" + "\n".join(pad + line for line in value.rstrip("\n").split("\n"))
    if isinstance(value, dict) and value:
        items = [f"{pad}{dumps(k)}: {pretty(v, indent + 2)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    if isinstance(value, list) and value:
        items = [pad + pretty(v, indent + 2) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
    return flat


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


EVENT_DETAILS = (
    "tool", "args", "error_code", "error_class", "message", "reason", "calls", "tokens",
    "truncated_chars", "refused_by", "stop_reason", "outcome", "task",
)  # fmt: skip


def event_rows(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every event as a row: time since the start (+ time spent), kind, step, status, the rest."""
    rows = []
    for event in events:
        if not isinstance(event, dict):
            continue
        kind = str(event.get("event"))
        if kind == "phase":
            kind += f":{event.get('phase')}"
        when, spent = ms(event.get("t")), event.get("elapsed_s")
        if isinstance(spent, (int, float)) and event.get("event") == "phase":
            when += f" +{ms(spent)}"
        details = []
        for key in EVENT_DETAILS:
            value = event.get(key)
            if value not in (None, "", []):
                text = value if isinstance(value, str) else dumps(value)
                if key == "calls" and isinstance(value, list):  # name(arguments), as asked
                    text = ", ".join(
                        f"{c.get('name')}({c.get('arguments') or ''})"
                        if isinstance(c, dict)
                        else str(c)
                        for c in value
                    )
                details.append((key, text[:200]))
        step, status = event.get("step", ""), event.get("status", "")
        rows.append(
            {"kind": kind, "when": when, "step": step, "status": status, "details": details}
        )
    return rows


# -- the templates ------------------------------------------------------------------------


class OneLine(jinja2.ext.Extension):
    """Templates are laid out over many lines for people; the HTML they give is one
    line. Each line break in a template, with the indentation after it, is dropped
    before the template is compiled (a space that is shown is written inside a
    line). Only the template's own text: what a run shows keeps its lines."""

    def preprocess(self, source: str, name: str | None, filename: str | None = None) -> str:
        return re.sub(r"\n\s*", "", source)


@functools.cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("agentlab.course", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,  # a misspelt name fails the tests, not the page
        finalize=lambda value: "" if value is None else value,
        extensions=[OneLine],
    )
    env.globals.update(
        tr=tr,
        meaning=meaning,
        ms=ms,
        colours=colours,
        arguments_shown=arguments_shown,
        result_shown=result_shown,
        first_line=first_line,
        split_marks=TRUNCATION_MARK.split,
        kill_signal_name=kill_signal_name,
        palette=palette,
        GUARD_NOTES=GUARD_NOTES,
        FOLD_CHARS=FOLD_CHARS,
        FOLD_TEXT_CHARS=FOLD_TEXT_CHARS,
    )
    return env


# Phase bars: the palette's colour plus a pattern (none, stripes, dots), so
# the phases differ in more than colour.
PATTERNS = {
    "//": "repeating-linear-gradient(45deg, rgba(0,0,0,.4) 0 2px, transparent 2px 6px), ",
    "..": "radial-gradient(rgba(0,0,0,.5) 1px, transparent 1.4px) 0 0 / 4px 4px, ",
    "": "",
}


@functools.cache
def stylesheet() -> Markup:
    """``templates/run.css`` and the phase colours, as one ``<style>`` sends them.

    Sent with every fragment, so squeezed: no whitespace around punctuation. The
    class is doubled (".al-run.al-run .al-pre") because JupyterLab styles outputs
    with two classes and a tag (".jp-ThemedContainer .jp-RenderedHTMLCommon pre"):
    ours must weigh more to be the ones that apply inside a notebook."""
    css = files(__package__).joinpath("templates", "run.css").read_text(encoding="utf-8")
    css += "".join(
        f".al-run .al-ph-{phase} {{ background: {PATTERNS[palette.PHASE_HATCHES[phase]]}{color}; }}"
        for phase, color in palette.PHASE_COLORS.items()
    )
    css = re.sub(r"\s*([{};:,>])\s*", r"\1", " ".join(css.split()))
    return Markup(css.replace(".al-run ", ".al-run.al-run "))  # the course's own text, not a run's
