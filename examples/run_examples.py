"""Runs every example against a freshly started rearview, as CI does (scripts/test.sh).

- `mcp-clients/*.json`: each server entry of each client config is started or connected exactly
  as the client would (stdio: the configured command with `rearview` replaced by the binary under
  test; HTTP: the configured URL pointed at the fresh server, with the configured headers), then
  initialised, its tools listed, and a memory stored and recalled in the configured namespace.
- `python/*.py`: each script runs against the fresh server (REARVIEW_URL) and must exit 0.

Usage: python examples/run_examples.py path/to/rearview
"""

import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client

HERE = Path(__file__).resolve().parent
FAILED = []


def report(name: str, ok: bool, detail: str = "") -> None:
    print(f"{'ok  ' if ok else 'FAIL'} {name}{'' if ok else ': ' + detail}", flush=True)
    if not ok:
        FAILED.append(name)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def exercise(session: ClientSession, label: str) -> None:
    await session.initialize()
    tools = {t.name for t in (await session.list_tools()).tools}
    assert {"store_memory", "retrieve_memory", "end_session"} <= tools, tools
    marker = f"config check {label}: 配置检查 {time.time_ns()}"
    stored = await session.call_tool("store_memory", {"content": marker})
    assert not stored.isError, stored.content
    found = await session.call_tool("retrieve_memory", {"query": marker})
    assert marker in found.content[0].text, found.content[0].text[:200]


async def check_configs(binary: str, base_url: str, tmp: str) -> None:
    for path in sorted((HERE / "mcp-clients").glob("*.json")):
        servers = json.loads(path.read_text())["mcpServers"]
        for name, entry in servers.items():
            label = f"{path.name} → {name}"
            try:
                if "command" in entry:
                    assert entry["command"] == "rearview", entry
                    env = dict(os.environ, **entry.get("env", {}))
                    env["REARVIEW_DB"] = f"{tmp}/{path.stem}-{name}.db"
                    params = StdioServerParameters(command=binary, args=entry["args"], env=env)
                    async with stdio_client(params) as (read, write):
                        async with ClientSession(read, write) as session:
                            await exercise(session, label)
                else:
                    configured = urllib.parse.urlsplit(entry["url"])
                    url = base_url + configured.path
                    headers = entry.get("headers", {})
                    async with streamablehttp_client(url, headers=headers) as (read, write, _):
                        async with ClientSession(read, write) as session:
                            await exercise(session, label)
                report(label, True)
            except Exception as e:  # noqa: BLE001 (report every config, then fail)
                report(label, False, repr(e))


def wait_ready(url: str, proc: subprocess.Popen) -> None:
    deadline = time.time() + 120
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"rearview serve exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/readyz", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("rearview serve did not become ready")


def main(binary: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        base_url = f"http://127.0.0.1:{port}"
        env = dict(os.environ, REARVIEW_LOG="warn")
        server = subprocess.Popen(
            [binary, "--db", f"{tmp}/examples.db", "serve", "--listen", f"127.0.0.1:{port}"],
            env=env,
            stdout=subprocess.DEVNULL,
        )
        try:
            wait_ready(base_url, server)
            asyncio.run(check_configs(binary, base_url, tmp))
            for script in sorted((HERE / "python").glob("*.py")):
                run = subprocess.run(
                    [sys.executable, str(script)],
                    env=dict(os.environ, REARVIEW_URL=base_url),
                    capture_output=True,
                    text=True,
                    timeout=300,
                )
                output = (run.stdout + run.stderr).strip()
                report(f"python/{script.name}", run.returncode == 0, output[-2000:])
        finally:
            server.terminate()
            server.wait(timeout=60)
    total = len(FAILED)
    print(f"examples: {'all passed' if total == 0 else f'{total} failed'}")
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main(sys.argv[1])
