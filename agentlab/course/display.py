"""A run at a glance, as HTML: for Jupyter (``run_html``) and for a trace file (``trace_html``).

One renderer, two sources. A :class:`~agentlab.loop.result.RunResult` and a run
trace are first turned into the same :class:`~agentlab.course.run_view.RunView`
(see ``run_view.py``), then drawn by the same functions here, so a run and
its trace look the same.

What the page shows: badges for run status, outcome and stop reason (colour
from :mod:`agentlab.course.palette` *and* the code in words), the counts, the task;
then step by step the model's text, each tool call with its arguments and
result (status, error code, truncation, where the full output went), calls a
guard refused or never ran, completion checks and warnings where they
happened; the end of the run; a phase timeline against the deadline.

Deliberately:

- no JavaScript: folding uses ``<details>``; the page reads the same offline;
- every style sits under the ``al-run`` class, so nothing restyles JupyterLab;
- no ids, no wall-clock timestamps: the same run gives the same HTML. What
  does vary (time spent) is written only as ``≈12ms`` labels and
  ``--x:`` / ``--w:`` percentages, forms the notebooks' nbval sanitizer masks;
- every text that came from a model, a tool or a file is escaped.

Labels go through :func:`agentlab.i18n.tr` (Chinese by default); the codes
(``stop_reason``, ``outcome``, error ``code``) are shown as they are.
This module draws; it never runs anything and reads no file itself
(``run_view.events_of`` reads the trace of a result that has no ``events``).
"""

from __future__ import annotations

import html
import json
import math
import re
from typing import Any

from ..i18n import CATALOG, language, tr
from ..tools.isolation import kill_signal_name
from . import palette
from .run_view import CallView, RunView, Span, StepView, parse_json, view_of_events, view_of_result

FOLD_CHARS = 300  # tool results longer than this fold away behind <details>
FOLD_TEXT_CHARS = 1200  # model text and prompts fold only when really long
TRUNCATION_MARK = re.compile(r"…\[[^\]\n]*\]")  # what truncation left in a text: "…[已截断：…]"


# -- public entry points ------------------------------------------------------------------


def run_html(result: Any) -> str:
    """The HTML fragment showing ``result`` (a ``RunResult``), for Jupyter."""
    return render(view_of_result(result))


def trace_html(events: list[dict[str, Any]], title: str | None = None) -> str:
    """A whole self-contained HTML page for a run trace (the events of one run)."""
    view = view_of_events(events)
    name = title or view.task_id or "trace"
    body = render(view, events=events, heading=tr("display.viewer_title", name=name))
    return html_page(body, tr("display.viewer_title", name=name))


def html_page(body: str, title: str) -> str:
    """``body`` as a standalone HTML document: no script, no link, nothing fetched."""
    lang = "zh-CN" if language() == "zh" else "en"
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(title)}</title>\n<style>{PAGE_CSS}</style>\n</head>\n<body>\n"
        f'{body}\n<p class="al-page-note">{esc(tr("display.viewer_note"))}</p>\n</body>\n</html>\n'
    )


# -- drawing ----------------------------------------------------------------------------


def esc(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def ms(seconds: Any) -> str:
    """Elapsed time in the one form the nbval sanitizer masks: ``≈83ms``."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        return ""
    return f"≈{seconds * 1000:.0f}ms" if math.isfinite(seconds) else ""


# Catalog keys kept in tables (not built from strings), so every key is written
# out somewhere in the source.
FIELD_LABELS = {
    "status": "display.field.status",
    "outcome": "display.field.outcome",
    "stop_reason": "display.field.stop_reason",
    "phase": "display.field.phase",
}
COUNT_LABELS = {
    "steps": "display.count.steps",
    "model_requests": "display.count.model_requests",
    "tool_calls": "display.count.tool_calls",
    "tool_errors": "display.count.tool_errors",
    "tokens": "display.count.tokens",
}
GUARD_NOTES = {
    "REPEATED_CALL": "display.guard.REPEATED_CALL",
    "TOO_MANY_CALLS": "display.guard.TOO_MANY_CALLS",
    "NOT_RUN": "display.guard.NOT_RUN",
}
# What a guard or a check decided; every other code means what the course's
# glossary says (term.<code>).
STATUS_WORDS = {
    "refused": "display.status.refused",
    "not_run": "display.status.not_run",
    "done": "display.status.done",
    "not_done": "display.status.not_done",
    "timeout": "display.status.timeout",
}
EVENT_COLUMNS = (
    "display.col.t", "display.col.event", "display.col.step", "display.col.status",
    "display.col.detail",
)  # fmt: skip


def meaning(code: str | None) -> str:
    """What a code means, in words (empty for a code the catalog does not know)."""
    if code in STATUS_WORDS:
        return tr(STATUS_WORDS[code])
    key = f"term.{code}"
    return tr(key) if key in CATALOG else ""


# Shown only where the stylesheet is not applied (JupyterLab drops <style> from
# outputs of an untrusted notebook): the plain text then still reads "参数: {...}".
SEP = '<span class="al-sep">: </span>'


def label(key: str) -> str:
    return f'<span class="al-label">{esc(tr(key))}{SEP}</span>'


def quiet(key: str) -> str:
    return f'<span class="al-quiet">{esc(tr(key))}</span>'


def badge(name: str, code: str, color: str, symbol: str, meant: str, filled: bool) -> str:
    """A header badge: the field's name, then symbol + code + meaning in the palette colour.

    Only the outcome, the headline, is ``filled``; the others are outlined.
    """
    field_label = esc(tr(FIELD_LABELS[name]))
    style = f"--c:{color};--ink:{palette.ink(color)}"
    css = "al-badge al-filled" if filled else "al-badge"
    sym = f'<span class="al-sym" aria-hidden="true">{symbol}</span>' if symbol else ""
    return (
        f'<span class="al-kv"> <span class="al-k">{field_label}{SEP}</span>'
        f'<span class="{css}" data-field="{name}" data-code="{esc(code)}" style="{style}" '
        f'title="{field_label}: {esc(meant)}">{sym} '
        f'<span class="al-code">{esc(code)}</span> '
        f'<span class="al-mean">{esc(meant)}</span></span></span>'
    )


def pill(kind: str, text: str) -> str:
    """A small status badge (tool status, check status): symbol + words, never colour alone."""
    color = palette.STATUS_COLORS.get(kind, palette.GREY)
    symbol = palette.STATUS_SYMBOLS.get(kind, "")
    style = f"--c:{color};--ink:{palette.ink(color)}"
    return (
        f'<span class="al-pill" data-kind="{esc(kind)}" style="{style}">{symbol} {esc(text)}</span>'
    )


def folded(text: str, limit: int, css: str = "al-pre", preview: str | None = None) -> str:
    """``text`` in a <pre>, behind <details> when longer than ``limit`` characters.

    The summary line shows ``preview`` (default: the first line), cut to 80 characters.
    """
    block = f'<pre class="{css}">{mark_truncation(text)}</pre>'
    if len(text) <= limit:
        return block
    if preview is None:
        preview = text.strip().splitlines()[0] if text.strip() else ""
    preview = preview[:80] + ("…" if len(preview) > 80 else "")
    more = esc(tr("display.fold", n=len(text)))
    return (
        f'<details class="al-fold"><summary><span class="al-preview">{esc(preview)}</span> '
        f'<span class="al-more">{more}</span></summary>{block}</details>'
    )


def mark_truncation(text: str) -> str:
    """``text`` escaped, with the truncation marker the model saw highlighted."""
    out, last = [], 0
    for found in TRUNCATION_MARK.finditer(text):
        out.append(esc(text[last : found.start()]))
        out.append(f'<mark class="al-trunc-mark">{esc(found.group(0))}</mark>')
        last = found.end()
    out.append(esc(text[last:]))
    return "".join(out)


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
        return (
            "[\n"
            + ",\n".join(pad + pretty(v, indent + 2) for v in value)
            + "\n"
            + " " * indent
            + "]"
        )
    return dumps(value)


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def render(
    view: RunView, *, events: list[dict[str, Any]] | None = None, heading: str | None = None
) -> str:
    """The whole fragment: header, timeline, steps, end (and every event, when given)."""
    lang = "zh-CN" if language() == "zh" else "en"
    parts = [
        f'<div class="al-run" lang="{lang}"><style>{RUN_CSS}</style>',
        render_header(view, heading),
        render_timeline(view),
        render_conversation(view),
        render_end(view),
        render_events(events) if events is not None else "",
        "</div>",
    ]
    return "".join(parts)


def render_header(view: RunView, heading: str | None) -> str:
    title = esc(heading or tr("display.title"))
    if view.task_id and view.task_id not in title:
        title += f' <span class="al-id">{esc(view.task_id)}</span>'
    if view.model:
        title += f' <span class="al-model">{esc(tr("display.model"))} {esc(view.model)}</span>'
    out = [f'<div class="al-head"><div class="al-title">{title}</div>', render_badges(view)]
    counts = [
        f'<span class="al-count" data-count="{key}"><b>{esc(value)}</b> '
        f"{esc(tr(COUNT_LABELS[key]))}</span>"
        for key, value in view.counts.items()
        if value is not None
    ]
    if view.elapsed_s is not None:
        counts.append(
            f'<span class="al-count" data-count="elapsed"><b>{ms(view.elapsed_s)}</b> '
            f"{esc(tr('display.count.elapsed'))}</span>"
        )
    out.append(f'<div class="al-counts">{" ".join(counts)}</div>')
    if not view.finished:
        out.append(f'<div class="al-alert">{esc(tr("display.no_stop"))}</div>')
    if view.task is not None:
        task = folded(str(view.task), FOLD_TEXT_CHARS, "al-text")
        out.append(f'<div class="al-task">{label("display.task")}{task}</div>')
    if view.answer is not None:
        answer = folded(str(view.answer), FOLD_TEXT_CHARS, "al-text")
        out.append(f'<div class="al-answer">{label("display.answer")}{answer}</div>')
    elif view.finished:
        missing = tr("display.no_answer" if view.answer_recorded else "display.answer_not_recorded")
        out.append(f'<div class="al-answer al-none">{esc(missing)}</div>')
    if view.partial_answer:
        partial = folded(str(view.partial_answer), FOLD_TEXT_CHARS, "al-text")
        out.append(
            f'<div class="al-answer al-partial">{label("display.partial_answer")}{partial}</div>'
        )
    out.append("</div>")
    return "".join(out)


def render_badges(view: RunView) -> str:
    badges = []
    if view.status:
        color = palette.STATUS_COLORS.get(view.status, palette.GREY)
        symbol = palette.STATUS_SYMBOLS.get(view.status, "")
        meant = meaning(view.status)
        badges.append(badge("status", view.status, color, symbol, meant, filled=False))
    if view.outcome:
        color = palette.OUTCOME_COLORS.get(view.outcome, palette.GREY)
        symbol = palette.OUTCOME_SYMBOLS.get(view.outcome, "")
        meant = meaning(view.outcome)
        badges.append(badge("outcome", view.outcome, color, symbol, meant, filled=True))
    if view.stop_reason:
        meant = meaning(view.stop_reason)
        badges.append(badge("stop_reason", view.stop_reason, palette.NEUTRAL, "", meant, False))
    if view.phase:
        color = palette.PHASE_COLORS.get(view.phase, palette.GREY)
        meant = meaning(view.phase)
        badges.append(badge("phase", view.phase, color, "", meant, filled=False))
    return f'<div class="al-badges">{" ".join(badges)}</div>' if badges else ""


def render_timeline(view: RunView) -> str:
    """One row per step, a bar per phase on the run's time axis, the deadline as a line."""
    head = f'<div class="al-section-title">{esc(tr("display.timeline"))}</div>'
    if not view.spans:
        return f'<div class="al-timeline">{head}{quiet("display.no_timeline")}</div>'
    end = max([view.end_s or 0.0] + [s.start + s.duration for s in view.spans])
    deadline = view.max_seconds
    # The deadline goes on the axis only when it is near: a deadline of
    # minutes would squash a run of milliseconds into a sliver.
    on_axis = bool(deadline) and deadline <= 4 * end
    total = (max(end, deadline) if on_axis else end) or 1.0
    rows = []
    for step in sorted({s.step for s in view.spans}):
        bars = [timeline_bar(s, total) for s in view.spans if s.step == step]
        if on_axis:
            bars.append(f'<span class="al-dl" style="--x:{deadline / total * 100:.1f}%"></span>')
        rows.append(
            f'<div class="al-tl-label">{esc(tr("display.step", n=step))}</div>'
            f'<div class="al-track">{"".join(bars)}</div>'
        )
    legend = [
        f'<span class="al-legend-item"><span class="al-swatch al-ph-{phase}"></span>'
        f"{esc(meaning(phase))}</span>"
        for phase in palette.PHASE_COLORS
    ]
    if deadline:
        text = tr("display.deadline" if on_axis else "display.deadline_far", seconds=deadline)
        legend.append(
            f'<span class="al-legend-item"><span class="al-swatch al-dl-swatch"></span>'
            f"{esc(text)}</span>"
        )
    axis = f'<div class="al-axis"><span>0</span><span>{ms(total)}</span></div>'
    note = f'<div class="al-note">{esc(tr("display.timeline_note"))}</div>'
    return (
        f'<div class="al-timeline">{head}{note}<div class="al-tl">{"".join(rows)}'
        f'<div></div>{axis}</div><div class="al-legend">{"".join(legend)}</div></div>'
    )


def timeline_bar(span: Span, total: float) -> str:
    x = min(span.start / total, 1.0) * 100
    w = min(span.duration / total * 100, 100 - x)
    words = f"{meaning(span.phase) or span.phase} · {span.status} · {ms(span.duration)}"
    return (
        f'<span class="al-span al-ph-{esc(span.phase)}" data-phase="{esc(span.phase)}" '
        f'data-status="{esc(span.status)}" style="--x:{x:.1f}%;--w:{w:.1f}%" '
        f'title="{esc(words)}"></span>'
    )


def render_conversation(view: RunView) -> str:
    out = [
        '<div class="al-conversation">'
        f'<div class="al-section-title">{esc(tr("display.conversation"))}</div>'
    ]
    if view.system_prompt:
        prompt = folded(str(view.system_prompt), 0, "al-text")  # always folded: it is long
        out.append(f'<div class="al-system">{label("display.system_prompt")}{prompt}</div>')
    out.extend(render_step(step) for step in view.steps)
    out.append("</div>")
    return "".join(out)


def render_step(step: StepView) -> str:
    took = f' <span class="al-ms">{ms(step.elapsed_s)}</span>' if step.elapsed_s is not None else ""
    out = [
        f'<section class="al-step" data-step="{step.number}">'
        f'<div class="al-step-title">{esc(tr("display.step", n=step.number))}{took}</div>'
    ]
    if step.wrap_up:
        note = tr("display.wrap_up", reason=step.wrap_up, meaning=meaning(step.wrap_up))
        out.append(f'<div class="al-wrap-up" data-reason="{esc(step.wrap_up)}">{esc(note)}</div>')
    out.extend(render_failure(failure) for failure in step.failures)
    if step.replied:
        out.append(render_assistant(step))
    elif not step.failures:
        out.append(f'<div class="al-note">{quiet("display.no_reply")}</div>')
    out.extend(render_call(call) for call in step.calls)
    out.extend(render_check(check) for check in step.checks)
    for text in step.feedback:
        who = f'<div class="al-who">{esc(tr("display.user"))}</div>'
        out.append(
            f'<div class="al-msg al-user">{who}{folded(text, FOLD_TEXT_CHARS, "al-text")}</div>'
        )
    for warning in step.warnings:
        out.append(f'<div class="al-warn">⚠ {esc(tr("display.warning"))}: {esc(warning)}</div>')
    out.append("</section>")
    return "".join(out)


def render_failure(failure: dict[str, Any]) -> str:
    """A model request that failed or timed out (retries show up as several)."""
    attempt = failure.get("attempt") or 1
    if failure.get("status") == "timeout":
        kind, text = "timeout", tr("display.decide_timeout", attempt=attempt)
    else:
        kind = "error"
        text = tr(
            "display.decide_error",
            attempt=attempt,
            error_class=failure.get("error_class") or "?",
            message=failure.get("message") or "",
        )
    took = f' <span class="al-ms">{ms(failure.get("elapsed_s"))}</span>'
    return (
        f'<div class="al-attempt" data-status="{kind}">{pill(kind, meaning(kind))} '
        f"{esc(text)}{took}</div>"
    )


def render_check(check: dict[str, Any]) -> str:
    status = str(check.get("status"))
    reason = f" {esc(check['reason'])}" if check.get("reason") else ""
    took = f' <span class="al-ms">{ms(check.get("elapsed_s"))}</span>'
    return (
        f'<div class="al-check" data-status="{esc(status)}">{label("display.check")}'
        f"{pill(status, meaning(status) or status)}{reason}{took}</div>"
    )


def render_assistant(step: StepView) -> str:
    """The model's words (and reasoning, set apart); nothing if it only asked for tools."""
    if not step.content and not step.reasoning and step.calls:
        return ""
    out = [
        '<div class="al-msg al-assistant">',
        f'<div class="al-who">{esc(tr("display.assistant"))}</div>',
    ]
    out.append('<div class="al-body">')
    if step.reasoning:
        out.append(
            f'<details class="al-reasoning"><summary>{esc(tr("display.reasoning"))}</summary>'
            f'<pre class="al-text">{esc(step.reasoning)}</pre></details>'
        )
    if step.content:
        out.append(folded(str(step.content), FOLD_TEXT_CHARS, "al-text"))
    elif not step.calls:
        out.append(quiet("display.empty_reply"))
    out.append("</div></div>")
    return "".join(out)


def render_call(call: CallView) -> str:
    kind = call.kind
    words = meaning(kind) or kind
    head = [
        f'<span class="al-tag">{esc(tr("display.call"))}{SEP}</span>'
        f'<span class="al-tool">{esc(call.name)}</span>',
        pill(kind, f"{call.status} · {words}" if kind in ("ok", "error") else words),
    ]
    if call.code:
        head.append(f'<span class="al-errcode">{esc(call.code)}</span>')
    if call.truncated_chars:
        cut = esc(tr("display.truncated", n=call.truncated_chars))
        head.append(f'<span class="al-trunc">✂ {cut}</span>')
    if call.elapsed_s is not None:
        head.append(f'<span class="al-ms">{ms(call.elapsed_s)}</span>')
    out = [
        f'<div class="al-call" data-kind="{esc(kind)}" data-code="{esc(call.code or "")}">',
        f'<div class="al-call-head">{" ".join(head)}</div>',
    ]
    if kind in ("refused", "not_run"):
        who = tr("display.refused_by", guard=call.refused_by) if call.refused_by else ""
        out.append(f'<div class="al-guard">⊘ {esc(tr(GUARD_NOTES[call.code]))} {esc(who)}</div>')
    out.append(render_arguments(call.arguments))
    if call.message:
        message = f'<span class="al-errmsg">{esc(call.message)}</span>'
        out.append(f'<div class="al-args">{label("display.error_message")}{message}</div>')
    if call.saved_to:
        out.append(f'<div class="al-saved">{esc(tr("display.saved_to", path=call.saved_to))}</div>')
    if call.process:
        words = tr("display.process", exitcode=call.process.get("exitcode"))
        if call.process.get("killed"):
            # how it was killed where the run ran (traces before killed_by: this machine's way)
            how = call.process.get("killed_by") or kill_signal_name()
            words += " · " + tr("display.process_killed", how=how)
        out.append(f'<div class="al-proc">{esc(words)}</div>')
    out.append(render_result(call))
    out.append("</div>")
    return "".join(out)


def render_arguments(arguments: str | None) -> str:
    text = "" if arguments is None else str(arguments)
    parsed = parse_json(text) if text.strip() else {}
    if parsed == {}:
        body = quiet("display.no_arguments")
    elif parsed is None and text.strip() != "null":
        bad = f'<span class="al-errcode">{esc(tr("display.invalid_json"))}</span>'
        body = bad + folded(text, FOLD_CHARS)
    else:
        body = folded(pretty(parsed), FOLD_CHARS)
    return f'<div class="al-args">{label("display.arguments")}{body}</div>'


def render_result(call: CallView) -> str:
    """What the tool sent back, as the model received it (only the data part if it is
    the usual structured result: status and error are shown above)."""
    if call.content is None:
        body = quiet("display.no_result_content")
        return f'<div class="al-result">{label("display.result")}{body}</div>'
    content = str(call.content)
    parsed = parse_json(content)
    note, source, preview = "", "", None
    if isinstance(parsed, dict) and {"status", "data", "error"} <= parsed.keys():
        if isinstance(parsed.get("truncated"), str):  # what truncation told the model
            note = f'<div><mark class="al-trunc-mark">{esc(parsed["truncated"])}</mark></div>'
        if parsed["data"] is None and not note:
            return ""  # an error result: its code and message are shown above
        content, preview = pretty(parsed["data"]), dumps(parsed["data"])
        if isinstance(parsed.get("source"), list) and parsed["source"]:
            where = ", ".join(map(str, parsed["source"]))
            source = f'<div class="al-source">{esc(tr("display.source"))}: {esc(where)}</div>'
    body = (
        f'<div class="al-body">{note}{source}{folded(content, FOLD_CHARS, preview=preview)}</div>'
    )
    return f'<div class="al-result">{label("display.result")}{body}</div>'


def render_end(view: RunView) -> str:
    if not view.finished:
        return ""
    reason = view.stop_reason or "?"
    out = [
        f'<div class="al-end"><div class="al-section-title">{esc(tr("display.end"))}</div>'
        f'<div class="al-end-line">{esc(tr("display.stopped_at", step=view.counts.get("steps")))}'
        f"{esc(tr('display.colon'))}"
        f'<span class="al-code">{esc(reason)}</span> {esc(meaning(reason))}</div>'
    ]
    if view.phase:
        phase = meaning(view.phase) or view.phase
        out.append(
            f'<div class="al-end-line" data-phase="{esc(view.phase)}">'
            f"{esc(tr('display.deadline_phase', phase=phase))}</div>"
        )
    if view.warnings:
        items = "".join(f'<li class="al-warn">{esc(w)}</li>' for w in view.warnings)
        out.append(f'{label("display.warnings")}<ul class="al-warnings">{items}</ul>')
    out.append("</div>")
    return "".join(out)


EVENT_DETAILS = (
    "tool", "args", "error_code", "error_class", "message", "reason", "calls", "tokens",
    "truncated_chars", "refused_by", "stop_reason", "outcome", "task",
)  # fmt: skip


def render_events(events: list[dict[str, Any]]) -> str:
    """Every event in a table: time since the start (+ time spent), kind, step, status, the rest."""
    head = "".join(f"<th>{esc(tr(key))}</th>" for key in EVENT_COLUMNS)
    rows = []
    for event in events:
        if not isinstance(event, dict):
            continue
        kind = str(event.get("event"))
        if kind == "phase":
            kind += f":{event.get('phase')}"
        t, spent = event.get("t"), event.get("elapsed_s")
        when = ms(t) if isinstance(t, (int, float)) else ""
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
                details.append(f'<span class="al-ek">{esc(key)}=</span>{esc(text[:200])}')
        rows.append(
            f'<tr data-event="{esc(kind)}"><td>{esc(when)}</td><td>{esc(kind)}</td>'
            f"<td>{esc(event.get('step', ''))}</td><td>{esc(event.get('status', ''))}</td>"
            f"<td>{' '.join(details)}</td></tr>"
        )
    return (
        f'<div class="al-events"><div class="al-section-title">{esc(tr("display.events"))}</div>'
        f'<table class="al-table"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


# Every rule starts with .al-run, and names classes rather than bare tags, so
# nothing here restyles JupyterLab and JupyterLab's output styles do not win.
RUN_CSS_SOURCE = """
.al-run {
  all: initial; display: block; box-sizing: border-box; max-width: 980px; margin: 4px 0;
  padding: 14px 16px; border: 1px solid #d0d7de; border-radius: 10px;
  background: #fff; color: #1f2328; overflow-wrap: anywhere;
  font: 13px/1.55 var(--jp-ui-font-family, system-ui), 'Noto Sans CJK SC', 'Noto Sans SC',
    'Source Han Sans SC', 'PingFang SC', 'Microsoft YaHei', sans-serif;
}
.al-run * { box-sizing: border-box; }
.al-run .al-head {
  display: flex; flex-direction: column; gap: 8px;
  padding-bottom: 10px; border-bottom: 1px solid #d0d7de;
}
.al-run .al-title { font-size: 15px; font-weight: 700; }
.al-run .al-id, .al-run .al-model {
  font-weight: 400; color: #57606a; font-size: 12px; margin-left: 8px;
}
.al-run .al-badges, .al-run .al-counts, .al-run .al-legend {
  display: flex; flex-wrap: wrap; gap: 6px 16px; align-items: center;
}
.al-run .al-kv { display: inline-flex; align-items: center; gap: 6px; }
.al-run .al-k, .al-run .al-label { color: #57606a; font-size: 12px; margin-right: 6px; }
.al-run .al-badge {
  display: inline-flex; align-items: baseline; gap: 6px; padding: 1px 10px;
  border: 2px solid var(--c); border-radius: 12px; background: #fff; color: #1f2328;
  font-weight: 700;
}
.al-run .al-badge.al-filled { background: var(--c); color: var(--ink); }
.al-run .al-mean { font-weight: 400; font-size: 12px; }
.al-run .al-code, .al-run .al-errcode, .al-run .al-tool, .al-run .al-id, .al-run .al-pre,
.al-run .al-preview {
  font-family: ui-monospace, 'DejaVu Sans Mono', monospace, 'Noto Sans CJK SC';
}
.al-run .al-count b { font-size: 15px; }
.al-run .al-task, .al-run .al-answer, .al-run .al-system, .al-run .al-args, .al-run .al-result {
  display: flex; gap: 4px; align-items: flex-start;
}
.al-run .al-label { flex: none; min-width: 4.5em; }
.al-run .al-answer { padding: 6px 10px; background: #f6f8fa; border-radius: 6px; }
.al-run .al-none, .al-run .al-quiet { color: #57606a; font-style: italic; }
.al-run .al-alert { padding: 6px 10px; border-left: 4px solid #D55E00; background: #fff4ec; }
.al-run .al-section-title { font-weight: 700; font-size: 14px; margin: 14px 0 6px; }
.al-run .al-note { font-size: 12px; color: #57606a; margin-bottom: 6px; }
.al-run .al-tl {
  display: grid; grid-template-columns: max-content 1fr; gap: 3px 10px; align-items: center;
}
.al-run .al-tl-label { font-size: 12px; color: #57606a; }
.al-run .al-track { position: relative; height: 16px; background: #f0f2f4; border-radius: 3px; }
.al-run .al-span {
  position: absolute; top: 2px; bottom: 2px; width: var(--w); min-width: 3px;
  left: min(var(--x), calc(100% - 3px)); /* a bar of no time still shows, inside the track */
  border-radius: 2px; outline: 1px solid rgba(0, 0, 0, .3);
}
.al-run .al-dl {
  position: absolute; top: -3px; bottom: -3px; left: var(--x); border-left: 2px dashed #000;
}
.al-run .al-axis { display: flex; justify-content: space-between; font-size: 11px; color: #57606a; }
.al-run .al-legend { margin-top: 6px; font-size: 12px; }
.al-run .al-legend-item { display: inline-flex; align-items: center; gap: 5px; }
.al-run .al-swatch {
  display: inline-block; width: 22px; height: 11px; border-radius: 2px;
  outline: 1px solid rgba(0, 0, 0, .3);
}
.al-run .al-dl-swatch { outline: none; width: 2px; height: 16px; border-left: 2px dashed #000; }
.al-run .al-step {
  display: flex; flex-direction: column; gap: 6px; margin: 10px 0; padding: 8px 12px;
  border: 1px solid #d0d7de; border-radius: 8px;
}
.al-run .al-step-title { font-weight: 700; }
.al-run .al-ms { color: #57606a; font-size: 11px; font-weight: 400; }
.al-run .al-msg { display: flex; gap: 8px; align-items: flex-start; }
.al-run .al-body { min-width: 0; flex: 1; }
.al-run .al-who {
  flex: none; font-size: 12px; font-weight: 700; color: #fff; background: #0072B2;
  border-radius: 4px; padding: 0 6px;
}
.al-run .al-user .al-who { background: #5B6770; }
.al-run .al-reasoning { color: #57606a; border-left: 3px solid #56B4E9; padding-left: 8px; }
.al-run .al-call {
  display: flex; flex-direction: column; gap: 4px; padding: 4px 10px; background: #fafbfc;
  border-left: 4px solid var(--edge, #999999); border-radius: 0 6px 6px 0;
}
.al-run .al-call[data-kind=ok] { --edge: #009E73; }
.al-run .al-call[data-kind=error] { --edge: #D55E00; }
.al-run .al-call[data-kind=refused] { --edge: #CC79A7; border-left: 6px double var(--edge); }
.al-run .al-call[data-kind=not_run] { --edge: #999999; border-left-style: dashed; }
.al-run .al-call-head { display: flex; flex-wrap: wrap; gap: 6px 10px; align-items: center; }
.al-run .al-tool { font-weight: 700; }
.al-run .al-sep { display: none; }
.al-run .al-tag {
  font-size: 12px; font-weight: 700; color: #1f2328; background: #e8ebef; border-radius: 4px;
  padding: 0 6px;
}
.al-run .al-ek { color: #57606a; }
.al-run .al-pill {
  display: inline-block; padding: 0 8px; border-radius: 10px; background: var(--c);
  color: var(--ink); font-size: 12px; font-weight: 700; white-space: nowrap;
}
.al-run .al-errcode, .al-run .al-errmsg { color: #9a3d00; }
.al-run .al-errcode { font-weight: 700; }
.al-run .al-trunc {
  font-size: 12px; padding: 0 6px; border: 1px dashed #9a3d00; border-radius: 4px;
}
.al-run .al-trunc-mark { background: #F0E442; color: #000; }
.al-run .al-guard { font-weight: 700; color: #6b2d57; }
.al-run .al-saved, .al-run .al-proc, .al-run .al-source { font-size: 12px; color: #57606a; }
.al-run .al-pre, .al-run .al-text {
  margin: 0; padding: 0; background: none; border: none; min-width: 0;
  white-space: pre-wrap; overflow-wrap: anywhere; font-size: 12.5px; line-height: 1.5;
}
.al-run .al-text { font-family: inherit; font-size: 13px; }
.al-run .al-fold { min-width: 0; flex: 1; }
.al-run .al-fold > summary { cursor: pointer; color: #0b5a8a; }
.al-run .al-preview { color: #1f2328; }
.al-run .al-more { font-size: 12px; }
.al-run .al-check { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
.al-run .al-attempt { color: #6b2d57; }
.al-run .al-wrap-up { padding: 4px 10px; border-left: 4px dashed #D55E00; background: #fff4ec; }
.al-run .al-warn { color: #7a4d00; }
.al-run .al-warnings { margin: 4px 0 0 18px; padding: 0; }
.al-run .al-end { border-top: 1px solid #d0d7de; margin-top: 10px; }
.al-run .al-end-line { margin: 2px 0; }
.al-run .al-table { width: 100%; table-layout: fixed; border-collapse: collapse; font-size: 12px; }
.al-run .al-table th, .al-run .al-table td {
  border-bottom: 1px solid #e5e8eb; padding: 3px 6px; text-align: left; vertical-align: top;
  overflow-wrap: anywhere;
}
.al-run .al-table th:nth-child(1) { width: 15%; }
.al-run .al-table th:nth-child(2) { width: 15%; }
.al-run .al-table th:nth-child(3) { width: 6%; }
.al-run .al-table th:nth-child(4) { width: 10%; }
@media (max-width: 600px) {
  .al-run { padding: 8px; }
  .al-run .al-step { padding: 6px; }
  .al-run .al-args, .al-run .al-result, .al-run .al-task, .al-run .al-answer { flex-wrap: wrap; }
}
"""

# Phase bars: the palette's colour plus a pattern (none, stripes, dots), so
# the phases differ in more than colour.
PATTERNS = {
    "//": "repeating-linear-gradient(45deg, rgba(0,0,0,.4) 0 2px, transparent 2px 6px), ",
    "..": "radial-gradient(rgba(0,0,0,.5) 1px, transparent 1.4px) 0 0 / 4px 4px, ",
    "": "",
}
PHASE_CSS = "".join(
    f".al-run .al-ph-{phase} {{ background: {PATTERNS[palette.PHASE_HATCHES[phase]]}{color}; }}"
    for phase, color in palette.PHASE_COLORS.items()
)
# Sent with every fragment, so squeezed: no whitespace around punctuation. The
# class is doubled (".al-run.al-run .al-pre") because JupyterLab styles outputs
# with two classes and a tag (".jp-ThemedContainer .jp-RenderedHTMLCommon pre"):
# ours must weigh more to be the ones that apply inside a notebook.
RUN_CSS = re.sub(
    r"\s*([{};:,>])\s*", r"\1", " ".join((RUN_CSS_SOURCE + PHASE_CSS).split())
).replace(".al-run ", ".al-run.al-run ")

PAGE_CSS = (
    "body { margin: 0; padding: 24px; background: #eef1f4; } "
    ".al-run { margin: 0 auto !important; } "
    ".al-page-note { max-width: 980px; margin: 10px auto; color: #57606a; "
    "font: 12px system-ui, sans-serif; } "
    "@media (max-width: 600px) { body { padding: 6px; } }"
)
