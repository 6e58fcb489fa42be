"""A recognisable fake key in the environment never shows up anywhere.

Real models are switched on (``AGENTLAB_OFFLINE`` removed) and pointed at a
loopback test server, so the cells and commands that use a real model
really run and really send the key. Then every output, repr, warning, trace
and file written during the run is searched for it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import httpx2
import nbformat
import openai
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from nbclient import NotebookClient

from agentlab import Budget, run_agent
from agentlab.clients import ModelConfigError, from_env, load_settings
from agentlab.course.display import run_html
from agentlab.model import secrets
from agentlab.model.secrets import ShownWithoutKey, without_secret
from agentlab.tools import sales_tools
from agentlab.tools.registry import Tool, ToolRegistry, ok

from .conftest import REPO
from .fault_server import FaultServer

pytestmark = pytest.mark.usefixtures("english")  # these tests read messages

KEY = "sk-agentlab-canary-0b9d47e1c3f2"


def files_holding_the_key(folder: Path) -> list[str]:
    return [str(p) for p in folder.rglob("*") if p.is_file() and KEY.encode() in p.read_bytes()]


@pytest.fixture
def keyed_env(monkeypatch, tmp_path):
    """Real models on, the fake key everywhere a student might put one."""
    server = FaultServer()
    server.__enter__()
    monkeypatch.delenv("AGENTLAB_OFFLINE", raising=False)
    for name in ("LLM_API_KEY", "DASHSCOPE_API_KEY", "DEEPSEEK_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.setenv(name, KEY)
    monkeypatch.setenv("LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("LLM_MODEL", "canary-model")
    monkeypatch.setenv("MODEL_BASE_URL", server.base_url)
    monkeypatch.setenv("MODEL_NAME", "canary-model")
    monkeypatch.setenv("AGENTLAB_RUNS_DIR", str(tmp_path / "runs"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))  # sandbox copies land here too
    monkeypatch.chdir(tmp_path)
    yield server
    server.__exit__(None, None, None)


def test_reprs_and_messages_never_show_the_key(keyed_env, tmp_path):
    settings = load_settings()
    client = from_env()
    result = run_agent(
        "分析 data/input/sales.csv",
        client=client,
        model=settings.model,
        tools=sales_tools(),
        budget=Budget(max_steps=2),
    )
    assert keyed_env.requests[-1]["authorization"] == f"Bearer {KEY}"  # the key was used
    for text in (
        repr(settings),
        str(settings),
        repr(client),
        repr(result),
        str(result),
        json.dumps(result.messages, ensure_ascii=False),
        " ".join(result.warnings),
    ):
        assert KEY not in text
    with pytest.raises(ModelConfigError) as info:
        load_settings(
            environ={"LLM_API_KEY": KEY + "-replace-with", "LLM_BASE_URL": "x", "LLM_MODEL": "m"}
        )
    assert KEY not in str(info.value)
    assert files_holding_the_key(tmp_path) == []


@pytest.mark.parametrize(
    "command",
    [
        ["run", "分析 data/input/sales.csv，哪个类别销售额最高？"],
        ["run", "--stream", "分析 data/input/sales.csv，哪个类别销售额最高？"],
        ["demo"],
    ],
)
def test_the_cli_never_prints_the_key(keyed_env, tmp_path, command):
    done = cli(*command)
    assert done.returncode in (0, 1), done.stderr
    assert KEY not in done.stdout + done.stderr
    assert files_holding_the_key(tmp_path) == []


def test_a_key_echoing_server_does_not_leak_through_the_cli(keyed_env, tmp_path):
    keyed_env.faults[:] = ["401"]
    done = cli("run", "hi")
    assert done.returncode == 1 and "check the API key" in done.stdout + done.stderr
    assert KEY not in done.stdout + done.stderr
    assert files_holding_the_key(tmp_path) == []


def cli(*arguments: str) -> subprocess.CompletedProcess:
    """``python -m agentlab ...`` in this (keyed) environment, from the repository root."""
    return subprocess.run(
        [sys.executable, "-m", "agentlab", *arguments],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=os.environ.copy(),
        timeout=120,
        check=False,
    )


def test_notebooks_never_show_the_key(keyed_env, tmp_path, monkeypatch):
    """Every chapter executed with real models switched on (ch01 and ch02 call the
    loopback 'real' model); no output, trace or written file holds the key."""
    monkeypatch.setenv("AGENTLAB_LANG", "zh")  # the chapters check the analyst's Chinese answer
    copy = tmp_path / "repo"
    shutil.copytree(REPO / "notebooks", copy / "notebooks")
    for path in sorted((copy / "notebooks").glob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        NotebookClient(
            notebook,
            timeout=180,
            kernel_name="python3",
            resources={"metadata": {"path": str(path.parent)}},
        ).execute()
        text = nbformat.writes(notebook)
        assert KEY not in text, path.name
        path.write_text(text, encoding="utf-8")
    used = [r for r in keyed_env.requests if r["authorization"] == f"Bearer {KEY}"]
    assert len(used) >= 2  # the real-model cells really ran against the server
    assert files_holding_the_key(tmp_path) == []


# -- without_secret: the key however it is echoed back (review 9, F4) ---------------------

ECHOED = "sk-LEAKCHECK-0123456789abcdef"


@pytest.mark.parametrize(
    "echo",
    [
        "bad token SK-LEAKCHECK-0123456789ABCDEF",  # upper-cased by the provider
        "Incorrect API key provided: sk-LEAKCHECK-012345678... check it",  # a long prefix
        "Incorrect API key provided: sk-LEAK************456789abcdef.",  # a long suffix
        "key ...CHECK-0123456... in the middle",  # any 12 characters in a row
        '"sk-leakcheck-0123456789abcdef"',  # lower-cased, quoted
    ],
)
def test_any_twelve_characters_of_a_long_key_in_a_row_are_blanked(echo):
    shown = without_secret(echo, ECHOED, "***")
    assert "***" in shown
    lowered = shown.lower()
    key = ECHOED.lower()
    assert not any(key[i : i + 12] in lowered for i in range(len(key) - 11)), shown


def test_what_surrounds_the_key_is_kept_and_eleven_characters_are_not_a_key():
    shown = without_secret(f"a {ECHOED.upper()}b and {ECHOED[:11]}", ECHOED, "***")
    assert shown == f"a ***b and {ECHOED[:11]}"


def test_a_placeholder_key_blanks_only_itself_never_pieces_of_ordinary_words():
    """A scripted or local client's placeholder is shorter than a real key: only
    the whole placeholder is blanked, never 12 characters of it."""
    placeholder = "scripted-no-key"
    assert len(placeholder) < secrets.SECRET_MIN_CHARS <= len(KEY)
    text = "a scripted-no-answer, scripted-no-keyless"
    assert without_secret(text, placeholder, "***") == "a scripted-no-answer, ***less"


# -- a run keeps no copy of its client's key (review 9, F1) --------------------------------


def shows_the_key(text: str) -> bool:
    """Any 12 characters of the key in a row, in any case."""
    text, key = text.lower(), KEY.lower()
    return any(key[i : i + 12] in text for i in range(len(key) - 11))


def key_echoing_client(stream: bool = False, key_as_function: bool = False) -> openai.OpenAI:
    """A service that echoes the key everywhere a reply has text: a call id, a tool
    name, the arguments, then the answer and its reasoning (split across chunks
    when streamed). ``key_as_function``: the SDK gets the key from a function,
    and knows it only once it asked, at the first request."""

    def completion(message: dict) -> dict:
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        choice = {"index": 0, "message": message, "finish_reason": finish}
        usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        return {"id": "c", "object": "chat.completion", "model": "m", "created": 0,
                "choices": [choice], "usage": usage}  # fmt: skip

    def handle(request: httpx2.Request) -> httpx2.Response:
        asked = json.loads(request.content)
        if not any(m["role"] == "tool" for m in asked["messages"]):
            calls = [
                {"id": f"call_{KEY}", "type": "function",
                 "function": {"name": "config", "arguments": json.dumps({"note": KEY})}},
                {"id": "call_2", "type": "function",
                 "function": {"name": f"x{KEY}", "arguments": "{}"}},
            ]  # fmt: skip
            return httpx2.Response(200, json=completion({"role": "assistant", "tool_calls": calls}))
        answer = {"role": "assistant", "content": f"your key is {KEY}",
                  "reasoning_content": f"it said {KEY}"}  # fmt: skip
        if not asked.get("stream"):
            return httpx2.Response(200, json=completion(answer))
        pieces = [KEY[:10], KEY[10:20], KEY[20:]]
        deltas = [{"role": "assistant", "reasoning_content": p} for p in pieces]
        deltas += [{"content": p} for p in pieces]
        chunks = [
            {"id": "c", "object": "chat.completion.chunk", "model": "m", "created": 0,
             "choices": [{"index": 0, "delta": d, "finish_reason": None}]}
            for d in deltas
        ]  # fmt: skip
        chunks[-1]["choices"][0]["finish_reason"] = "stop"
        sse = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
        return httpx2.Response(200, text=sse, headers={"content-type": "text/event-stream"})

    return openai.OpenAI(
        api_key=(lambda: KEY) if key_as_function else KEY,
        base_url="https://example.invalid/v1",
        http_client=httpx2.Client(transport=httpx2.MockTransport(handle)),
    )


def config_tools() -> ToolRegistry:
    """A tool that reads the key, as one reading a project's settings might."""

    def config(note: str = "") -> dict:
        return ok({"settings": f"LLM_API_KEY={KEY}\nnote={note}", "padding": "x" * 300})

    schema = {"type": "object", "properties": {"note": {"type": "string"}}}
    return ToolRegistry([Tool("config", "read the settings", schema, config)])


@pytest.mark.parametrize(
    "stream, key_as_function", [(False, False), (True, False), (False, True), (True, True)]
)
def test_a_run_keeps_no_copy_of_the_key_whatever_the_model_or_a_tool_says(
    tmp_path, stream, key_as_function
):
    seen: list[dict] = []
    result = run_agent(
        "what are the settings?",
        client=key_echoing_client(stream, key_as_function),
        tools=config_tools(),
        budget=Budget(max_steps=3, max_tool_output_chars=200),  # the full output is saved too
        model="m",
        stream=stream,
        on_text=None,
        trace_dir=tmp_path / "runs",
        on_event=seen.append,
    )
    assert result.stop_reason == "answered" and "***" in result.answer
    assert result.tool_results[0]["status"] == "ok" and result.tool_results[0]["saved_to"]
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from agentlab.ops.otel import export_trace

    spans, provider = InMemorySpanExporter(), TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    export_trace(result, provider, include_content=True)
    everything = {
        "answer": result.answer,
        "reasoning": json.dumps(result.reasoning),
        "messages": json.dumps(result.messages, ensure_ascii=False),
        "tool_results": json.dumps(result.tool_results, ensure_ascii=False, default=str),
        "warnings": json.dumps(result.warnings, ensure_ascii=False),
        "events": json.dumps(result.events, ensure_ascii=False),
        "listener": json.dumps(seen, ensure_ascii=False),
        "to_dict": json.dumps(result.to_dict(), ensure_ascii=False),
        "html": run_html(result),
        "otel": json.dumps([s.to_json() for s in spans.get_finished_spans()]),
    }
    assert [name for name, text in everything.items() if shows_the_key(text)] == []
    assert files_holding_the_key(tmp_path) == []
    assert not any(shows_the_key(p.read_text()) for p in tmp_path.rglob("*") if p.is_file())


def test_a_scripted_client_with_its_placeholder_key_is_not_cleaned(tmp_path):
    """Placeholder keys are not secrets: the scripted path does no cleaning at all."""
    from agentlab.clients import scripted

    client = scripted("honest_analyst")
    assert not secrets.is_secret(client.api_key)
    result = run_agent("分析 data/input/sales.csv", client=client, tools=sales_tools(),
                       trace_dir=False, on_text=None)  # fmt: skip
    assert result.outcome == "completed" and "***" not in json.dumps(result.messages)


def test_streamed_text_is_shown_without_the_key_even_cut_across_chunks():
    """What ``on_text``/``on_reasoning`` show as the reply streams in (``agentlab run
    --stream`` prints it) never holds the key, though it arrives in pieces."""
    shown: list[str] = []
    result = run_agent(
        "what are the settings?",
        client=key_echoing_client(stream=True),
        tools=config_tools(),
        model="m",
        stream=True,
        on_text=shown.append,
        on_reasoning=shown.append,
        trace_dir=False,
    )
    assert result.stop_reason == "answered"
    assert not shows_the_key("".join(shown)) and "***" in "".join(shown)


@settings(max_examples=200, deadline=None)
@given(
    parts=st.lists(
        st.sampled_from(["答案是 ", "x", "\n", KEY, KEY.upper(), KEY[:14], KEY[-13:], KEY[:11]]),
        max_size=12,
    ),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=10),
)
@example(parts=["答案是 "] * 10, cuts=[3, 7, 20])  # a long line with no key: shown as it comes
@example(parts=["x", KEY[:14], "x" * 40, KEY], cuts=[5, 12, 60])  # pieces cut mid-way
def test_the_live_display_never_shows_a_piece_of_the_key_and_stays_close_behind(parts, cuts):
    """However the stream is cut, the text shown holds no 12 characters of the key
    in a row, is what the whole text cleaned would be, and lags only a few
    characters behind what has arrived."""
    text = "".join(parts)
    shown: list[str] = []
    display = ShownWithoutKey(shown.append, KEY)
    for start, end in zip([0, *sorted(cuts)], [*sorted(cuts), len(text)], strict=True):
        display(text[start:end])
    held = display.pending
    display.flush()
    assert not shows_the_key("".join(shown))
    one_mask = re.compile(r"(?:\*\*\*)+")  # two masks side by side may come as one
    assert one_mask.sub("***", "".join(shown)) == one_mask.sub(
        "***", without_secret(text, KEY, "***")
    )
    if not secrets.key_runs(text, KEY):  # ordinary text: only a few characters wait
        assert len(held) <= secrets.SECRET_PIECE_CHARS
        assert "".join(shown) == text


def test_the_live_display_keeps_the_key_out_of_its_repr():
    """A debugger or a verbose traceback prints the locals of the decide phase."""
    display = ShownWithoutKey(print, KEY)
    display("the first characters: " + KEY[:10])
    assert not shows_the_key(repr(display)) and KEY[:10] not in repr(display)
