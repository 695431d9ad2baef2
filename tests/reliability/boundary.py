"""The boundary under attack, on real sockets (issue 43), against a running `rearview serve` that
requires API keys:

1. slow bodies without a key: N connections each send a POST's headers and one byte of body, then a
   byte every 4 s, while a keyed client stores and recalls; the keyed client must be served (200)
   on at least 90 % of its requests;
2. a connection flood: M idle connections, reopened as the server closes them, while /healthz is
   timed: its p99 must stay under 1 s;
3. files: the database, its WAL and the log file are readable by their owner only (0600);
4. a rotated REARVIEW_API_KEY: after a restart with a new value the old one gets 401.

Prints one line per check with its figures and exits 1 on failure.

Usage: python3 tests/reliability/boundary.py BINARY [--slow N] [--flood M] [--seconds S]
"""

import argparse
import json
import os
import socket
import stat
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

from common import free_port, server_env, start_server, wait_ready

RESULTS = []


def check(name, ok, detail=""):
    RESULTS.append(bool(ok))
    print(f"{'ok  ' if ok else 'FAIL'} {name}{': ' + str(detail) if detail else ''}", flush=True)


def request(port, method, path, key=None, body=None, timeout=10):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method)
    req.add_header("Content-Type", "application/json")
    if key:
        req.add_header("Authorization", f"Bearer {key}")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def slow_bodies(port, stop, opened):
    """Keeps one keyless connection trickling a POST body until `stop` is set."""
    while not stop.is_set():
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"POST /v1/memories HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                      b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
            opened[0] += 1
            while not stop.is_set():
                stop.wait(4)
                s.sendall(b" ")
        except OSError:
            time.sleep(0.05)  # closed by the server: open another
        finally:
            try:
                s.close()
            except Exception:
                pass


def idle_connection(port, stop, opened):
    """Keeps one idle connection open, reopening it whenever the server closes it."""
    while not stop.is_set():
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            opened[0] += 1
            s.settimeout(1)
            while not stop.is_set():
                try:
                    if s.recv(1) == b"":
                        break  # closed by the server
                except socket.timeout:
                    continue
        except OSError:
            time.sleep(0.05)
        finally:
            try:
                s.close()
            except Exception:
                pass


def run_attack(target, workers, seconds):
    stop, opened = threading.Event(), [0]
    threads = [threading.Thread(target=target, args=(stop, opened), daemon=True) for _ in range(workers)]
    for t in threads:
        t.start()
    return stop, opened, threads


def main():
    args = argparse.ArgumentParser()
    args.add_argument("binary")
    args.add_argument("--slow", type=int, default=300)
    args.add_argument("--flood", type=int, default=1100)
    args.add_argument("--seconds", type=float, default=20)
    a = args.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db, log_path = f"{tmp}/boundary.db", f"{tmp}/server.log"
        port = free_port()
        env = server_env(keyword_only=True)
        env["REARVIEW_API_KEY"] = "first-seed-" + "a" * 32
        env["REARVIEW_LOG_FILE"] = log_path
        with open(f"{tmp}/stdout.log", "w") as out:
            proc = start_server(a.binary, db, port, env, out)
            try:
                wait_ready(port, proc)
                admin = env["REARVIEW_API_KEY"]
                created = subprocess.run(
                    [a.binary, "--db", db, "--json", "keys", "create", "--namespace", "tenant"],
                    env=env, capture_output=True, text=True, check=True)
                tenant = json.loads(created.stdout)["key"]

                # 1. Slow keyless bodies while a keyed tenant is served.
                stop, opened, threads = run_attack(lambda s, o: slow_bodies(port, s, o), a.slow, a.seconds)
                time.sleep(2)
                statuses = []
                deadline = time.monotonic() + a.seconds
                while time.monotonic() < deadline:
                    try:
                        status, _ = request(port, "POST", "/v1/recall", tenant, {"query": "x"}, timeout=5)
                    except OSError:
                        status = 0
                    statuses.append(status)
                    time.sleep(0.05)
                stop.set()
                served = statuses.count(200) / max(len(statuses), 1)
                check(f"slow keyless bodies ({a.slow} connections, {opened[0]} opened): the keyed tenant is served",
                      served >= 0.9, f"{statuses.count(200)} of {len(statuses)} requests 200 ({served:.1%})")
                for t in threads:
                    t.join(timeout=6)

                # 2. A flood of idle connections while /healthz is timed.
                stop, opened, threads = run_attack(lambda s, o: idle_connection(port, s, o), a.flood, a.seconds)
                time.sleep(3)
                times = []
                deadline = time.monotonic() + a.seconds
                while time.monotonic() < deadline:
                    started = time.monotonic()
                    try:
                        status, _ = request(port, "GET", "/healthz", timeout=10)
                    except OSError:
                        status = 0
                    times.append((time.monotonic() - started) * 1000 if status == 200 else 10_000)
                    time.sleep(0.1)
                stop.set()
                times.sort()
                p50, p99 = statistics.median(times), times[int(len(times) * 0.99) - 1]
                check(f"/healthz under {a.flood} idle connections ({opened[0]} opened)",
                      p99 < 1000, f"p50 {p50:.1f} ms, p99 {p99:.1f} ms over {len(times)} probes")
                for t in threads:
                    t.join(timeout=3)

                # 3. Files readable by their owner only.
                request(port, "POST", "/v1/memories", admin, {"content": "a private memory"})
                modes = {}
                for path in [db, db + "-wal", log_path]:
                    if os.path.exists(path):
                        modes[os.path.basename(path)] = oct(stat.S_IMODE(os.stat(path).st_mode))
                check("database, WAL and log are 0600", len(modes) == 3 and set(modes.values()) == {"0o600"}, modes)
                status, _ = request(port, "GET", "/v1/stats", "rv_wrong")
                with open(log_path) as f:
                    logged = "authentication failed" in f.read()
                check("a failed authentication is logged", status == 401 and logged, status)
            finally:
                proc.terminate()
                proc.wait(timeout=15)

            # 4. A rotated REARVIEW_API_KEY retires the old one.
            old = env["REARVIEW_API_KEY"]
            env["REARVIEW_API_KEY"] = "second-seed-" + "b" * 32
            proc = start_server(a.binary, db, port, env, out)
            try:
                wait_ready(port, proc)
                old_status, _ = request(port, "GET", "/v1/stats", old)
                new_status, _ = request(port, "GET", "/v1/stats", env["REARVIEW_API_KEY"])
                check("after rotating REARVIEW_API_KEY the old value is refused",
                      (old_status, new_status) == (401, 200), (old_status, new_status))
            finally:
                proc.terminate()
                proc.wait(timeout=15)
    passed, failed = RESULTS.count(True), RESULTS.count(False)
    print(f"boundary: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
