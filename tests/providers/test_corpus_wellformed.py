"""The provider transcript corpus is well formed: fields, provenance, SDK shapes, size.

Each file under ``agentlab/data/providers/<provider>/`` holds one response a real service sent (see
README.md for the format). These tests check the files themselves and that the real
``openai`` SDK can be fed them over a mock transport. They deliberately do not run
agentlab: replaying the corpus through the agent loop is a separate test.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx2
import openai
import pydantic
import pytest
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from agentlab.tools.sales import COURSE_DATA_DIR

from ..conftest import plain_client

HERE = Path(__file__).parent

# Every transcript is committed here. Each was copied from text read through the search
# index's file look-ups or from an issue thread, never from a fetched repository snapshot
# (whose data may not be committed); `retrieved` says which.
FILES = sorted((COURSE_DATA_DIR / "providers").glob("*/*.json"))
IDS = [f"{f.parent.name}/{f.stem}" for f in FILES]
RETRIEVED = {"search index (read_file)", "search index (issues corpus)"}
# Error transcripts carry expect.error instead of an assembled reply.
ERRORS = [f for f in FILES if "error" in json.loads(f.read_text(encoding="utf-8"))["expect"]]
REPLIES = [f for f in FILES if f not in ERRORS]
EXPECT_KEYS = {"content", "reasoning", "tool_calls", "finish_reason", "usage"}
USAGE_KEYS = {"prompt_tokens", "completion_tokens", "total_tokens"}


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def sse_events(sse: str) -> list[tuple[str | None, str]]:
    """(event, data) per SSE event, following the SSE rules for 'data:' and comments."""
    events = []
    for block in re.split(r"\r?\n\r?\n", sse):
        event, data = None, []
        for line in block.splitlines():
            if line.startswith(":"):
                continue
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[6:] if line[5:6] == " " else line[5:])
        if data:
            events.append((event, "\n".join(data)))
    return events


def is_error(t: dict) -> bool:
    return "error" in t["expect"]


def ids(files: list[Path]) -> list[str]:
    return [f"{f.parent.name}/{f.stem}" for f in files]


@pytest.fixture(params=FILES, ids=IDS)
def transcript(request) -> dict:
    return load(request.param) | {"_path": request.param}


@pytest.fixture(params=REPLIES, ids=ids(REPLIES))
def reply(request) -> dict:
    return load(request.param)


@pytest.fixture(params=ERRORS, ids=ids(ERRORS))
def failure(request) -> dict:
    return load(request.param)


def test_required_fields_and_provenance(transcript):
    t = transcript
    assert t["provider"] == t["_path"].parent.name
    assert isinstance(t["model"], str)
    assert isinstance(t["stream"], bool)
    assert t["kind"] in {"recorded", "documented_example"}
    assert isinstance(t["notes"], str) and len(t["notes"]) > 20
    assert isinstance(t["quirks"], list) and t["quirks"]
    source = t["source"]
    assert source["url"].startswith("https://")
    assert t["retrieved"] in RETRIEVED
    if "repo" in source:
        assert re.fullmatch(r"[0-9a-f]{40}", source["commit"])
        assert source["path"] and source["repo"].count("/") == 1
        assert source["commit"] in source["url"] and source["path"] in source["url"]
        assert t["retrieved"] == "search index (read_file)"
    elif t["kind"] == "documented_example":  # the provider's docs page, and where in it
        assert source["locator"] and t["retrieved"] == "search index (read_file)"
    else:
        assert "/issues/" in source["url"] or "/pull/" in source["url"]
    if t["kind"] == "documented_example":
        assert "document" in t["notes"].lower()


def test_response_shape(transcript):
    t, r = transcript, transcript["response"]
    assert isinstance(r["status"], int)
    assert set(r.get("headers", {})) <= {"content-type", "retry-after"}
    if t["stream"]:
        assert r["status"] == 200 and isinstance(r["sse"], str)
        assert t["sse_framing"] in {"recorded", "reconstructed"}
        events = sse_events(r["sse"])
        assert events, "no SSE data events"
        if not is_error(t):
            assert events[-1][1] == "[DONE]" and r["sse"].endswith("data: [DONE]\n\n")
        assert all(data != "[DONE]" for _, data in events[:-1])
    else:
        assert "body" in r and "sse" not in r
        if isinstance(r["body"], str):  # not JSON: a gateway's page, served as it came
            assert r["headers"]["content-type"] == "text/html" and r["status"] >= 500


def test_sdk_validation(reply):
    """Bodies and chunks validate as SDK models, or the file says why not (and that holds)."""
    t = reply
    if t["stream"]:
        items = [json.loads(d) for ev, d in sse_events(t["response"]["sse"]) if d != "[DONE]"]
        model = ChatCompletionChunk
    else:
        items, model = [t["response"]["body"]], ChatCompletion
    failures = []
    for item in items:
        try:
            model.model_validate(item)
        except pydantic.ValidationError as exc:
            failures.append(exc)
        model.construct(**item)  # the SDK itself builds responses without validating
    strict = t.get("sdk_validation", {"strict": True})
    if strict["strict"]:
        assert not failures, failures[0]
    else:
        assert strict["why"] and failures, "declared loose but validates strictly: drop the flag"


def test_error_bodies(failure):
    t = failure
    err = t["expect"]["error"]
    if t["stream"]:  # the reply began (HTTP 200), then a chunk carried the error
        assert err.get("during_stream") is True and err["status"] == t["response"]["status"] == 200
        chunks = [json.loads(d) for _, d in sse_events(t["response"]["sse"]) if d != "[DONE]"]
        errors = [c["error"] for c in chunks if "error" in c]
        assert len(errors) == 1 and errors[0].get("message")
        assert errors[0].get("code") == err["code"]
        return
    body = t["response"]["body"]
    assert t["response"]["status"] == err["status"]
    if err.get("in_body"):  # HTTP 200, no choices, the outcome in MiniMax's base_resp
        assert err["status"] == 200 and not body.get("choices") and "error" not in body
        assert body["base_resp"]["status_code"] == err["code"] != 0
        assert body["base_resp"]["status_msg"]
        return
    assert isinstance(err["status"], int) and err["status"] >= 400
    if isinstance(body, str):
        assert "<title>" in body and err["code"] is None
        return
    objects = body if isinstance(body, list) else [body]
    for obj in objects:
        detail = obj.get("error", obj)  # vLLM sends a flat {"object": "error", ...}
        assert detail.get("message")
        assert detail.get("code") == err["code"]


def test_expect_shape_and_consistency(reply):
    t = reply
    e = t["expect"]
    assert EXPECT_KEYS <= set(e)
    assert e["content"] is None or (isinstance(e["content"], str) and e["content"].strip())
    assert e["reasoning"] is None or isinstance(e["reasoning"], str)
    for call in e["tool_calls"]:
        assert set(call) == {"id", "name", "arguments"}
        assert call["name"] and isinstance(call["arguments"], dict)
    if e["usage"] is not None:
        assert set(e["usage"]) == USAGE_KEYS
    names = [c["name"] for c in e["tool_calls"]]
    if t["stream"]:
        chunks = [json.loads(d) for _, d in sse_events(t["response"]["sse"]) if d != "[DONE]"]
        deltas = [ch["delta"] for c in chunks for ch in c.get("choices") or []]
        seen = [
            tc["function"]["name"]
            for d in deltas
            for tc in d.get("tool_calls") or []
            if (tc.get("function") or {}).get("name")
        ]
        seen += [d["function_call"]["name"] for d in deltas if "name" in d.get("function_call", {})]
        finishes = [ch.get("finish_reason") for c in chunks for ch in c.get("choices") or []]
        finishes = [f for f in finishes if f]
        assert seen == names
        assert (finishes[-1] if finishes else None) == e["finish_reason"]
    else:
        choice = t["response"]["body"]["choices"][0]
        message = choice["message"]
        sent = [tc["function"]["name"] for tc in message.get("tool_calls") or []]
        if message.get("function_call"):
            sent.append(message["function_call"]["name"])
        if e.get("calls_from_text"):  # the calls are written into content, none as tool_calls
            assert not sent and all(f'"{name}"' in message["content"] for name in names)
        else:
            assert sent == names
        assert choice["finish_reason"] == e["finish_reason"]
    if "follow_up" in e:
        assert e["follow_up"]["assistant_message_must_carry"]
        assert e["follow_up_source"].startswith("https://")


def test_the_real_sdk_takes_every_transcript(transcript):
    """Served over a mock transport, the openai SDK parses each one (or raises its error)."""
    t, r = transcript, transcript["response"]

    def handler(request: httpx2.Request) -> httpx2.Response:
        if t["stream"]:
            headers = {"content-type": "text/event-stream"}
            return httpx2.Response(r["status"], headers=headers, content=r["sse"].encode())
        if isinstance(r["body"], str):
            return httpx2.Response(r["status"], headers=r["headers"], content=r["body"].encode())
        return httpx2.Response(r["status"], json=r["body"])

    client = plain_client(handler)
    ask = {"model": t["model"] or "m", "messages": [{"role": "user", "content": "hi"}]}
    if is_error(t) and t["expect"]["error"].get("in_body"):  # HTTP 200: the SDK raises nothing
        assert client.chat.completions.create(**ask).choices is None
        return
    if is_error(t):
        with pytest.raises(openai.APIError):
            if t["stream"]:
                list(client.chat.completions.create(stream=True, **ask))
            else:
                client.chat.completions.create(**ask)
        return
    if t["stream"]:
        chunks = list(client.chat.completions.create(stream=True, **ask))
        assert len(chunks) == len([d for _, d in sse_events(r["sse"]) if d != "[DONE]"])
    else:
        reply = client.chat.completions.create(**ask)
        assert reply.choices[0].finish_reason == t["expect"]["finish_reason"]


def test_ids_are_unique():
    assert len(set(IDS)) == len(IDS)


def test_corpus_size_and_spread():
    corpus = [load(f) for f in FILES]
    providers = {t["provider"] for t in corpus}
    assert len(corpus) >= 24
    assert len(providers) >= 8
    streamed = {t["provider"] for t in corpus if t["stream"]}
    plain = {t["provider"] for t in corpus if not t["stream"]}
    assert len(streamed & plain) >= 6, "most providers need both a streamed and a plain reply"
    assert sum(t["kind"] == "recorded" for t in corpus) >= 24
    wanted = {
        "openai",
        "deepseek",
        "qwen-dashscope",
        "gemini-openai",
        "mistral",
        "groq",
        "ollama",
        "vllm",
        "llamacpp",
    }
    assert wanted <= providers, sorted(wanted - providers)


def test_corpus_covers_the_quirks_issue_14_names():
    """The replies the loop must get right are all here at least once."""
    corpus = [load(f) for f in FILES]

    def has(quirk: str, provider: str | None = None) -> bool:
        return any(quirk in t["quirks"] and provider in (None, t["provider"]) for t in corpus)

    thinking_calls = [
        t
        for t in corpus
        if t["provider"] == "deepseek"
        and not is_error(t)
        and t["expect"]["reasoning"]
        and t["expect"]["tool_calls"]
    ]
    assert {t["stream"] for t in thinking_calls} == {True, False}
    assert has("thought_signature_on_tool_call", "gemini-openai")
    assert has("typed_content_parts", "mistral")
    assert has("legacy_function_call")
    assert has("fragment_without_index")
    assert has("reasoning_content", "qwen-dashscope")


def test_readme_lists_every_transcript():
    """The README table names every committed transcript, and nothing else."""
    readme = (HERE / "README.md").read_text(encoding="utf-8")
    missing = [i for i in IDS if f"`{i}`" not in readme]
    assert not missing, missing
    rows = re.findall(r"^\| `([\w.-]+/[\w.-]+)` \|", readme, re.M)
    assert sorted(rows) == sorted(IDS)
