"""Record a run against a real provider once; replay it later without a key.

``recording(client, path)`` returns a copy of ``client`` whose HTTP transport
writes every exchange to ``path`` as it happens: each request's method, path
and JSON body; each response's status, a few headers and its bytes. Nothing
that authenticates is kept: no request header (the key travels in
``Authorization``), no query string, and the key each request sent is blanked
out (``***``) wherever a reader of a reply could still find it
(:meth:`Recorder.scrub_reply`). A reply that cannot be blanked in place is
not kept: the file holds an HTTP 400 saying so, and a replay ends there.

``ReplayClient(path)`` is an ``openai.OpenAI`` answered in process, like the
scripted client (an ``httpx2.MockTransport``), with the recorded bytes,
request by request: no key, no network. Each request is compared with the
recorded one; a :class:`Divergence` says which request and what differs
(``client.divergences``), and the replay goes on with the recorded reply (a
changed prompt should not stop a class). ``strict=True`` (for CI) answers a
diverging request with HTTP 400 instead, so the run ends ``model_error``
saying what changed. A request whose ``stream`` flag differs is refused either
way; a request body left out of the file (``null``) is not compared.

The file (``agentlab-recording/1``, UTF-8 JSON)::

    {"format": "agentlab-recording/1", "provider": "DeepSeek",
     "model": "deepseek-v4-flash", "base_url": "https://api.deepseek.com/v1",
     "run": {...},                      # optional: how `agentlab run` ran it
     "exchanges": [
       {"request": {"method": "POST", "path": "/v1/chat/completions", "body": {...}},
        "response": {"status": 200, "headers": {"content-type": ...},
                     "text": "data: {...}\\n\\n..."}},    # or "base64": ...
       {"request": {...}, "error": "timeout"}]}          # or "connection"

This module does not run agents; it only stands between a client and its service.
"""

from __future__ import annotations

import base64
import json
import os
import re
import threading
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
from openai import OpenAI

from ..i18n import reason, tr
from ..model.secrets import without_secret, without_secret_in
from .real import url_without_secrets

FORMAT = "agentlab-recording/1"
KEPT_HEADERS = ("content-type", "content-encoding", "retry-after", "retry-after-ms")
"""The only response headers written: others may name accounts or set cookies."""
REPLAY_BASE_URL = "http://replay.agentlab.invalid/v1"
SCRUBBED = "***"


class RecordingError(ValueError):
    """A recording file that cannot be replayed (the message says why)."""


# -- recording --------------------------------------------------------------------------


@dataclass
class Recorder:
    """The exchanges of one recording, written to ``path`` after each one."""

    path: Path
    header: dict[str, Any]
    secret: str | None = field(default=None, repr=False)
    exchanges: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def start(self, request: httpx2.Request) -> dict[str, Any]:
        """Note a request (its place in the file is kept even if it never ends)."""
        sent = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        if sent and not self.secret:  # e.g. a key given as a function, unknown until sent
            self.secret = sent
        body = self.scrub(_json_or_text(request.content))
        exchange = {"request": {"method": request.method, "path": request.url.path, "body": body}}
        with self.lock:
            self.exchanges.append(exchange)
            if self.header.get("model") is None and isinstance(body, dict):
                self.header["model"] = body.get("model")
        return exchange

    def finish(self, exchange: dict[str, Any], **outcome: Any) -> None:
        exchange.update(outcome)
        self.save()

    def response(
        self, status: int, headers: httpx2.Headers, raw: bytes, broken: bool
    ) -> dict[str, Any]:
        """A response as written: the kept headers, the bytes as text (or base64)."""
        kept = {name: headers[name] for name in KEPT_HEADERS if name in headers}
        record: dict[str, Any] = {"status": status, "headers": kept}
        try:
            text = self.scrub_reply(raw.decode("utf-8"))
        except UnicodeDecodeError:  # compressed or binary: kept exactly, unless it holds the key
            if self.holds_secret(raw):
                record["text"] = tr("replay.unreadable_body", size=len(raw))
            else:
                record["base64"] = base64.b64encode(raw).decode("ascii")
        else:
            if text is None:  # the key, split across a stream's chunks: the reply is not kept
                refusal = {"message": tr("secret.reply_not_kept"), "type": "recording"}
                text = json.dumps({"error": refusal}, ensure_ascii=False)
                record = {"status": 400, "headers": {"content-type": "application/json"}}
                broken = False  # nothing of the reply is kept, so nothing breaks off
            record["text"] = text
        if broken:
            record["broken"] = True  # the connection failed after these bytes
        return record

    def scrub_reply(self, text: str) -> str | None:
        """A reply's text with the key blanked out, also where only a reader would
        see it; ``None`` when it cannot be blanked out in place.

        First as written (the bytes stay as the service sent them). Then as a
        reader decodes it: if a JSON string still spells the key with escapes
        (``\\u002d``), each JSON value of the reply (the body, or each ``data:``
        line) is written anew from its blanked strings. Last, as a reader joins a
        stream's deltas: a key cut across chunks cannot be blanked in one chunk,
        so the reply is not kept at all (``None``); nor is one whose deltas, blanked
        chunk by chunk, would join into other text than the run read.
        """
        if not self.secret:
            return text
        as_read = [without_secret(joined, self.secret, SCRUBBED) for joined in _joined_deltas(text)]
        text = without_secret(text, self.secret, SCRUBBED)
        if self.decodes_to_secret(text):
            text = _rewritten(text, self.scrub)
        if _joined_deltas(text) != as_read:  # blanked chunk by chunk, it would replay otherwise
            return None
        return None if self.decodes_to_secret(text) else text

    def decodes_to_secret(self, text: str) -> bool:
        """Could a reader of this reply decode the key from it: from a JSON string
        with escapes undone, or from a stream's deltas joined?"""
        unescaped = JSON_ESCAPE.sub(_unescape, text)
        return any(
            without_secret(found, self.secret, "") != found
            for found in (text, unescaped, *_joined_deltas(text))
        )

    def holds_secret(self, raw: bytes) -> bool:
        """Do these bytes, or what they inflate to (gzip, zlib), hold the key in any spelling?"""
        if not self.secret:
            return False
        try:
            inflated = zlib.decompressobj(wbits=47).decompress(raw, 10_000_000)
        except zlib.error:
            inflated = b""
        return self.decodes_to_secret((raw + b"\n" + inflated).decode("utf-8", errors="replace"))

    def scrub(self, value: Any) -> Any:
        """``value`` with the key blanked out of every string in it (see :func:`without_secret`)."""
        return without_secret_in(value, self.secret, SCRUBBED) if self.secret else value

    def save(self) -> None:
        """Write the whole file anew (to a temporary name first: never half a file)."""
        with self.lock:
            document = {**self.header, "exchanges": list(self.exchanges)}
            text = json.dumps(document, ensure_ascii=False, indent=1)
            partial = self.path.with_name(self.path.name + ".partial")
            try:
                partial.write_text(text + "\n", encoding="utf-8")
                os.replace(partial, self.path)
            except OSError:
                partial.unlink(missing_ok=True)  # no half-written file left behind
                raise


class _Tee(httpx2.SyncByteStream):
    """Passes a response's bytes on as they arrive and keeps a copy."""

    def __init__(self, stream: Any, done: Any) -> None:
        self.stream, self.done = stream, done
        self.parts: list[bytes] = []
        self.broken = self.closed = False

    def __iter__(self) -> Iterator[bytes]:
        try:
            for part in self.stream:
                self.parts.append(part)
                yield part
        except Exception:
            self.broken = True
            raise

    def close(self) -> None:
        try:
            self.stream.close()
        finally:
            if not self.closed:
                self.closed = True
                self.done(b"".join(self.parts), self.broken)


class RecordingTransport(httpx2.BaseTransport):
    """An HTTP transport that records every exchange of the one it wraps."""

    def __init__(self, inner: httpx2.BaseTransport, recorder: Recorder) -> None:
        self.inner, self.recorder = inner, recorder
        self.keep_alive: Any = None

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        request.read()
        request.headers["accept-encoding"] = "identity"  # readable bytes in the file
        exchange = self.recorder.start(request)
        try:
            response = self.inner.handle_request(request)
        except httpx2.TimeoutException:
            self.recorder.finish(exchange, error="timeout")
            raise
        except httpx2.TransportError:
            self.recorder.finish(exchange, error="connection")
            raise

        def done(raw: bytes, broken: bool) -> None:
            status, headers = response.status_code, response.headers
            try:
                kept = self.recorder.response(status, headers, raw, broken)
            except Exception as exc:  # a recorder's bug must never change the run it records
                self.recorder.finish(exchange, error=f"recording failed: {type(exc).__name__}")
                return
            self.recorder.finish(exchange, response=kept)

        return httpx2.Response(
            response.status_code,
            headers=response.headers,
            stream=_Tee(response.stream, done),
            extensions=response.extensions,
            request=request,
        )

    def close(self) -> None:
        self.inner.close()


def recording(
    client: OpenAI, path: str | Path, *, provider: str | None = None, run: dict | None = None
) -> OpenAI:
    """A copy of ``client`` that records every request it makes to ``path``.

    ``provider`` names the service in the file (default: the host of the
    base URL); ``run`` is kept as it is (the CLI notes its options there).
    """
    header: dict[str, Any] = {
        "format": FORMAT,
        "provider": provider or httpx2.URL(str(client.base_url)).host,
        "model": None,
        "base_url": url_without_secrets(str(client.base_url)).rstrip("/"),
    }
    if run:
        header["run"] = run
    secret = client.api_key if isinstance(client.api_key, str) else None
    recorder = Recorder(Path(path), header, secret)
    recorder.save()  # the file exists at once, even if the run never reaches the service
    # The SDK keeps its HTTP client and that client its transport in private
    # attributes; without them (another SDK version) a plain transport is used.
    original = getattr(client, "_client", None)
    inner = getattr(original, "_transport", None) or httpx2.HTTPTransport()
    transport = RecordingTransport(inner, recorder)
    # Hold on to the SDK's own HTTP client: once garbage-collected it would close the
    # connections (the transport ``inner``) that this recording client now shares.
    transport.keep_alive = original
    http = httpx2.Client(transport=transport, follow_redirects=True)
    return client.with_options(http_client=http)


def _json_or_text(content: bytes) -> Any:
    try:
        return json.loads(content) if content else None
    except ValueError:
        return content.decode("utf-8", errors="replace")


JSON_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.DOTALL)


def _unescape(match: re.Match[str]) -> str:
    """One JSON escape (``\\u002d``, ``\\n``, ``\\/``) as the character it stands for;
    one JSON does not know, as the character after the backslash."""
    try:
        return json.loads(f'"{match.group(0)}"')
    except ValueError:
        return match.group(1)


def _data_lines(lines: list[str]) -> Iterator[tuple[int, Any]]:
    """(line number, JSON value) of each ``data:`` line of a stream (none for a plain reply)."""
    for number, line in enumerate(lines):
        if line.startswith("data:"):
            try:
                yield number, json.loads(line[len("data:") :])
            except (ValueError, RecursionError):  # [DONE], a line cut short, or too deep
                continue


def _joined_deltas(text: str) -> list[str]:
    """A stream's strings joined across its chunks, as a reader joins deltas: by
    where each sits (list items by their ``index``, as tool calls are joined), and
    by field name alone (a call sent without its ``index``)."""
    joined: dict[Any, str] = {}

    def walk(value: Any, where: tuple[Any, ...]) -> None:
        if isinstance(value, str):
            for key in (where, where[-1:]):
                joined[key] = joined.get(key, "") + value
        elif isinstance(value, dict):
            for name, item in value.items():
                walk(item, (*where, name))
        elif isinstance(value, list):
            for position, item in enumerate(value):
                index = item.get("index") if isinstance(item, dict) else None
                walk(item, (*where, index if isinstance(index, int) else position))

    for _, payload in _data_lines(text.splitlines()):
        walk(payload, ())
    return list(joined.values())


def _rewritten(text: str, clean: Any) -> str:
    """``text`` with each JSON value in it (the whole body, or each ``data:`` line
    of a stream) written anew from ``clean(value)``."""
    try:
        return json.dumps(clean(json.loads(text)), ensure_ascii=False)
    except (ValueError, RecursionError):
        pass
    lines = text.split("\n")
    for number, value in list(_data_lines(lines)):
        end = "\r" if lines[number].endswith("\r") else ""
        lines[number] = "data: " + json.dumps(clean(value), ensure_ascii=False) + end
    return "\n".join(lines)


# -- replaying --------------------------------------------------------------------------

_ABSENT = object()


@dataclass(frozen=True)
class Divergence:
    """Request ``number`` (1 = the first) of a replay differs from the recording."""

    number: int
    where: str
    """Where in the request body, e.g. ``messages[1].content``."""
    recorded: Any
    replayed: Any

    @property
    def message(self) -> str:
        recorded, replayed = self.recorded, self.replayed
        if isinstance(recorded, str) and isinstance(replayed, str):
            recorded, replayed = _from_first_change(recorded, replayed)
        return tr(
            "replay.diverged",
            number=self.number,
            where=self.where,
            recorded=_shown(recorded),
            replayed=_shown(replayed),
        )


def _from_first_change(recorded: str, replayed: str) -> tuple[str, str]:
    """Two texts that start alike, cut to begin just before they differ: shown
    from the start, both would be cut off before the difference."""
    same = len(os.path.commonprefix([recorded, replayed]))
    if same <= 40:
        return recorded, replayed
    start = same - 20
    return "…" + recorded[start:], "…" + replayed[start:]


def first_difference(recorded: Any, replayed: Any, where: str = "") -> tuple[str, Any, Any] | None:
    """The first place two JSON values differ: ``(path, recorded, replayed)``, or ``None``."""
    if isinstance(recorded, dict) and isinstance(replayed, dict):
        place = "{where}.{key}"
    elif isinstance(recorded, list) and isinstance(replayed, list):
        place = "{where}[{key}]"
        recorded, replayed = dict(enumerate(recorded)), dict(enumerate(replayed))
    else:
        same = type(recorded) is type(replayed) and recorded == replayed
        return None if same else (where.lstrip(".") or "$", recorded, replayed)
    for key in list(recorded) + [k for k in replayed if k not in recorded]:
        a, b = recorded.get(key, _ABSENT), replayed.get(key, _ABSENT)
        found = first_difference(a, b, place.format(where=where, key=key))
        if found:
            return found
    return None


def _shown(value: Any) -> str:
    if value is _ABSENT:
        return tr("replay.absent")
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def load_recording(source: str | Path | dict[str, Any]) -> dict[str, Any]:
    """A recording, from its file (or as already loaded); :class:`RecordingError` if unusable."""
    if isinstance(source, dict):
        document = source
    else:
        try:
            document = json.loads(Path(source).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
            # RecursionError: "[[[[…" nested deeper than Python's JSON reader follows
            why = tr("provider.json_too_deep") if isinstance(exc, RecursionError) else reason(exc)
            raise RecordingError(tr("replay.bad_file", path=str(source), reason=why)) from None
    usable = isinstance(document, dict) and document.get("format") == FORMAT
    if not usable or not isinstance(document.get("exchanges"), list):
        raise RecordingError(tr("replay.not_a_recording", path=str(source), format=FORMAT))
    return document


def corpus_recording(name: str, answer: str | None = None) -> dict[str, Any]:
    """A recording made of one reply a real provider sent, from the course's corpus.

    ``name`` is ``"<provider>/<transcript>"`` under ``agentlab/data/providers``
    (e.g. ``"deepseek/deepseek-v4-flash-tool-call-stream"``; provenance in each
    file's ``source``). The first request is answered with the recorded
    bytes, whatever it says (its body is not compared). ``answer``, if given,
    answers a second request with that text — CONSTRUCTED, not recorded, so
    that a run can finish after the recorded tool call.
    """
    from ..tools.sales import COURSE_DATA_DIR
    from .script import Reply
    from .wire import Chunking, completion_body, sse, stream_chunks

    path = COURSE_DATA_DIR / "providers" / f"{name}.json"
    try:
        transcript = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise RecordingError(tr("replay.no_transcript", name=name)) from None
    recorded = transcript["response"]
    streamed = "sse" in recorded
    kind = "text/event-stream" if streamed else "application/json"

    def answered(status: int, text: str) -> dict[str, Any]:
        response = {"status": status, "headers": {"content-type": kind}, "text": text}
        return {"request": {"body": None}, "response": response}

    text = recorded["sse"] if streamed else json.dumps(recorded["body"], ensure_ascii=False)
    exchanges = [answered(recorded["status"], text)]
    if answer is not None:
        body = completion_body(Reply(content=answer), 2, transcript["model"], 0)
        text = sse(stream_chunks(body, Chunking(), True)).decode() if streamed else json.dumps(body)
        exchanges.append(answered(200, text))
    return {
        "format": FORMAT,
        "provider": transcript["provider"],
        "model": transcript["model"],
        "source": transcript["source"],
        "exchanges": exchanges,
    }


@dataclass
class Replayer:
    """Answers request n with the recorded response n, noting where requests differ."""

    recording: dict[str, Any]
    strict: bool = False
    requests: list[Any] = field(default_factory=list)
    divergences: list[Divergence] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        body = _json_or_text(request.content)
        exchanges = self.recording["exchanges"]
        with self.lock:
            self.requests.append(body)
            number = len(self.requests)
        if number > len(exchanges):
            return _refusal(tr("replay.ran_out", number=number, count=len(exchanges)))
        exchange = exchanges[number - 1] if isinstance(exchanges[number - 1], dict) else {}
        recorded = (exchange.get("request") or {}).get("body")
        found = None if recorded is None else first_difference(recorded, body)
        if found:
            divergence = Divergence(number, *found)
            with self.lock:
                self.divergences.append(divergence)
            if self.strict or _streamed(recorded) != _streamed(body):
                return _refusal(divergence.message)
        response = exchange.get("response")
        if not isinstance(response, dict):
            error = exchange.get("error") or "-"
            failure = httpx2.ReadTimeout if error != "connection" else httpx2.ConnectError
            raise failure(tr("replay.recorded_error", number=number, error=error), request=request)
        if "base64" in response:
            content = base64.b64decode(response["base64"])
        else:
            content = str(response.get("text", "")).encode("utf-8")
        if response.get("broken"):
            content = _then_broken(content)
        headers = response.get("headers") or {}
        return httpx2.Response(response.get("status", 200), headers=headers, content=content)


def _then_broken(content: bytes) -> Iterator[bytes]:
    """The recorded bytes, then the same failure the connection had."""
    yield content
    raise httpx2.ReadError("the recorded connection broke here")


def _streamed(body: Any) -> bool:
    return isinstance(body, dict) and bool(body.get("stream"))


def _refusal(message: str) -> httpx2.Response:
    return httpx2.Response(400, json={"error": {"message": message, "type": "replay"}})


class ReplayClient(OpenAI):
    """An ``openai.OpenAI`` that answers from a recording: no key, no network.

    ``client.divergences`` lists where the requests differed from the
    recording; ``client.model``, ``client.task`` and ``client.stream`` say
    how the recorded run was asked, so it can be asked the same way again.
    """

    def __init__(
        self,
        recording: str | Path | dict[str, Any] | None = None,
        *,
        strict: bool = False,
        replayer: Replayer | None = None,
        **options: Any,
    ) -> None:
        if replayer is None:
            if recording is None:
                raise TypeError(tr("replay.needs_recording"))
            replayer = Replayer(load_recording(recording), strict)
        self.replayer = replayer
        options.setdefault("api_key", "replay-no-key")
        options.setdefault("base_url", REPLAY_BASE_URL)
        options.setdefault("max_retries", 0)  # request counts stay honest; retries are the loop's
        if options.get("http_client") is None:
            options["http_client"] = httpx2.Client(transport=httpx2.MockTransport(replayer.handle))
        super().__init__(**options)

    def copy(self, **options: Any) -> ReplayClient:
        """A client with other SDK options, answered from the same recording."""
        extra = {**options.pop("_extra_kwargs", {}), "replayer": self.replayer}
        return super().copy(**options, _extra_kwargs=extra)

    with_options = copy

    @property
    def divergences(self) -> list[Divergence]:
        return self.replayer.divergences

    @property
    def recording(self) -> dict[str, Any]:
        return self.replayer.recording

    def _first_body(self) -> dict[str, Any]:
        exchanges = self.recording["exchanges"]
        body = ((exchanges[0] if exchanges else {}).get("request") or {}).get("body")
        return body if isinstance(body, dict) else {}

    @property
    def model(self) -> str:
        """The model the recorded run asked for."""
        return str(self.recording.get("model") or self._first_body().get("model") or "")

    @property
    def task(self) -> str | None:
        """The recorded run's task: the last user message of its first request."""
        users = [m for m in self._first_body().get("messages") or [] if m.get("role") == "user"]
        content = users[-1].get("content") if users else None
        return content if isinstance(content, str) else None

    @property
    def stream(self) -> bool:
        return _streamed(self._first_body())

    def __repr__(self) -> str:
        provider = self.recording.get("provider")
        return f"ReplayClient({provider!r}, {self.model!r}, requests={len(self.replayer.requests)})"
