"""Fixtures: real ``rearview serve`` processes on free ports with temporary databases.

The binary is ``$REARVIEW_BIN``, else ``rearview`` on the PATH, else the repository's own build
(``target/release`` or ``target/debug`` two levels up, where this package lives as
``clients/python``). Servers run keyword-only (``--model none``).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

from rearview_client import AsyncClient, Client

HERE = Path(__file__).resolve().parent
ADMIN_KEY = "rv-test-admin-" + "0" * 32


def rearview_bin() -> str:
    candidates = [
        os.environ.get("REARVIEW_BIN"),
        shutil.which("rearview"),
        str(HERE.parents[2] / "target" / "release" / "rearview"),
        str(HERE.parents[2] / "target" / "debug" / "rearview"),
    ]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise RuntimeError("no rearview binary: set REARVIEW_BIN to a built `rearview`")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    url: str
    db: Path
    process: subprocess.Popen[bytes]
    log: Path
    keys: dict[str, str] = field(default_factory=dict)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def create_key(db: Path, *namespaces: str) -> str:
    args = [rearview_bin(), "--model", "none", "--db", str(db), "keys", "create", "--json"]
    for namespace in namespaces:
        args += ["--namespace", namespace]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return json.loads(out)["key"]


def start_server(directory: Path, *args: str, env: dict[str, str] | None = None) -> Server:
    directory.mkdir(parents=True, exist_ok=True)
    db, log = directory / "m.db", directory / "server.log"
    port = free_port()
    command = [rearview_bin(), "--model", "none", "--db", str(db), "serve"]
    command += ["--listen", f"127.0.0.1:{port}", "--sweep-interval", "0", *args]
    with open(log, "wb") as out:
        process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})}
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"rearview serve exited: {log.read_text()}")
        try:
            if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                return Server(url, db, process, log)
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    process.kill()
    raise RuntimeError(f"rearview serve did not come up: {log.read_text()}")


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """An open server: no keys, loopback, so anonymous callers are trusted."""
    s = start_server(tmp_path_factory.mktemp("open"))
    yield s
    s.stop()


@pytest.fixture(scope="session")
def keyed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server that requires keys: ``keys["alice"]`` grants namespace alice only,
    ``keys["admin"]`` every namespace."""
    directory = tmp_path_factory.mktemp("keyed")
    alice = create_key(directory / "m.db", "alice")
    s = start_server(directory, env={"REARVIEW_API_KEY": ADMIN_KEY})
    s.keys = {"alice": alice, "admin": ADMIN_KEY}
    yield s
    s.stop()


@pytest.fixture(scope="session")
def limited_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A keyed server allowing each key 1 request per second (bursts of 2)."""
    s = start_server(
        tmp_path_factory.mktemp("limited"), "--rate-limit", "1", env={"REARVIEW_API_KEY": ADMIN_KEY}
    )
    s.keys = {"admin": ADMIN_KEY}
    yield s
    s.stop()


@pytest.fixture
def ns() -> str:
    """A namespace of this test's own."""
    return f"test-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def client(server: Server, ns: str) -> Iterator[Client]:
    with Client(server.url, namespace=ns) as c:
        yield c


@pytest.fixture
async def aclient(server: Server, ns: str):
    async with AsyncClient(server.url, namespace=ns) as c:
        yield c


class Blocking:
    """An ``AsyncClient`` driven from blocking code, so one scenario tests both clients: each
    method call runs the coroutine to completion on a private event loop."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client
        self._loop = asyncio.new_event_loop()

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._client, name)
        if not inspect.iscoroutinefunction(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            return self._loop.run_until_complete(attr(*args, **kwargs))

        return call

    def close(self) -> None:
        self._loop.run_until_complete(self._client.aclose())
        self._loop.close()


@pytest.fixture(params=["sync", "async"])
def api(request: pytest.FixtureRequest, server: Server, ns: str) -> Iterator[Any]:
    """``Client`` or ``AsyncClient`` (through :class:`Blocking`) on the open server."""
    if request.param == "sync":
        c = Client(server.url, namespace=ns)
        yield c
        c.close()
    else:
        b = Blocking(AsyncClient(server.url, namespace=ns))
        yield b
        b.close()


def no_extra(value: Any) -> Any:
    """``value`` after checking that no model in it holds fields the models do not declare (a
    real answer with a field the SDK does not know: drift)."""
    if isinstance(value, BaseModel):
        assert not value.model_extra, f"{type(value).__name__} got undeclared {value.model_extra}"
        for name in type(value).model_fields:
            no_extra(getattr(value, name))
    elif isinstance(value, (list, tuple)):
        for v in value:
            no_extra(v)
    return value
