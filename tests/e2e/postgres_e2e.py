"""Two `rearview serve` processes on one PostgreSQL database (issue 17), driven over REST.

A fresh database is created on the server named by REARVIEW_TEST_PG_URL (scripts/pg-up.sh starts
one) with `psql` (from REARVIEW_PG_BIN when set, else PATH). Checks: a memory stored through one server is recalled
through the other at once (both search vectors in the database; keyword indexes follow the
change log); an update through the second is recalled
through the first; a delete through the first is gone from the second's reads and recall at once,
and never comes back; recalls through both count every access exactly; `rearview
doctor` reports the backend with the password redacted. Prints one line per check and a closing
"N passed, M failed" line; exits 1 on failure, and also when no server is configured while
REARVIEW_REQUIRE_PG is set (as in CI).

Usage: python tests/e2e/postgres_e2e.py path/to/rearview
"""

import json
import os
import signal
import subprocess
import sys
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request

from harness import RESULTS, check, finish, free_port


def call(port, method, path, body=None):
    """(status, JSON body) of one request."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read()
            return response.status, json.loads(text) if text else None
    except urllib.error.HTTPError as e:
        text = e.read()
        return e.code, json.loads(text) if text else None


def recalled(port, query):
    _, answer = call(port, "POST", "/v1/recall", {"query": query, "min_relevance": 0})
    return [h["memory"]["content"] for h in answer["hits"]]


def within_a_second(port, query, want):
    """Seconds until `want(recalled contents)` held, or None after one second."""
    start = time.monotonic()
    while time.monotonic() - start < 1.0:
        if want(recalled(port, query)):
            return time.monotonic() - start
        time.sleep(0.02)
    return None


def fresh_database(url):
    """A new database on the server of `url`; returns its URL."""
    parts = urllib.parse.urlsplit(url)
    name = f"e2e_{os.getpid()}_{int(time.time())}"
    # The server's own client when scripts/pg-up.sh says where it is, else any psql on PATH.
    psql = os.path.join(os.environ["REARVIEW_PG_BIN"], "psql") if os.environ.get("REARVIEW_PG_BIN") else "psql"
    subprocess.run([psql, url, "-v", "ON_ERROR_STOP=1", "-qc", f"CREATE DATABASE {name}"],
                   check=True, capture_output=True, timeout=60)
    return urllib.parse.urlunsplit(parts._replace(path=f"/{name}"))


def start(binary, url, port):
    server = subprocess.Popen(
        [binary, "--model", "none", "--db", url, "serve", "--listen", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, "REARVIEW_LOG": "warn"},
    )
    for _ in range(200):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1).read()
            return server
        except OSError:
            if server.poll() is not None:
                raise RuntimeError(f"server exited: {server.stderr.read().decode()[-800:]}")
            time.sleep(0.05)
    raise RuntimeError("server did not answer /healthz")


def main(binary, base_url):
    url = fresh_database(base_url)
    # Both start on an empty database at once: one migrates, the other waits and finds it done.
    a_port, b_port = free_port(), free_port()
    servers = []
    try:
        servers = [start(binary, url, a_port), start(binary, url, b_port)]
        check("two servers start on one new database", True)
        status, stored = call(a_port, "POST", "/v1/memories", {"content": "团队的 Redis 端口是 6380"})
        check("store through the first server", status == 201, stored)
        memory_id = stored["memory"]["id"]
        # Vectors are searched in the database: found at once, no follower delay.
        check("recalled through the second server at once", "团队的 Redis 端口是 6380" in recalled(b_port, "Redis 端口"),
              recalled(b_port, "Redis 端口"))
        seen = within_a_second(b_port, "Redis 端口", lambda c: "团队的 Redis 端口是 6380" in c)
        check("recalled through the second server within 1 s", seen is not None, recalled(b_port, "Redis 端口"))
        status, got = call(b_port, "GET", f"/v1/memories/{memory_id}")
        check("read through the second server at once", status == 200 and got["memory"]["id"] == memory_id, got)

        status, _ = call(b_port, "PATCH", f"/v1/memories/{memory_id}", {"content": "团队的 Valkey 端口是 6390"})
        check("update through the second server", status == 200)
        seen = within_a_second(a_port, "Valkey 端口", lambda c: "团队的 Valkey 端口是 6390" in c)
        check("the update is recalled through the first server within 1 s", seen is not None,
              recalled(a_port, "Valkey 端口"))

        time.sleep(0.5)  # access counts are written in the background, batched (25 ms)
        _, got = call(a_port, "GET", f"/v1/memories/{memory_id}")
        before = got["memory"]["access_count"]
        returned = 0
        for i in range(6):
            for port in (a_port, b_port):
                _, answer = call(port, "POST", "/v1/recall", {"query": "Valkey 端口", "min_relevance": 0})
                returned += sum(h["memory"]["id"] == memory_id for h in answer["hits"])
        time.sleep(0.5)
        _, got = call(b_port, "GET", f"/v1/memories/{memory_id}")
        after = got["memory"]["access_count"]
        check("access counts through both servers add up exactly", returned == 12 and after == before + 12,
              f"before {before}, returned {returned}, after {after}")

        status, _ = call(a_port, "DELETE", f"/v1/memories/{memory_id}")
        check("delete through the first server", status == 204)
        status, _ = call(b_port, "GET", f"/v1/memories/{memory_id}")
        check("gone from the second server's reads at once", status == 404, status)
        check("gone from the second server's recall at once",
              "团队的 Valkey 端口是 6390" not in recalled(b_port, "Valkey 端口"), recalled(b_port, "Valkey 端口"))
        gone = within_a_second(b_port, "Valkey 端口", lambda c: "团队的 Valkey 端口是 6390" not in c)
        check("gone from the second server's recall within 1 s", gone is not None, recalled(b_port, "Valkey 端口"))
        time.sleep(0.6)
        check("and it never comes back", "团队的 Valkey 端口是 6390" not in recalled(b_port, "Valkey 端口"))

        doctor = subprocess.run([binary, "--model", "none", "--db", url, "doctor"], capture_output=True,
                                text=True, timeout=60)
        line = next((l for l in doctor.stdout.splitlines() if "database" in l), "")
        password = urllib.parse.urlsplit(url).password
        check("doctor reports PostgreSQL with the password redacted",
              "PostgreSQL" in line and "pgvector" in line and (not password or password not in doctor.stdout),
              doctor.stdout)
    finally:
        for server in servers:
            server.send_signal(signal.SIGTERM)
        for server in servers:
            try:
                code = server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()
                code = None
            check("server stops cleanly on SIGTERM", code == 0, server.stderr.read().decode()[-500:])


if __name__ == "__main__":
    base = os.environ.get("REARVIEW_TEST_PG_URL")
    if not base:
        if os.environ.get("REARVIEW_REQUIRE_PG"):
            print("FAIL REARVIEW_REQUIRE_PG is set but REARVIEW_TEST_PG_URL is not")
            sys.exit(1)
        print("postgres e2e: skipped (no REARVIEW_TEST_PG_URL)")
        sys.exit(0)
    try:
        main(sys.argv[1], base)
    except Exception:  # noqa: BLE001 - any crash is a failed check
        traceback.print_exc()
        RESULTS.append(False)
    finish("postgres e2e")
