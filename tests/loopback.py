"""A local HTTP server on a free port, served from a thread for a ``with`` block.

The base of the test servers (``tests/fault_server.py``,
``tests/providers/replay_server.py``): they supply the request handler and
what it answers; this holds the socket, the thread and the ``base_url`` the
openai SDK is pointed at. It does nothing else.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self


class LoopbackServer:
    def listen(self, handler: type[BaseHTTPRequestHandler]) -> None:
        """Bind ``127.0.0.1`` on a free port; requests go to ``handler`` once entered."""
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)
