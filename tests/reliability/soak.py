"""Soak test: many concurrent clients storing and recalling for a while; no errors, latencies
reported, and every memory's access count exactly the number of times a recall returned it.

One server (`rearview --db FILE serve --listen 127.0.0.1:PORT`, fresh database), then N client
threads, each on its own keep-alive connection, looping for the duration:
- 30 %: store a unique memory (`POST /v1/memories`, Chinese, English or mixed, `"dedup": false` so
  every store is a memory of its own and no merge moves access counts around);
- 70 %: recall (`POST /v1/recall`, a query word from the same vocabulary, top_k 1-10).
Any non-2xx answer or transport failure is an error. Each recall hit's id is tallied: rearview
counts an access for every memory a recall returns (the service queues the returned ids for its
background access writer before answering; REST recalls always record).

Then the clients stop, the server gets SIGTERM (graceful: in-flight requests finish, the queued
access counts are flushed, exit 0) and `rearview export` reads the database: it must hold exactly
the acknowledged stores, with their content, and each memory's `access_count` must equal the
tally (memories never returned: 0).

Configuration: by default the server's default embedding model (multilingual-e5-small from
REARVIEW_MODELS_DIR, as scripts/test.sh installs it; the soak waits for /readyz to report it
loaded and fails if it never is), so every store embeds its text and every recall embeds its
query and runs hybrid retrieval. `--keyword-only` runs with REARVIEW_MODEL=none instead. No config
file (XDG_CONFIG_HOME points nowhere); REARVIEW_LOG=warn; everything else default.

Prints ops, ops/s, p50/p99/max per operation, errors and the access-count check; exits 1 on any
error, mismatch or unclean shutdown.

Usage: python tests/reliability/soak.py path/to/rearview [--clients 64] [--seconds 60]
       [--keyword-only] [--seed N] [--keep DIR]
"""

import argparse
import collections
import http.client
import json
import random
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Client, export, finish, free_port, percentile, readyz, server_env, start_server, wait_ready  # noqa: E402

STORE_SHARE = 0.30

VOCAB = [
    ("数据库", "database"), ("迁移", "migration"), ("爬山", "hiking"), ("主题", "theme"),
    ("出差", "trip"), ("接口", "interface"), ("部署", "deploy"), ("会议", "meeting"),
    ("端口", "port"), ("备份", "backup"), ("值班", "on-call"), ("预算", "budget"),
    ("咖啡", "coffee"), ("测试", "testing"), ("文档", "documentation"), ("性能", "performance"),
]


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.latency = {"store": [], "recall": []}
        self.errors: list[str] = []
        self.stored: dict[str, str] = {}  # id → content
        self.hits: collections.Counter = collections.Counter()  # id → times returned
        self.hit_total = 0
        self.empty_recalls = 0


def content_for(rng: random.Random, client: int, seq: int) -> str:
    zh, en = rng.choice(VOCAB)
    zh2, en2 = rng.choice(VOCAB)
    tag = f"k{client}-n{seq}"
    shape = rng.randrange(3)
    if shape == 0:
        return f"{zh}记录 {tag}：关于{zh}和{zh2}的讨论。"
    if shape == 1:
        return f"Note {tag} about the {en} and the {en2}."
    return f"{zh} {en} / {zh2} {en2} ({tag})"


def client_loop(port: int, k: int, seed: int, deadline: float, stats: Stats) -> None:
    rng = random.Random(seed)
    client = Client(port, timeout=120)
    seq = 0
    local_latency = {"store": [], "recall": []}
    local_hits: collections.Counter = collections.Counter()
    local_stored: dict[str, str] = {}
    local_errors: list[str] = []
    hit_total = empty = 0
    while time.monotonic() < deadline:
        if rng.random() < STORE_SHARE:
            op = "store"
            seq += 1
            content = content_for(rng, k, seq)
            body = {"content": content, "dedup": False, "metadata": {"client": k, "seq": seq}}
            path = "/v1/memories"
        else:
            op = "recall"
            zh, en = rng.choice(VOCAB)
            body = {"query": rng.choice([zh, en, f"{zh} {en}"]), "top_k": rng.randint(1, 10)}
            path = "/v1/recall"
        started = time.perf_counter()
        try:
            status, answer = client.post(path, body)
        except (OSError, http.client.HTTPException) as e:
            local_errors.append(f"{op}: {type(e).__name__}: {e}")
            continue
        elapsed = time.perf_counter() - started
        if not 200 <= status < 300:
            local_errors.append(f"{op}: {status} {json.dumps(answer, ensure_ascii=False)[:300]}")
            continue
        local_latency[op].append(elapsed)
        if op == "store":
            local_stored[answer["memory"]["id"]] = content
        else:
            ids = [hit["memory"]["id"] for hit in answer["hits"]]
            local_hits.update(ids)
            hit_total += len(ids)
            empty += not ids
    client.close()
    with stats.lock:
        for op, values in local_latency.items():
            stats.latency[op].extend(values)
        stats.hits.update(local_hits)
        stats.stored.update(local_stored)
        stats.errors.extend(local_errors)
        stats.hit_total += hit_total
        stats.empty_recalls += empty


def wait_model(port: int, proc, timeout: float) -> str:
    """Waits until /readyz reports the embedding model loaded with nothing pending."""
    deadline = time.monotonic() + timeout
    status = ""
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"rearview serve exited with {proc.returncode}")
        embedding = (readyz(port) or {}).get("embedding", {})
        status = embedding.get("status", "")
        if embedding and not embedding.get("degraded") and embedding.get("model"):
            return embedding["model"]
        time.sleep(0.5)
    raise RuntimeError(
        f"the embedding model did not load within {timeout:.0f} s (/readyz: {status!r}); install it "
        f"with `rearview models fetch` (REARVIEW_MODELS_DIR), or pass --keyword-only"
    )


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary")
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--keyword-only", action="store_true", help="REARVIEW_MODEL=none")
    parser.add_argument("--model-timeout", type=float, default=300,
                        help="seconds to wait for the embedding model to load (default 300)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--keep", metavar="DIR", help="keep the database and server log in DIR")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else time.time_ns() % (1 << 32)
    rng = random.Random(seed)
    env = server_env(keyword_only=args.keyword_only)

    workdir = Path(args.keep or tempfile.mkdtemp(prefix="rearview-soak-"))
    workdir.mkdir(parents=True, exist_ok=True)
    db = str(workdir / "soak.db")
    port = free_port()
    env["REARVIEW_LISTEN"] = f"127.0.0.1:{port}"
    failures: list[str] = []
    with open(workdir / "server.log", "ab") as log:
        proc = start_server(args.binary, db, port, env, log)
        try:
            wait_ready(port, proc)
            model = "none (keyword-only)" if args.keyword_only else wait_model(port, proc, args.model_timeout)
            print(f"soak: {args.clients} clients x {args.seconds:g} s, {STORE_SHARE:.0%} store / "
                  f"{1 - STORE_SHARE:.0%} recall over REST, model {model}, seed {seed}, db {db}",
                  flush=True)
            stats = Stats()
            started = time.monotonic()
            deadline = started + args.seconds
            threads = [
                threading.Thread(target=client_loop,
                                 args=(port, k, rng.randrange(1 << 30), deadline, stats))
                for k in range(args.clients)
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.monotonic() - started
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        stop_started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=120)
        except Exception:  # noqa: BLE001
            proc.kill()
            code = proc.wait()
            failures.append("the server did not stop within 120 s of SIGTERM")
        stop_time = time.monotonic() - stop_started
        if code != 0:
            failures.append(f"the server exited with {code} after SIGTERM")

    total_ops = sum(len(v) for v in stats.latency.values()) + len(stats.errors)
    print(f"ran {wall:.1f} s: {total_ops} requests, {total_ops / wall:.0f} ops/s, "
          f"errors {len(stats.errors)}")
    for op, values in stats.latency.items():
        values.sort()
        print(f"  {op:6}: {len(values):7} ok, {len(values) / wall:7.1f}/s, p50 {ms(percentile(values, 50))} ms, "
              f"p99 {ms(percentile(values, 99))} ms, max {ms(values[-1]) if values else 'nan'} ms")
    recalls = len(stats.latency["recall"])
    print(f"  recall hits: {stats.hit_total} ({stats.hit_total / max(recalls, 1):.2f} per recall, "
          f"{stats.empty_recalls} empty), {len(stats.hits)} distinct memories returned")
    print(f"  SIGTERM → exit {code} in {stop_time:.2f} s")
    for error in stats.errors[:10]:
        print(f"  error: {error}")
    if stats.errors:
        failures.append(f"{len(stats.errors)} request errors")

    # The database after the flush: every acknowledged store, and exact access counts.
    stored = export(args.binary, db, env)
    missing = [i for i in stats.stored if i not in stored]
    altered = [i for i, c in stats.stored.items() if i in stored and stored[i]["content"] != c]
    extra = [i for i in stored if i not in stats.stored]
    mismatched = [
        (i, stats.hits.get(i, 0), m["access_count"])
        for i, m in stored.items()
        if m["access_count"] != stats.hits.get(i, 0)
    ]
    returned_unknown = [i for i in stats.hits if i not in stored]
    counted = sum(m["access_count"] for m in stored.values())
    print(f"  database: {len(stored)} memories (acknowledged stores {len(stats.stored)}, missing "
          f"{len(missing)}, altered {len(altered)}, unexpected {len(extra)}); access counts: "
          f"{counted} recorded vs {stats.hit_total} returned, {len(mismatched)} memories differ")
    for memory_id, seen, recorded in mismatched[:10]:
        print(f"  access_count {memory_id}: returned {seen} times, recorded {recorded}")
    if missing or altered or extra:
        failures.append(f"stores: {len(missing)} missing, {len(altered)} altered, {len(extra)} unexpected")
    if mismatched or returned_unknown:
        failures.append(f"access counts differ for {len(mismatched)} memories "
                        f"({counted} recorded, {stats.hit_total} returned)")

    print(f"soak: {'FAIL: ' + '; '.join(failures) if failures else 'ok'}")
    return finish(workdir, bool(failures), args.keep)


if __name__ == "__main__":
    sys.exit(main())
