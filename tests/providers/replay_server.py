"""A loopback HTTP server that answers with given bytes, one reply per request.

``TranscriptServer([first, second, ...])`` answers its n-th POST with the n-th
:class:`Canned` reply (or with what a callable entry returns for the request
body); a request past the end gets a 500. It keeps every request it received
(the JSON body and the ``Authorization`` header) and exactly the bytes it sent,
so tests can read the follow-up request a provider would get, and compare a
recording with what was really on the wire.

It listens on 127.0.0.1 only, on a port the OS picks, and is always shut down
when used as a context manager. :func:`canned` serves a transcript of the
corpus as it was recorded; :func:`final_answer` is a constructed (not
recorded) closing answer for a run's last request.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

from agentlab.clients.script import Reply
from agentlab.clients.wire import Chunking, completion_body, sse, stream_chunks

from ..loopback import LoopbackServer


@dataclass(frozen=True)
class Canned:
    """One reply: status, content type and the exact bytes of the body."""

    status: int
    content_type: str
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()
    """More response headers (e.g. a ``content-encoding`` the body does not have)."""


Entry = Canned | Callable[[dict[str, Any]], Canned]


def canned(transcript: dict[str, Any]) -> Canned:
    """A corpus transcript's response, as the provider sent it."""
    response = transcript["response"]
    if transcript["stream"]:
        return Canned(response["status"], "text/event-stream", response["sse"].encode("utf-8"))
    if isinstance(response["body"], str):  # not JSON: e.g. a gateway's HTML page
        kind = response.get("headers", {}).get("content-type", "text/plain")
        return Canned(response["status"], kind, response["body"].encode("utf-8"))
    body = json.dumps(response["body"], ensure_ascii=False).encode("utf-8")
    return Canned(response["status"], "application/json", body)


def final_answer(text: str) -> Callable[[dict[str, Any]], Canned]:
    """CONSTRUCTED, not recorded: a plain closing answer, streamed if the request asks."""

    def reply(request: dict[str, Any]) -> Canned:
        body = completion_body(Reply(content=text), 99, request.get("model", ""), 10)
        if request.get("stream"):
            return Canned(200, "text/event-stream", sse(stream_chunks(body, Chunking(), True)))
        return Canned(200, "application/json", json.dumps(body, ensure_ascii=False).encode())

    return reply


class TranscriptServer(LoopbackServer):
    def __init__(self, replies: list[Entry]) -> None:
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []
        self.authorizations: list[str | None] = []
        self.sent: list[bytes] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with server.lock:
                    number = len(server.requests)
                    server.requests.append(body)
                    server.authorizations.append(self.headers.get("authorization"))
                    entry = server.replies[number] if number < len(server.replies) else None
                if entry is None:
                    reply = Canned(500, "application/json", b'{"error": {"message": "no more"}}')
                else:
                    reply = entry if isinstance(entry, Canned) else entry(body)
                with server.lock:
                    server.sent.append(reply.body)
                self.send_response(reply.status)
                self.send_header("content-type", reply.content_type)
                self.send_header("content-length", str(len(reply.body)))
                for name, value in reply.headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(reply.body)

        self.listen(Handler)


Part = bytes | float
"""A piece of a streamed body, or a pause in seconds before the next one."""


class StreamServer(LoopbackServer):
    """Answers every POST with an SSE body sent piece by piece, as a slow server does.

    ``parts`` are written in order (a float is a pause); then, with ``beat``, the
    connection stays open and a keep-alive comment (``: ping``) follows every
    ``beat`` seconds, the way a server that never closes its stream behaves; without
    ``beat`` it just stays silent. Either way the handler gives up after
    ``hold`` seconds, or when the server stops. HTTP/1.0: the body ends when the
    connection closes, as it does for a server that sends no length.
    """

    def __init__(self, parts: list[Part], beat: float | None = None, hold: float = 0.0) -> None:
        self.parts, self.beat, self.hold = list(parts), beat, hold
        self.requests: list[dict[str, Any]] = []
        self.stopping = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                server.requests.append(json.loads(self.rfile.read(length) or b"{}"))
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()
                try:
                    for part in server.parts:
                        if isinstance(part, float):
                            server.stopping.wait(part)
                        else:
                            self.wfile.write(part)
                            self.wfile.flush()
                    waited = 0.0
                    while waited < server.hold and not server.stopping.is_set():
                        step = server.beat or 0.05
                        server.stopping.wait(step)
                        waited += step
                        if server.beat:
                            self.wfile.write(b": ping\n\n")
                            self.wfile.flush()
                except OSError:  # the client stopped reading and closed: as a real one may
                    pass

        self.listen(Handler)

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        super().__exit__(*exc)
