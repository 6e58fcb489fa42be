"""The run display (``agentlab.course.display``): ``run_html`` and the trace page ``trace_html``.

Every scenario the chapters show is played (``tests/display_scenarios.py``),
rendered, and read back with the standard library's HTML parser: the badges
carry the run's codes, there is one step section per step, each tool call
shows its status and error code, guard refusals and unrun calls are marked,
a truncated result shows its marker, a deadline stop names its phase. Then:
the same run twice gives the same HTML once timings are masked with the
notebooks' own sanitizer, text from a model, a tool or a file is escaped
(the templates' autoescape), English is one switch away, and a trace page
shows the same conversation as the run it came from. What a run and its
trace are gathered into is tested in ``test_run_view.py``.
"""

from __future__ import annotations

import copy
import json
import re
from html.parser import HTMLParser
from importlib.resources import files
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentlab import OUTCOMES, STOP_REASONS, run_agent
from agentlab.clients import Reply, ScriptedClient, ToolCall, call, say
from agentlab.course import palette
from agentlab.course.display import meaning, run_html, trace_html
from agentlab.loop.trace import read_trace
from agentlab.tools import Tool, ToolRegistry, error, ok

from ..display_scenarios import ALL as SCENARIOS
from ..display_scenarios import DEADLINE_S, course_runs

SANITIZE = Path(__file__).parents[1] / "nbval_sanitize.cfg"
CJK = re.compile(r"[\u4e00-\u9fff]")
GUARDED = {"REPEATED_CALL": "refused", "TOO_MANY_CALLS": "refused", "NOT_RUN": "not_run"}


# -- reading the HTML back ------------------------------------------------------------------


class Node:
    def __init__(self, tag: str, attrs: dict[str, str], parent: Node | None) -> None:
        self.tag, self.attrs, self.parent = tag, attrs, parent
        self.children: list[Node | str] = []

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def all(self, css_class: str | None = None, tag: str | None = None) -> list[Node]:
        found = []
        for child in self.children:
            if isinstance(child, Node):
                if (css_class is None or css_class in child.classes) and tag in (None, child.tag):
                    found.append(child)
                found.extend(child.all(css_class, tag))
        return found

    def one(self, css_class: str) -> Node:
        found = self.all(css_class)
        assert len(found) == 1, f"{len(found)} elements of class {css_class}"
        return found[0]


class TreeBuilder(HTMLParser):
    VOID = {"meta", "br", "hr", "img", "input", "link"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {}, None)
        self.here = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, {k: v or "" for k, v in attrs}, self.here)
        self.here.children.append(node)
        if tag not in self.VOID:
            self.here = node

    def handle_endtag(self, tag):
        node = self.here
        while node is not self.root and node.tag != tag:
            node = node.parent
        assert node is not self.root, f"</{tag}> closes nothing"
        self.here = node.parent

    def handle_data(self, data):
        self.here.children.append(data)


def parse(html: str) -> Node:
    builder = TreeBuilder()
    builder.feed(html)
    builder.close()
    assert builder.here is builder.root, "an element was left open"
    return builder.root


def sanitize(html: str) -> str:
    """What nbval compares: the text after the notebooks' sanitizer rules (read as nbval does)."""
    text = SANITIZE.read_text(encoding="utf-8")
    for regex, replace in re.findall(r"^regex: (.*)$\n^replace: (.*)$", text, flags=re.M):
        html = re.sub(regex, replace, html)
    return html


def steps_of(html: str) -> list[str]:
    """The step sections, timings masked, the child-process line (run-only) removed."""
    sections = re.findall(r'<section class="al-step".*?</section>', sanitize(html), re.S)
    return [re.sub(r'<div class="al-proc">.*?</div>', "", s) for s in sections]


def skeleton(html: str) -> list[tuple]:
    """Per step: each call's (tool, kind, code), each check's status, failed attempts."""
    out = []
    for section in parse(html).all("al-step"):
        calls = [
            (c.one("al-tool").text(), c.attrs["data-kind"], c.attrs["data-code"])
            for c in section.all("al-call")
        ]
        checks = [c.attrs["data-status"] for c in section.all("al-check")]
        attempts = [a.attrs["data-status"] for a in section.all("al-attempt")]
        out.append((section.attrs["data-step"], calls, checks, attempts))
    return out


def badge(tree: Node, field: str) -> Node | None:
    found = [b for b in tree.all("al-badge") if b.attrs.get("data-field") == field]
    return found[0] if found else None


# -- the runs -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def rerun(tmp_path_factory):
    return course_runs(tmp_path_factory.mktemp("rerun"))


@pytest.mark.parametrize("name", SCENARIOS)
def test_every_scenario_shows_how_it_ended_step_by_step(runs, name):
    result = runs[name]
    tree = parse(run_html(result))
    assert len(tree.all("al-run")) == 1

    for field, code in [
        ("status", result.status),
        ("outcome", result.outcome),
        ("stop_reason", result.stop_reason),
        ("phase", result.phase),
    ]:
        shown = badge(tree, field)
        if code is None:
            assert shown is None
            continue
        assert shown.attrs["data-code"] == code and shown.one("al-code").text() == code
        assert CJK.search(shown.one("al-mean").text()), f"{field} badge has no Chinese meaning"
    outcome = badge(tree, "outcome")
    assert palette.OUTCOME_COLORS[result.outcome] in outcome.attrs["style"]
    assert palette.OUTCOME_SYMBOLS[result.outcome] in outcome.text()  # shape, not colour alone

    counts = {c.attrs["data-count"]: c.all(tag="b")[0] for c in tree.all("al-count")}
    assert counts["steps"].text() == str(result.steps)
    assert counts["tool_errors"].text() == str(result.tool_errors)

    sections = tree.all("al-step")
    assert [s.attrs["data-step"] for s in sections] == [str(n) for n in range(1, result.steps + 1)]
    shown_calls = [
        (int(c.parent.attrs["data-step"]), c.one("al-tool").text(), c) for s in sections
        for c in s.all("al-call")
    ]  # fmt: skip
    assert [(s, t) for s, t, _ in shown_calls] == [
        (r["step"], r["tool"]) for r in result.tool_results
    ]
    for (_, _, shown), record in zip(shown_calls, result.tool_results, strict=True):
        code = (record["result"]["error"] or {}).get("code") or ""
        assert shown.attrs["data-code"] == code
        assert shown.attrs["data-kind"] == GUARDED.get(code, record["status"])
        assert shown.one("al-pill").attrs["data-kind"] == shown.attrs["data-kind"]
        if code:
            assert shown.one("al-errcode").text() == code
            assert record["result"]["error"]["message"] in shown.text()
        assert len(shown.all("al-guard")) == (code in GUARDED)

    if result.answer:
        assert result.answer in tree.one("al-answer").text()
    end = tree.one("al-end")
    assert result.stop_reason in end.text()
    for warning in result.warnings:
        assert warning in end.text()


def test_truncation_marker_and_saved_output(runs):
    tree = parse(run_html(runs["huge"]))
    record = runs["huge"].tool_results[0]
    shown = tree.one("al-call")
    assert str(record["truncated_chars"]) in shown.one("al-trunc").text()
    note, marker = (m.text() for m in shown.all("al-trunc-mark"))
    assert note == json.loads(runs["huge"].messages[3]["content"])["truncated"]  # what it was told
    assert "outputs/step1-1.json" in note and marker.startswith("…[已截断：")
    assert "outputs/step1-1.json" in shown.one("al-saved").text()
    assert "ERROR: module_17 failed" in shown.one("al-result").text()  # a key line kept
    assert shown.one("al-result").all(tag="details"), "a long result folds away"


def test_guards_retries_and_completion_checks_where_they_happened(runs):
    assert skeleton(run_html(runs["repeat"]))[2:] == [
        ("3", [("same_result", "refused", "REPEATED_CALL")], [], []),
        ("4", [("same_result", "not_run", "NOT_RUN")], [], []),
    ]
    assert skeleton(run_html(runs["strict"]))[1][1] == [("same_result", "not_run", "NOT_RUN")]
    assert skeleton(run_html(runs["flaky-2"]))[0][3] == ["error"]  # the 429, then a retry
    assert "HTTP 429" in parse(run_html(runs["flaky-2"])).one("al-attempt").text()
    assert skeleton(run_html(runs["hung-decide"])) == [("1", [], [], ["timeout"])]
    checks = [s[2] for s in skeleton(run_html(runs["done-when"]))]
    assert checks == [["not_done"], [], ["done"]]
    assert "report.md 还不存在" in parse(run_html(runs["done-when"])).all("al-check")[0].text()
    assert skeleton(run_html(runs["hung-complete"]))[0][2] == ["timeout"]
    killed = parse(run_html(runs["isolated"])).one("al-proc").text()
    assert "-9" in killed and "SIGKILL" in killed
    assert runs["isolated"].tool_results[-1]["process"]["killed_by"] == "SIGKILL"


def test_a_killed_child_is_named_as_killed_where_the_run_ran(runs):
    """A trace recorded on Windows, viewed on Linux, still says TerminateProcess."""
    on_windows = copy.deepcopy(runs["isolated"])
    on_windows.tool_results[-1]["process"]["killed_by"] = "TerminateProcess"
    killed = parse(run_html(on_windows)).one("al-proc").text()
    assert "TerminateProcess" in killed and "SIGKILL" not in killed


@pytest.mark.parametrize("name", ["hung-decide", "hung-tool", "hung-complete", "isolated"])
def test_deadline_stops_name_their_phase_on_the_timeline(runs, name):
    result = runs[name]
    tree = parse(run_html(result))
    assert [n.attrs["data-phase"] for n in tree.one("al-end").all("al-end-line")[1:]] == [
        result.phase
    ]
    spans = tree.all("al-span")
    assert spans[-1].attrs["data-phase"] == result.phase
    assert spans[-1].attrs["data-status"] in ("timeout", "error")
    line = tree.one("al-dl")  # the deadline is drawn: the run ended right at it
    assert re.fullmatch(r"--x:\d+\.\d%", line.attrs["style"])
    deadline = "0.3 s" if name == "isolated" else f"{DEADLINE_S} s"
    assert deadline in tree.one("al-legend").text()


def test_a_far_deadline_is_named_not_drawn(runs):
    tree = parse(run_html(runs["repeat"]))  # seed table: 8 minutes, a run of milliseconds
    assert not tree.all("al-dl")
    assert "480" in tree.one("al-legend").text()


def test_the_same_run_twice_gives_the_same_html(runs, rerun):
    first = {name: run_html(runs[name]) for name in SCENARIOS}
    assert [n for n in SCENARIOS if run_html(runs[n]) != first[n]] == []  # one result, one HTML
    assert [n for n in SCENARIOS if sanitize(first[n]) != sanitize(run_html(rerun[n]))] == []
    assert all("≈" in html for html in first.values())  # there were timings to mask


def test_timings_appear_only_in_forms_the_sanitizer_masks(runs):
    html = run_html(runs["shared"])
    masked = sanitize(html)
    assert "--w:" in html and "--w:" not in masked
    assert not re.search(r"\d+(\.\d+)?\s?ms", masked.replace("ELAPSEDms", ""))
    assert not re.search(r"\b0\.0\d{3}\b", masked)  # no raw elapsed_s values


def test_untrusted_text_is_shown_as_text(runs):
    html = run_html(runs["escaped"])
    tree = parse(html)
    assert not tree.all(tag="script")
    for where in ("al-result", "al-args", "al-answer"):
        assert not [n for n in tree.one(where).all() if n.tag in ("b", "i", "script")], where
    assert "<script>alert('x')</script><b>bold</b>" in tree.one("al-result").text()
    assert "https://example.invalid/<b>" in tree.one("al-args").text()
    assert "<i>完</i>" in tree.one("al-answer").text()
    assert "&lt;script&gt;" in html


SCRIPT = "<script>alert('x')</script>"


def test_a_script_from_the_model_or_a_tool_stays_text(tmp_path):
    """The task, the model's words, the arguments it sent, a tool's data and a tool's
    error message each carry a script: the run and its trace page show all five as text."""
    tools = ToolRegistry(
        [
            Tool("page", "A page.", {"properties": {}}, lambda: ok({"html": SCRIPT})),
            Tool("fails", "Fails.", {"properties": {"q": {}}}, lambda q: error("BAD", SCRIPT)),
        ]
    )
    asks = (ToolCall("page", {}), ToolCall("fails", {"q": SCRIPT}))
    client = ScriptedClient([Reply(content=SCRIPT, tool_calls=asks), say(SCRIPT)])
    task = f"看看 {SCRIPT}"
    result = run_agent(task, client=client, tools=tools, trace_dir=tmp_path, task_id="script")
    for html in (run_html(result), trace_html(read_trace(result.trace_path))):
        tree = parse(html)
        assert "<script" not in html and not tree.all(tag="script")
        assert html.count("&lt;script&gt;") >= 6
        assert SCRIPT in tree.one("al-task").text() and SCRIPT in tree.one("al-answer").text()
        first, last = tree.all("al-assistant")
        assert SCRIPT in first.text() and SCRIPT in last.text()
        page, fails = tree.all("al-call")
        assert SCRIPT in page.one("al-result").text()
        assert SCRIPT in fails.all("al-args")[0].text() and SCRIPT in fails.one("al-errmsg").text()
    templates = files("agentlab.course").joinpath("templates")
    assert [t.name for t in templates.iterdir() if "|safe" in t.read_text(encoding="utf-8")] == []


def test_self_contained_scoped_and_free_of_ids(runs):
    html = run_html(runs["huge"])
    tree = parse(html)
    assert not tree.all(tag="script") and not tree.all(tag="link") and not tree.all(tag="img")
    assert not re.search(r"\bid=|\bsrc=|\bhref=|url\(|@import", html)
    (style,) = tree.all(tag="style")
    css = re.sub(r"@media[^{]*\{", "", style.text())
    selectors = [
        s.strip() for rule in css.split("}") if "{" in rule for s in rule.split("{")[0].split(",")
    ]
    assert selectors and all(s.startswith(".al-run") for s in selectors), selectors


def test_english_is_one_switch_away(runs, monkeypatch):
    monkeypatch.setenv("AGENTLAB_LANG", "en")
    tree = parse(run_html(runs["repeat"]))
    assert badge(tree, "outcome").one("al-mean").text() == "a budget ran out"
    assert badge(tree, "outcome").attrs["data-code"] == "budget_exhausted"
    assert tree.all("al-step-title")[0].text().startswith("Step 1")
    labels = tree.all("al-label") + tree.all("al-k") + tree.all("al-section-title")
    assert labels and not any(CJK.search(n.text()) for n in labels)
    assert CJK.search(tree.one("al-task").text())  # the task itself is data: it stays


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_badge_never_repeats_its_code_as_its_meaning(runs, lang, monkeypatch):
    """English showed the run status as "failed failed": the words must add something."""
    monkeypatch.setenv("AGENTLAB_LANG", lang)
    repeated = [
        (name, shown.attrs["data-field"])
        for name, result in runs.items()
        for shown in parse(run_html(result)).all("al-badge")
        if shown.one("al-mean").text() == shown.one("al-code").text()
    ]
    assert repeated == []


@pytest.mark.parametrize("depth", [500, 5000])
def test_a_run_with_arguments_nested_too_deep_still_shows(depth):
    arguments = '{"cfg": ' + "[" * depth + "]" * depth + "}"
    client = ScriptedClient([call("echo", arguments), say("好")])
    echo = ToolRegistry([Tool("echo", "d", {"additionalProperties": True}, lambda **a: ok(a))])
    result = run_agent("x", client=client, tools=echo, on_text=None, trace_dir=False)
    page = run_html(result)
    assert "INVALID_ARGUMENTS" in page and "[[[[" in page  # the text as sent, folded


def test_what_a_run_lacks_is_said(runs):
    """No phase recorded: the timeline says so. An older trace (no contents, no answer
    in its stop event): each result and the answer say they were not recorded."""
    assert parse(trace_html([])).one("al-timeline").all("al-quiet")
    older = [
        {k: v for k, v in e.items() if k not in ("content", "answer")} for e in runs["huge"].events
    ]
    tree = parse(trace_html(older))
    assert tree.all("al-call") and all(
        "没有记录" in shown.one("al-result").text() for shown in tree.all("al-call")
    )
    assert "没有记录最终回答" in tree.one("al-answer").text()


def test_an_unfinished_trace_says_so_and_escapes_what_it_has():
    events = [
        {"event": "start", "task": "半截", "budget": {"max_seconds": 1}},
        {"event": "phase", "phase": "decide", "step": 1, "status": "ok", "calls": ["x"]},
        {"event": "phase", "phase": "tool", "step": 1, "tool": "x", "status": "error"},
        "not an event",
        {"event": "warning", "step": 1, "message": "<b>careful</b>"},
    ]
    tree = parse(trace_html(events))  # type: ignore[arg-type]
    assert tree.one("al-alert") and not tree.all("al-end")  # no stop event: said so
    assert tree.one("al-warn").text().endswith("<b>careful</b>") and not tree.one("al-warn").all()
    assert len(tree.one("al-events").all(tag="tr")) == 1 + 4  # the events, not the string


@pytest.mark.parametrize("name", SCENARIOS)
def test_a_trace_shows_what_its_run_shows(runs, name):
    result = runs[name]
    events = read_trace(result.trace_path)
    page = trace_html(events)
    assert page.startswith("<!DOCTYPE html>") and "<script" not in page
    tree = parse(page)
    for field in ("status", "outcome", "stop_reason", "phase"):
        shown = badge(tree, field)
        assert (shown.attrs["data-code"] if shown else None) == getattr(result, field)
    assert skeleton(page) == skeleton(run_html(result))
    assert len(tree.one("al-events").all(tag="tr")) == len(events) + 1
    assert steps_of(page) == steps_of(run_html(result))  # every step, call and result
    answers = [a.text() for a in parse(run_html(result)).all("al-answer")]  # and partial ones
    assert [a.text() for a in tree.all("al-answer")] == answers


def test_every_code_a_badge_shows_has_words_next_to_it():
    """(The labels' two languages are checked with the whole catalog, tests/test_i18n.py.)"""
    codes = (*OUTCOMES, *STOP_REASONS, "ok", "error", "refused", "not_run", "decide")
    assert [code for code in codes if not meaning(code)] == []  # every badge's code has words


def test_reasoning_and_guard_names_where_the_run_has_them(runs):
    result = copy.copy(runs["repeat"])
    result.messages = copy.deepcopy(result.messages)
    result.messages[2]["reasoning"] = "先看看 <构建> 状态"
    events = copy.deepcopy(result.events)
    next(e for e in events if e.get("phase") == "decide")["reasoning"] = "先看看 <构建> 状态"
    for tree in (parse(run_html(result)), parse(trace_html(events))):
        reasoning = tree.all("al-step")[0].one("al-reasoning")
        assert reasoning.tag == "details" and "先看看 <构建> 状态" in reasoning.text()
        guards = [g.text() for g in tree.all("al-guard")]
        refusers = [e["refused_by"] for e in events if e.get("refused_by")]
        assert len(guards) == len(refusers) == 2
        assert all(r in g for r, g in zip(refusers, guards, strict=True))


def test_the_wrap_up_step_and_its_partial_answer(runs):
    result = runs["wrap-up"]
    for html in (run_html(result), trace_html(result.events)):
        tree = parse(html)
        last = tree.all("al-step")[-1]
        note = last.one("al-wrap-up")
        assert note.attrs["data-reason"] == "max_steps" and "最后一步" in note.text()
        assert not last.all("al-user")  # the wrap-up request is the note, not a message
        assert result.partial_answer in tree.one("al-partial").text()
        assert result.partial_answer in last.one("al-assistant").text()
        assert "没有最终回答" in tree.all("al-answer")[0].text()


ANY_VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 10**12),
    st.floats(allow_nan=True),
    st.text(max_size=20),
    st.lists(st.one_of(st.text(max_size=5), st.integers()), max_size=3),
    st.dictionaries(st.text(max_size=5), st.text(max_size=5), max_size=3),
)
EVENT_KEYS = [
    "event", "phase", "step", "status", "t", "elapsed_s", "calls", "content", "tool", "args",
    "error_code", "error_class", "call_id", "truncated_chars", "refused_by", "message", "reason",
    "stop_reason", "outcome", "warnings", "answer", "budget", "task", "task_id", "model",
    "tokens", "model_requests", "attempt", "reasoning", "saved_to", "process",
]  # fmt: skip
EVENTS = st.lists(
    st.dictionaries(
        st.sampled_from(EVENT_KEYS),
        st.one_of(ANY_VALUE, st.sampled_from(["start", "phase", "stop", "warning", "tool"])),
        max_size=12,
    ),
    max_size=12,
)


@settings(max_examples=300, deadline=None)
@given(EVENTS)
def test_any_trace_renders_without_crashing(events):
    page = trace_html(events)
    assert page.startswith("<!DOCTYPE html>") and "<script" not in page
    parse(page)  # well-formed: every element closed


def test_jupyter_shows_a_run_as_its_picture():
    """The loop knows no HTML: the package registers the course's renderer with IPython."""
    from IPython.core.interactiveshell import InteractiveShell

    import agentlab

    shell = InteractiveShell.instance()
    try:
        agentlab._show_runs_as_pictures()
        result = run_agent("x", client=ScriptedClient([say("好")]), tools=ToolRegistry([]),
                           trace_dir=False, on_text=None)  # fmt: skip
        shown, _ = shell.display_formatter.format(result)
        assert shown["text/html"] == run_html(result)
    finally:
        InteractiveShell.clear_instance()
