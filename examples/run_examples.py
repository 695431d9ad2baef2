"""Runs every example against a freshly started rearview, as CI does (scripts/test.sh).

- `mcp-clients/*.json`: each server entry of each client config is started or connected exactly
  as the client would (stdio: the configured command with `rearview` replaced by the binary under
  test; HTTP: the configured URL pointed at the fresh server, with the configured headers), then
  initialised, its tools listed, and a memory stored and recalled in the configured namespace.
- `python/*.py`: each script runs against the fresh server (REARVIEW_URL) and must exit 0.
  `python/article_langchain_tools.py` is the design article's §4.5 code run verbatim, whose URL is
  hard-coded to `http://localhost:8765`: it gets a server of its own, with its own database, on
  exactly 127.0.0.1:8765 (the run fails with a clear message if that port is taken), and a dummy
  OPENAI_API_KEY (`ChatOpenAI` wants one at construction but makes no request).

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


# Scripts whose server address is fixed in their code (the article's verbatim code posts to
# http://localhost:8765): each runs against a server of its own on that port.
FIXED_PORT_SCRIPTS = {"article_langchain_tools.py": 8765}


def port_taken(port: int) -> str | None:
    """Why `localhost:port` would not reach a server we start on 127.0.0.1:port, or None. Checks
    both loopback addresses `localhost` may resolve to: a listener on [::1]:port would receive
    the requests of a client that tries IPv6 first."""
    for family, host in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
        try:
            probe = socket.socket(family, socket.SOCK_STREAM)
        except OSError:
            continue  # no IPv6 here
        with probe:
            probe.settimeout(1)
            if probe.connect_ex((host, port)) == 0:
                return f"something is already listening on {host} port {port}"
    return None


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


def start_server(binary: str, db: str, port: int) -> subprocess.Popen:
    return subprocess.Popen(
        [binary, "--db", db, "serve", "--listen", f"127.0.0.1:{port}"],
        env=dict(os.environ, REARVIEW_LOG="warn"),
        stdout=subprocess.DEVNULL,
    )


def stop_server(server: subprocess.Popen) -> None:
    server.terminate()
    server.wait(timeout=60)


def run_script(script: Path, base_url: str, extra_env: dict | None = None) -> None:
    run = subprocess.run(
        [sys.executable, str(script)],
        env=dict(os.environ, REARVIEW_URL=base_url, **(extra_env or {})),
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = (run.stdout + run.stderr).strip()
    report(f"python/{script.name}", run.returncode == 0, output[-2000:])


def run_fixed_port_script(binary: str, script: Path, port: int, tmp: str) -> None:
    """Runs a script whose code names the server's port, against a server of its own there."""
    taken = port_taken(port)
    if taken:
        report(
            f"python/{script.name}",
            False,
            f"{script.name} posts to http://localhost:{port} (its code is the design article's, "
            f"verbatim), but {taken}: stop that server and run the examples again",
        )
        return
    base_url = f"http://127.0.0.1:{port}"
    server = start_server(binary, f"{tmp}/{script.stem}.db", port)
    try:
        wait_ready(base_url, server)
        run_script(script, base_url, {"OPENAI_API_KEY": "sk-dummy-not-used"})
    except SystemExit as e:  # the server did not start: report, go on with the others
        report(f"python/{script.name}", False, f"its server on {base_url}: {e}")
    finally:
        stop_server(server)


def main(binary: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        base_url = f"http://127.0.0.1:{port}"
        server = start_server(binary, f"{tmp}/examples.db", port)
        try:
            wait_ready(base_url, server)
            asyncio.run(check_configs(binary, base_url, tmp))
            for script in sorted((HERE / "python").glob("*.py")):
                if script.name not in FIXED_PORT_SCRIPTS:
                    run_script(script, base_url)
        finally:
            stop_server(server)
        for script in sorted((HERE / "python").glob("*.py")):
            if script.name in FIXED_PORT_SCRIPTS:
                run_fixed_port_script(binary, script, FIXED_PORT_SCRIPTS[script.name], tmp)
    total = len(FAILED)
    print(f"examples: {'all passed' if total == 0 else f'{total} failed'}")
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main(sys.argv[1])
