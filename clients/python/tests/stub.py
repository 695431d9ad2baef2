"""A tiny scripted HTTP server for what a real rearview rarely does (shed load, stall)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Stub:
    """Answers requests from ``script``: ``(status, headers, body, delay)`` each, the last one
    repeated; records ``(time, method, path, body)`` of every request in ``requests``."""

    def __init__(self, script: list[tuple[int, dict[str, str], Any, float]]) -> None:
        self.script = list(script)
        self.requests: list[tuple[float, str, str, Any]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def handle_one(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                stub.requests.append(
                    (time.monotonic(), self.command, self.path, json.loads(raw) if raw else None)
                )
                status, headers, body, delay = (
                    stub.script.pop(0) if len(stub.script) > 1 else stub.script[0]
                )
                time.sleep(delay)
                data = json.dumps(body).encode()
                try:
                    self.send_response(status)
                    for name, value in {"Content-Type": "application/json", **headers}.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout tests)

            do_GET = do_POST = do_PATCH = do_DELETE = handle_one

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Stub:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def gaps(self) -> list[float]:
        """Seconds between consecutive requests."""
        times = [r[0] for r in self.requests]
        return [b - a for a, b in zip(times, times[1:], strict=False)]
