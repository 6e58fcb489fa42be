"""A small OpenAI-compatible service on 127.0.0.1 that fails on request.

``FaultServer(["429:0.05", "500", "ok"])`` answers its first request with a
429 (``Retry-After-Ms: 50``), the second with a 500, and every later one
normally. Faults:

==========  =============================================================
``ok``      a chat completion whose text names the request number
``hang``    reads the request, then says nothing until the test ends
``trickle`` sends headers and then one byte of a valid body per 50 ms
``429:S``   429 with ``Retry-After`` (seconds S; ``429:Sms`` for ms)
``500``     500 with a JSON error
``401``     401 whose error message echoes the key it was sent
``reset``   reads the request, then resets the connection (TCP RST)
``close``   reads the request, then closes the connection without a word
``banner``  reads the request, then answers with a line that is not HTTP (an SSH server's)
``drop``    200 whose chunked body stops halfway: the connection closes mid-reply
``page``    200 with a web page (a ``base_url`` pointing at a site; ``page:json``: labelled JSON)
``cut``     200 with a JSON body cut short (complete as HTTP, broken as JSON)
``error200`` 200 with a JSON error naming the model (``error200:NNN``: with code NNN)
``NNN``     any other HTTP status (403, 404, 400 ...) with a JSON error
==========  =============================================================

Everything is bounded: hanging and trickling handlers wake up when the
server stops (or after 10 s) and the server listens on loopback only, on a
port the OS picks. Used as a context manager it is always shut down.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from http.server import BaseHTTPRequestHandler

from agentlab.clients.script import Reply
from agentlab.clients.wire import Chunking, completion_body, prompt_tokens, sse, stream_chunks

from .loopback import LoopbackServer

MAX_WAIT_S = 10.0


def completion(text: str, stream: bool, request: dict) -> bytes:
    """A normal reply, built the way the scripted service builds its own."""
    body = completion_body(Reply(content=text), 0, request.get("model", ""), prompt_tokens(request))
    if not stream:
        return json.dumps(body).encode()
    return sse(stream_chunks(body, Chunking(), include_usage=False))


class FaultServer(LoopbackServer):
    def __init__(self, faults: list[str] | None = None) -> None:
        self.faults = list(faults or [])
        self.requests: list[dict] = []
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with server.lock:
                    number = len(server.requests) + 1
                    fault = server.faults.pop(0) if server.faults else "ok"
                    server.requests.append(
                        {
                            "number": number,
                            "fault": fault,
                            "body": body,
                            "authorization": self.headers.get("authorization"),
                        }
                    )
                server.handle(self, fault, number, body)

        self.listen(Handler)

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()  # wakes hanging and trickling handlers
        super().__exit__(*exc)

    def handle(self, h: BaseHTTPRequestHandler, fault: str, number: int, request: dict) -> None:
        stream = bool(request.get("stream"))
        kind, _, arg = fault.partition(":")
        if kind == "ok":
            self.send(h, 200, completion(f"pong {number}", stream, request), stream)
        elif kind == "hang":
            self.stopping.wait(MAX_WAIT_S)
            h.close_connection = True
        elif kind == "trickle":
            body = completion(f"pong {number}", stream, request)
            h.send_response(200)
            h.send_header("content-type", "text/event-stream" if stream else "application/json")
            h.send_header("content-length", str(len(body)))
            h.end_headers()
            started = time.monotonic()
            for byte in body:
                if self.stopping.wait(0.05) or time.monotonic() - started > MAX_WAIT_S:
                    break
                try:
                    h.wfile.write(bytes([byte]))
                    h.wfile.flush()
                except OSError:  # the client gave up
                    break
            h.close_connection = True
        elif kind == "429":
            header = ("retry-after-ms", arg[:-2]) if arg.endswith("ms") else ("retry-after", arg)
            self.send_error_json(h, 429, "rate limited", header if arg else None)
        elif kind == "500":
            self.send_error_json(h, 500, "internal error")
        elif kind == "401":
            key = (h.headers.get("authorization") or "").removeprefix("Bearer ")
            self.send_error_json(h, 401, f"Incorrect API key provided: {key}")
        elif kind == "reset":
            h.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            h.close_connection = True
            h.connection.close()
        elif kind == "close":  # no reply at all: e.g. a port that is not the API's
            h.close_connection = True
        elif kind == "banner":  # not HTTP at all: base_url at another service's port
            h.wfile.write(b"SSH-2.0-OpenSSH_9.6\r\n\r\n")
            h.close_connection = True
        elif kind == "drop":  # the reply begins, then the server closes the connection
            body = completion(f"pong {number}", stream, request)
            h.send_response(200)
            h.send_header("content-type", "text/event-stream" if stream else "application/json")
            h.send_header("transfer-encoding", "chunked")
            h.end_headers()
            part = body[: len(body) // 2]
            h.wfile.write(f"{len(part):x}\r\n".encode() + part + b"\r\n")
            h.wfile.flush()
            h.close_connection = True  # no closing chunk: the body is never complete
        elif kind == "page":
            page = "<!DOCTYPE html><html><head><title>Model Studio</title></head><body>hi</body>"
            h.send_response(200)
            label = "application/json" if arg == "json" else "text/html; charset=utf-8"
            h.send_header("content-type", label)
            h.send_header("content-length", str(len(page)))
            h.end_headers()
            h.wfile.write(page.encode())
        elif kind == "cut":
            body = completion(f"pong {number}", False, request)
            self.send(h, 200, body[: len(body) // 2], False)
        elif kind == "error200":  # a gateway that reports a failure with HTTP 200
            error = {"message": f"The model `{request.get('model')}` does not exist"}
            if arg:
                error["code"] = int(arg)
            self.send(h, 200, json.dumps({"error": error}).encode(), False)
        elif kind.isdigit():
            self.send_error_json(h, int(kind), f"fault {kind}")
        else:
            raise ValueError(f"unknown fault {fault!r}")

    def send(
        self,
        h: BaseHTTPRequestHandler,
        status: int,
        body: bytes,
        stream: bool,
        header: tuple[str, str] | None = None,
    ) -> None:
        h.send_response(status)
        h.send_header("content-type", "text/event-stream" if stream else "application/json")
        h.send_header("content-length", str(len(body)))
        if header:
            h.send_header(*header)
        h.end_headers()
        h.wfile.write(body)

    def send_error_json(
        self,
        h: BaseHTTPRequestHandler,
        status: int,
        message: str,
        header: tuple[str, str] | None = None,
    ) -> None:
        body = json.dumps({"error": {"message": message, "type": "fault", "code": status}})
        self.send(h, status, body.encode(), False, header)
