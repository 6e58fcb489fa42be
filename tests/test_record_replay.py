"""Record a run against a "real provider" (a loopback server), replay it keyless.

The server answers with a recorded DeepSeek V4 thinking-mode stream (from the
provider corpus) and then a constructed closing answer. The client really sends
a recognisable key; the recording must hold neither the key nor any
``authorization``, and replaying it with no key and no network must give the
same run, byte for byte. Divergent replays say which request differs and where.
"""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path
from urllib.parse import quote

import httpx2
import openai
import pytest

from agentlab import Budget, run_agent
from agentlab.clients import RecordingError, ReplayClient, recording
from agentlab.clients.recording import (
    FORMAT,
    Divergence,
    Replayer,
    first_difference,
    load_recording,
)
from agentlab.i18n import tr
from agentlab.ops.cli import main

from .fault_server import FaultServer
from .providers.replay_server import TranscriptServer, canned, final_answer
from .providers.test_providers_replayed import CORPUS, echo_tools

KEY = "sk-agentlab-canary-7f3a91c2d4e6"
TASK = "What's the weather in San Francisco?"
THINKING_STREAM = CORPUS["deepseek/deepseek-v4-flash-tool-call-stream"]
SAME = (
    "status",
    "outcome",
    "stop_reason",
    "steps",
    "model_requests",
    "answer",
    "tokens",
    "messages",
    "reasoning",
    "warnings",
)


def run(client, task: str = TASK, **options):
    options.setdefault("model", "deepseek-v4-flash")
    options.setdefault("stream", True)
    options.setdefault("budget", Budget(max_steps=4))
    return run_agent(
        task, client=client, tools=echo_tools(["weather"]), on_text=None, trace_dir=False, **options
    )


@pytest.fixture
def recorded(tmp_path) -> tuple[Path, TranscriptServer, object]:
    """A thinking-mode tool run recorded against the loopback "provider"."""
    path = tmp_path / "deepseek-demo.json"
    with TranscriptServer([canned(THINKING_STREAM), final_answer("晴，18 度。")]) as server:
        client = openai.OpenAI(api_key=KEY, base_url=server.base_url, max_retries=0)
        live = run(recording(client, path, provider="DeepSeek"))
    return path, server, live


def test_the_key_was_sent_but_never_reaches_the_recording(recorded):
    path, server, live = recorded
    assert server.authorizations == [f"Bearer {KEY}"] * 2  # the key really went out
    raw = path.read_bytes()
    assert KEY.encode() not in raw
    assert b"authorization" not in raw.lower()
    document = json.loads(raw)
    assert document["format"] == FORMAT
    assert (document["provider"], document["model"]) == ("DeepSeek", "deepseek-v4-flash")
    assert document["base_url"].startswith("http://127.0.0.1:")
    assert live.outcome == "completed" and len(document["exchanges"]) == 2


def test_the_recording_holds_the_bytes_the_provider_sent(recorded):
    path, server, _ = recorded
    exchanges = load_recording(path)["exchanges"]
    assert [e["response"]["text"].encode() for e in exchanges] == server.sent
    assert [e["request"]["body"] for e in exchanges] == server.requests
    assert exchanges[0]["response"]["headers"] == {"content-type": "text/event-stream"}


def test_a_replay_is_the_same_run_without_key_or_network(recorded):
    path, server, live = recorded
    client = ReplayClient(path)
    assert (client.model, client.task, client.stream) == ("deepseek-v4-flash", TASK, True)
    again = run(client, client.task, model=client.model, stream=client.stream)
    for name in SAME:
        assert getattr(again, name) == getattr(live, name), name
    assert again.reasoning[0] == THINKING_STREAM["expect"]["reasoning"]
    assert client.divergences == []
    assert client.replayer.requests == server.requests  # what the provider got, exactly


def test_replayed_replies_are_byte_identical(recorded):
    path, server, _ = recorded
    replayer = Replayer(load_recording(path))
    for body, sent in zip(server.requests, server.sent, strict=True):
        request = httpx2.Request("POST", "http://replay.invalid/v1/chat/completions", json=body)
        response = replayer.handle(request)
        assert response.read() == sent
    assert replayer.divergences == []


def test_a_diverging_replay_says_which_request_and_what_differs(recorded):
    path, _, live = recorded
    client = ReplayClient(path)
    changed = run(client, "What's the weather in Paris?")
    assert changed.outcome == "completed"  # the demo goes on with the recorded replies
    first = client.divergences[0]
    assert (first.number, first.where) == (1, "messages[1].content")
    assert first.message == tr(
        "replay.diverged",
        number=1,
        where="messages[1].content",
        recorded=json.dumps(TASK),
        replayed=json.dumps("What's the weather in Paris?"),
    )
    assert "第 1 个请求" in first.message  # Chinese by default


def test_a_strict_replay_stops_at_the_first_divergence_with_that_message(recorded):
    path, _, _ = recorded
    client = ReplayClient(path, strict=True)
    stopped = run(client, "What's the weather in Paris?")
    assert (stopped.stop_reason, stopped.model_requests) == ("model_error", 1)
    assert client.divergences[0].message in stopped.warnings[-1]


def test_a_replay_cannot_serve_a_stream_as_a_plain_reply(recorded):
    path, _, _ = recorded
    client = ReplayClient(path)  # lenient, but the recorded bytes are SSE
    plain = run(client, stream=False)
    assert plain.stop_reason == "model_error"
    assert client.divergences[0].where == "stream"


def test_a_replay_that_asks_for_more_than_was_recorded(recorded):
    path, _, _ = recorded
    client = ReplayClient(path)
    longer = run(client, done_when=lambda answer: "还要更多")  # never done: a 3rd request
    assert longer.stop_reason == "model_error"
    assert tr("replay.ran_out", number=3, count=2) in longer.warnings[-1]


def test_a_key_echoed_by_the_service_is_blanked_out(tmp_path):
    path = tmp_path / "refused.json"
    with FaultServer(["401"]) as server:
        client = openai.OpenAI(api_key=KEY, base_url=server.base_url, max_retries=0)
        result = run(recording(client, path), stream=False)
    assert result.stop_reason == "model_error"
    raw = path.read_text(encoding="utf-8")
    assert KEY not in raw and "Incorrect API key provided: ***" in raw
    again = run(ReplayClient(path), stream=False)
    assert again.stop_reason == "model_error" and "***" in again.warnings[-1]


def test_a_dropped_connection_is_recorded_and_replayed_as_one(tmp_path):
    path = tmp_path / "flaky.json"
    budget = Budget(max_steps=2, max_retries=1, retry_backoff_s=0.01)
    with FaultServer(["reset", "ok"]) as server:
        client = openai.OpenAI(api_key=KEY, base_url=server.base_url, max_retries=0)
        live = run(recording(client, path), stream=False, budget=budget)
    assert [("error" in e) for e in load_recording(path)["exchanges"]] == [True, False]
    again = run(ReplayClient(path), stream=False, budget=budget)
    assert (
        (again.model_requests, again.answer) == (live.model_requests, live.answer) == (2, "pong 2")
    )


def test_with_options_keeps_the_recording(recorded):
    path, _, _ = recorded
    client = ReplayClient(path).with_options(timeout=5)
    assert isinstance(client, ReplayClient) and run(client).outcome == "completed"


def test_two_long_texts_are_shown_from_where_they_differ():
    """A tool message recorded in English and replayed in Chinese: both start with the
    same JSON, so showing their starts would hide the difference."""
    start = '{"status": "error", "data": null, "source": ["input/sales_2023.csv"], '
    diverged = Divergence(
        2, "messages[3].content", start + '"x": "no such file"}', start + '"x": "没有这个文件"}'
    )
    assert "no such file" in diverged.message and "没有这个文件" in diverged.message
    assert diverged.message.count("…") == 2


def test_first_difference_names_the_first_place():
    assert first_difference({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]}) == ("a[1].b", 2, 3)
    assert first_difference({"a": [1]}, {"a": [1, 2]})[0] == "a[1]"
    assert first_difference({"a": 1}, {"a": 1.0}) == ("a", 1, 1.0)
    assert first_difference({"a": True}, {"a": True}) is None


@pytest.mark.parametrize(
    "content",
    [
        "not json",
        json.dumps({"format": "other"}),
        json.dumps({"format": FORMAT}),
        "[" * 100_000 + "]" * 100_000,  # nested deeper than Python's JSON reader follows
    ],
)
def test_a_file_that_is_not_a_recording_is_a_clear_error(tmp_path, content):
    path = tmp_path / "x.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(RecordingError) as info:
        ReplayClient(path)
    assert str(path) in str(info.value)


def test_bytes_that_are_not_text_are_kept_exactly(tmp_path):
    gz = bytes([0x1F, 0x8B, 0x08, 0x00, 0xFF])
    with TranscriptServer([]) as server:  # the recorder only needs the client's base URL
        client = openai.OpenAI(api_key=KEY, base_url=server.base_url)
        recorder_client = recording(client, tmp_path / "b.json")
    transport = recorder_client._client._transport
    record = transport.recorder.response(200, httpx2.Headers({"x-org": "acme"}), gz, False)
    assert record == {"status": 200, "headers": {}, "base64": base64.b64encode(gz).decode()}


# -- the CLI ----------------------------------------------------------------------------


def test_cli_records_and_replays_a_run(tmp_path, capsys):
    path = tmp_path / "demo.json"
    question = "分析 data/input/sales.csv，哪个类别最高？"
    assert main(["run", question, "--scripted", "honest_analyst", "--record", str(path)]) == 0
    recorded_out, err = capsys.readouterr()
    assert tr("replay.cli_recording_to", path=path) in err
    assert main(["run", "--replay", str(path)]) == 0  # question, tools, model from the file
    replayed_out, err = capsys.readouterr()
    assert json.loads(replayed_out)["summary"] == json.loads(recorded_out)["summary"]
    assert tr("replay.cli_matched", n=2) in err
    assert main(["run", "别的问题 sales.csv", "--replay", str(path)]) == 0
    assert tr("replay.diverged", number=1, where="", recorded="", replayed="")[:9] in (
        capsys.readouterr().err
    )


def test_cli_replay_refuses_a_scripted_model_it_would_not_use(tmp_path, capsys):
    """The replay answers from the file: `--scripted never_stops` was silently ignored."""
    path = tmp_path / "demo.json"
    assert main(["run", "x", "--scripted", "honest_analyst", "--record", str(path)]) == 0
    capsys.readouterr()
    with pytest.raises(SystemExit) as info:
        main(["run", "--replay", str(path), "--scripted", "never_stops"])
    captured = capsys.readouterr()
    assert info.value.code == 2 and captured.out == ""
    assert tr("replay.cli_scripted_and_replay") in captured.err


def test_cli_replay_that_runs_past_the_recording_does_not_say_it_matched(tmp_path, capsys):
    """Two requests recorded, five steps allowed: the third request has nothing to replay."""
    path = tmp_path / "two.json"
    argv = ["run", "x", "--scripted", "never_stops", "--max-steps", "2", "--record", str(path)]
    assert main(argv) == 1
    capsys.readouterr()
    assert main(["run", "--replay", str(path), "--max-steps", "5"]) == 1
    err = capsys.readouterr().err
    assert tr("replay.cli_matched", n=3) not in err
    assert tr("replay.ran_out", number=3, count=2) in err


def test_a_recording_that_cannot_be_saved_leaves_no_partial_file(tmp_path):
    """Saving writes ``<name>.partial`` and renames it: a failed rename (the path is a
    folder) raises, and takes the half-step with it."""
    folder = tmp_path / "a-folder"
    folder.mkdir()
    client = openai.OpenAI(api_key="sk-test", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(OSError):
        recording(client, folder)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-folder"]


def test_cli_recording_of_a_real_provider_holds_no_key(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("AGENTLAB_OFFLINE", raising=False)
    monkeypatch.chdir(tmp_path)  # no .env here
    path = tmp_path / "real.json"
    with FaultServer() as server:
        monkeypatch.setenv("LLM_API_KEY", KEY)
        monkeypatch.setenv("LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("LLM_MODEL", "canary-model")
        code = main(["run", "hi", "--record", str(path), "--max-steps", "2"])
    out, err = capsys.readouterr()
    assert code == 0 and "pong 1" in out
    raw = path.read_bytes()
    assert KEY.encode() not in raw and b"authorization" not in raw.lower()
    assert KEY not in out + err
    document = json.loads(raw)
    assert (document["provider"], document["model"]) == ("LLM", "canary-model")
    assert document["run"] == {"tools": "sales", "max_steps": 2, "stream": False}


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["run", "x", "--record", "a.json", "--replay", "b.json"], "--record"),
        (["run", "--replay", "missing.json"], "missing.json"),
    ],
)
def test_cli_replay_errors_are_one_line(argv, fragment, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as info:
        main(argv)
    err = capsys.readouterr().err
    assert info.value.code == 2 and len(err.strip().splitlines()) == 1 and fragment in err


def test_a_hand_made_recording_without_request_bodies_replays_a_corpus_transcript():
    """How a notebook can replay a provider's recorded reply keyless: requests left
    out (null) are answered without comparison; the closing answer is constructed."""
    closing = final_answer("晴，18 度。")({"stream": True, "model": "deepseek-v4-flash"}).body
    document = {
        "format": FORMAT,
        "provider": "deepseek",
        "model": "deepseek-v4-flash",
        "exchanges": [
            {
                "request": {"body": None},
                "response": {
                    "status": 200,
                    "headers": {"content-type": "text/event-stream"},
                    "text": text,
                },
            }
            for text in (THINKING_STREAM["response"]["sse"], closing.decode())
        ],
    }
    shown: list[str] = []
    client = ReplayClient(document)
    result = run(client, on_reasoning=shown.append)
    assert result.outcome == "completed" and client.divergences == []
    assert "".join(shown) == THINKING_STREAM["expect"]["reasoning"] + "\n"
    assert result.messages[2]["reasoning_content"] == THINKING_STREAM["expect"]["reasoning"]


def test_a_corpus_transcript_replays_keyless_from_the_package_data():
    from agentlab.clients.recording import corpus_recording
    from agentlab.tools import Tool, ToolRegistry, ok

    document = corpus_recording("deepseek/deepseek-v4-flash-tool-call-stream", answer="晴。")
    weather = Tool(
        "weather",
        "查询天气",
        {"properties": {"location": {"type": "string"}}, "required": ["location"]},
        lambda location: ok({"location": location}),
    )
    shown: list[str] = []
    result = run_agent(
        "天气？",
        client=ReplayClient(document),
        tools=ToolRegistry([weather]),
        stream=True,
        on_text=None,
        on_reasoning=shown.append,
        trace_dir=False,
    )
    assert result.outcome == "completed" and result.answer == "晴。"
    assert result.tool_results[0]["normalized_args"] == '{"location":"San Francisco"}'
    assert result.messages[2]["reasoning_content"] == "".join(shown).rstrip("\n")


# -- the key, however a server echoes it back ---------------------------------------------

ODD_KEY = "sk-canary/7f3a+91c2=d4e6"  # characters that JSON and URLs escape


def _echoing(spelling: str) -> httpx2.MockTransport:
    """A service that answers 401 with the key it was sent, spelled some way."""

    def handle(request: httpx2.Request) -> httpx2.Response:
        key = request.headers["authorization"].removeprefix("Bearer ")
        shown = {
            "plain": key,
            "slash": key.replace("/", "\\/"),
            "url": quote(key, safe=""),
        }.get(spelling, key)
        body = json.dumps({"error": {"message": f"bad key {shown}"}}).replace("\\\\/", "\\/")
        if spelling == "gzip":  # a server that ignores accept-encoding: identity
            headers = {"content-type": "application/json", "content-encoding": "gzip"}
            return httpx2.Response(401, content=gzip.compress(body.encode()), headers=headers)
        return httpx2.Response(
            401, content=body.encode(), headers={"content-type": "application/json"}
        )

    return httpx2.MockTransport(handle)


@pytest.mark.parametrize("spelling", ["plain", "slash", "url", "gzip"])
@pytest.mark.parametrize("as_function", [False, True])
def test_no_spelling_of_the_key_reaches_the_file_the_warnings_or_the_trace(
    tmp_path, spelling, as_function
):
    client = openai.OpenAI(
        api_key=(lambda: ODD_KEY) if as_function else ODD_KEY,
        base_url="https://example.invalid/v1",
        max_retries=0,
        http_client=httpx2.Client(transport=_echoing(spelling)),
    )
    path = tmp_path / "rec.json"
    result = run_agent(
        "hi",
        client=recording(client, path),
        tools=echo_tools(["f"]),
        model="m",
        on_text=None,
        trace_dir=tmp_path / "runs",
    )
    assert result.outcome == "model_error"
    stored = path.read_bytes()
    kept = [
        base64.b64decode(e["response"]["base64"])
        for e in json.loads(stored)["exchanges"]
        if "base64" in e["response"]
    ]
    seen = b"\n".join([stored, *(gzip.decompress(b) for b in kept)]).decode()
    seen += "\n".join(result.warnings) + Path(result.trace_path).read_text(encoding="utf-8")
    for form in (ODD_KEY, ODD_KEY.replace("/", "\\/"), quote(ODD_KEY, safe="")):
        assert form not in seen


# -- the key in a reply's decoded text (review 9, F2) -----------------------------------------


def _chunk(delta: dict, finish: str | None = None) -> str:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    body = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m"}
    return "data: " + json.dumps({**body, "choices": [choice]}) + "\n\n"


def _split_key_stream(field: str) -> str:
    """A stream that sends the key in three pieces of ten characters, in ``field``."""
    pieces = [KEY[:10], KEY[10:20], KEY[20:]]
    if field == "arguments":
        start = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "weather"}}
        deltas = [{"tool_calls": [start]}] + [
            {"tool_calls": [{"index": 0, "function": {"arguments": part}}]}
            for part in ['{"city": "', *pieces, '"}']
        ]
    else:
        deltas = [{"role": "assistant", field: part} for part in pieces]
        deltas.append({"content": "done"})
    finish = "tool_calls" if field == "arguments" else "stop"
    return "".join(map(_chunk, deltas)) + _chunk({}, finish) + "data: [DONE]\n\n"


def _u_escaped(text: str) -> str:
    """JSON for ``text`` with every character escaped (``\\u0073\\u006b...``): valid, unusual."""
    return '"' + "".join(f"\\u{ord(c):04x}" for c in text) + '"'


def _serving(*bodies: str) -> openai.OpenAI:
    """A client with the key, answered by ``bodies`` in turn (SSE or JSON by their start)."""
    replies = iter(bodies)

    def handle(request: httpx2.Request) -> httpx2.Response:
        body = next(replies, _chunk({"content": "done"}, "stop"))
        kind = "text/event-stream" if body.startswith("data:") else "application/json"
        return httpx2.Response(200, content=body.encode(), headers={"content-type": kind})

    transport = httpx2.MockTransport(handle)
    return openai.OpenAI(
        api_key=KEY,
        base_url="https://example.invalid/v1",
        http_client=httpx2.Client(transport=transport),
    )


def _decoded(path: Path) -> str:
    """Every text the recording holds, as a reader of its replies decodes them: the
    file, each reply's JSON string escapes undone, each stream's deltas joined."""
    document = load_recording(path)
    texts = [path.read_text(encoding="utf-8")]
    for exchange in document["exchanges"]:
        text = (exchange.get("response") or {}).get("text") or ""
        texts.append(json.loads(json.dumps(text)))
        for line in text.splitlines():
            payload = line.removeprefix("data:").strip()
            if payload.startswith("{"):
                texts.append(json.dumps(json.loads(payload), ensure_ascii=False))
    return "\n".join(texts)


def _replayed(path: Path, stream: bool) -> str:
    again = run(ReplayClient(path), stream=stream)
    return json.dumps(
        [again.answer, again.messages, again.warnings, again.reasoning], ensure_ascii=False
    )


@pytest.mark.parametrize("field", ["content", "reasoning_content", "arguments"])
def test_a_key_split_across_stream_chunks_never_reaches_the_recording(tmp_path, field):
    path = tmp_path / "split.json"
    run(recording(_serving(_split_key_stream(field)), path), stream=True)
    assert KEY not in _decoded(path)
    replayed = _replayed(path, stream=True)
    assert KEY not in replayed
    assert tr("secret.reply_not_kept") in replayed  # the replay says why the reply is missing


def test_a_json_reply_spelling_the_key_with_escapes_is_blanked_in_place(tmp_path):
    body = json.dumps(
        {
            "id": "c",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "@@"},
                    "finish_reason": "stop",
                }
            ],
        }
    ).replace('"@@"', _u_escaped(f"your key is {KEY}"))
    path = tmp_path / "escaped.json"
    run(recording(_serving(body), path), stream=False)
    replayed = _replayed(path, stream=False)
    assert KEY not in _decoded(path) and KEY not in replayed
    assert '"your key is ***"' in replayed  # blanked, the rest of the reply kept


def test_a_stream_chunk_spelling_the_key_with_escapes_is_blanked_in_place(tmp_path):
    chunk = _chunk({"role": "assistant", "content": "@@"}).replace('"@@"', _u_escaped(KEY))
    path = tmp_path / "escaped-stream.json"
    run(recording(_serving(chunk + _chunk({}, "stop") + "data: [DONE]\n\n"), path))
    replayed = _replayed(path, stream=True)
    assert KEY not in _decoded(path) and KEY not in replayed
    assert '"***"' in replayed


def test_a_key_split_in_long_pieces_is_not_kept_rather_than_replayed_otherwise(tmp_path):
    """Two pieces of 15 characters are each blanked in their own chunk ("***" twice);
    the run read one key ("***" once). Such a reply is not kept: a replay that
    answered otherwise than the run would mislead."""
    pieces = [KEY[:15], KEY[15:]]
    stream = "".join(_chunk({"role": "assistant", "content": p}) for p in ["key: ", *pieces])
    stream += _chunk({"content": " end"}, "stop") + "data: [DONE]\n\n"
    path = tmp_path / "long-pieces.json"
    ran = run(recording(_serving(stream), path), stream=True)
    assert ran.answer == "key: *** end"
    replayed = _replayed(path, stream=True)
    assert KEY[:12] not in replayed and "******" not in replayed
    assert tr("secret.reply_not_kept") in replayed


def test_a_reply_nested_too_deep_is_recorded_and_the_run_goes_as_without_recording(tmp_path):
    """The recorder reads replies to look for the key; JSON nested thousands deep
    must not make it fail, and so change the run it records (a 503 is retried)."""

    def handle(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(503, content=b"data: " + b"[" * 100_000)

    def client() -> openai.OpenAI:
        return openai.OpenAI(
            api_key=KEY,
            base_url="https://example.invalid/v1",
            max_retries=0,
            http_client=httpx2.Client(transport=httpx2.MockTransport(handle)),
        )

    budget = Budget(max_steps=2, max_retries=2, retry_backoff_s=0.01)
    plain = run(client(), stream=False, budget=budget)
    path = tmp_path / "deep.json"
    recorded = run(recording(client(), path), stream=False, budget=budget)
    assert (recorded.stop_reason, recorded.model_requests) == (plain.stop_reason, 3)
    assert plain.model_requests == 3
    assert len(load_recording(path)["exchanges"]) == 3
