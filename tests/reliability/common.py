"""Shared helpers of the reliability scripts (stdlib only): start and wait for `rearview serve`,
a small keep-alive JSON client, the CLI, percentiles."""

import http.client
import json
import os
import shutil
import socket
import subprocess
import time
import urllib.request


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_env(keyword_only: bool) -> dict:
    """The environment every rearview process of a run gets: quiet logs, no stray config file
    (the user's ~/.config/rearview/config.toml would change what is measured), and keyword-only
    recall (`REARVIEW_MODEL=none`) when asked."""
    env = dict(os.environ, REARVIEW_LOG=os.environ.get("REARVIEW_LOG", "warn"))
    env.pop("REARVIEW_CONFIG", None)
    env["XDG_CONFIG_HOME"] = "/nonexistent-rearview-reliability"
    if keyword_only:
        env["REARVIEW_MODEL"] = "none"
    return env


def start_server(binary: str, db: str, port: int, env: dict, log) -> subprocess.Popen:
    return subprocess.Popen(
        [binary, "--db", db, "serve", "--listen", f"127.0.0.1:{port}"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=log,
    )


def readyz(port: int) -> dict | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as r:
            if r.status == 200:
                return json.loads(r.read())
    except (OSError, ValueError):
        pass
    return None


def wait_ready(port: int, proc: subprocess.Popen, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"rearview serve exited with {proc.returncode} before it was ready")
        ready = readyz(port)
        if ready is not None:
            return ready
        time.sleep(0.05)
    raise RuntimeError(f"rearview serve did not become ready within {timeout:.0f} s")


class Client:
    """One keep-alive HTTP/1.1 connection (a fresh TCP connection per request would leave tens of
    thousands of sockets in TIME_WAIT over a soak)."""

    def __init__(self, port: int, timeout: float = 60):
        self.port, self.timeout, self.conn = port, timeout, None

    def post(self, path: str, body: dict) -> tuple[int, dict | None]:
        """POSTs JSON; returns (status, parsed body). Raises on a transport failure (the
        connection is then dropped and the next call opens a new one)."""
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        data = json.dumps(body, ensure_ascii=False).encode()
        try:
            self.conn.request("POST", path, body=data, headers={"Content-Type": "application/json"})
            resp = self.conn.getresponse()
            raw = resp.read()
        except BaseException:
            self.close()
            raise
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = {"unparsable": raw[:200].decode(errors="replace")}
        return resp.status, parsed

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def cli(binary: str, db: str, env: dict, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [binary, "--db", db, *args],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def export(binary: str, db: str, env: dict) -> dict[str, dict]:
    """Every memory of the default namespace, by id, as `rearview export` writes it."""
    run = cli(binary, db, env, "export")
    if run.returncode != 0:
        raise RuntimeError(f"rearview export exited with {run.returncode}: {run.stderr.strip()}")
    lines = run.stdout.splitlines()
    header = json.loads(lines[0])
    assert "rearview_export" in header, header
    return {m["id"]: m for m in map(json.loads, lines[1:]) if m}


def percentile(sorted_values: list[float], p: float) -> float:
    """Nearest-rank percentile of an ascending list (p in 0..100)."""
    if not sorted_values:
        return float("nan")
    rank = max(1, -(-len(sorted_values) * p // 100))  # ceil(n·p/100), at least 1
    return sorted_values[int(rank) - 1]


def finish(workdir, failed: bool, keep: bool) -> int:
    """Removes the scratch directory unless asked to keep it or the run failed; the exit code."""
    if not keep:
        if failed:
            print(f"kept for inspection: {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return 1 if failed else 0
