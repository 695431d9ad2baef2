#!/usr/bin/env python3
"""Recall latency: the design's own Python code (article §4.2-4.3) and rearview, same data.

Both sides hold the same N memories (real chat text from ../shared/data: MemDaily zh + LoCoMo
en, interleaved, as the Rust benchmarks use) with the same vectors, and answer the same
questions. Vectors are synthetic (a seeded 384-dimensional unit vector per text) so that both
sides see identical vectors without a model in Python; recall cost does not depend on their
values.

- The design side runs in this process: MemoryStore + MemoryRetriever exactly as the article
  wrote them, with an embedder that returns the precomputed query vector (query embedding
  excluded, as in the issue's ~158 ms figure). Its HTTP layer (FastAPI) is not included, which
  favours it.
- rearview runs as its real server (`rearview serve`, SQLite file, default durability). It gets
  its vectors from a loopback OpenAI-compatible embedding endpoint served by this script. Each
  timed request is a full `POST /v1/recall` over HTTP, so rearview's figure *includes* HTTP and
  the round trip to fetch the query vector. The server also reports its own time per recall
  (`took_ms.search`: everything but embedding the query), which is the design figure's scope.
  Both ratios are printed.

Usage: bench/peers/run.sh [--size 10000] [--queries 200]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from design.retrieval import MemoryRetriever  # noqa: E402
from design.storage import MemoryStore  # noqa: E402

DIMS = 384
ROOT = Path(__file__).resolve().parents[2]


def vector(text: str) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    v = np.random.default_rng(seed).standard_normal(DIMS).astype(np.float32)
    return v / np.linalg.norm(v)


def interleave(a: list[str], b: list[str]) -> list[str]:
    na, nb = max(len(a), 1), max(len(b), 1)
    keyed = [(i / na, s) for i, s in enumerate(a)] + [((i + 0.5) / nb, s) for i, s in enumerate(b)]
    keyed.sort(key=lambda x: x[0])
    return [s for _, s in keyed]


def corpus(data: Path) -> tuple[list[str], list[str]]:
    zh, zh_q = [], []
    for path in sorted((data / "memdaily" / "messages_and_QAs").iterdir()):
        for traj in json.loads(path.read_text()):
            zh += [m["message"] for m in traj.get("message_list", []) if m.get("message")]
            zh_q += [
                q["question"]
                for q in traj.get("question_list", [])
                if q.get("question") and q["question"] != "[ERRORQ]"
            ]
    en, en_q = [], []
    for sample in json.loads((data / "locomo-dev" / "locomo-dev.json").read_text()):
        for key, session in sample["conversation"].items():
            if not key.startswith("session_") or key.endswith("date_time"):
                continue
            en += [f"{t['speaker']}: {t['text']}" for t in session if "text" in t]
        en_q += [q["question"] for q in sample["qa"] if "question" in q]
    return interleave(zh, en), interleave(zh_q, en_q)


def memory(texts: list[str], i: int) -> str:
    base = texts[i % len(texts)]
    return base if i < len(texts) else f"{base} ({i // len(texts)})"


class EmbeddingHandler(BaseHTTPRequestHandler):
    """`POST /v1/embeddings` in the OpenAI shape, answering with `vector(text)`."""

    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; without TCP_NODELAY, Nagle's algorithm and the
    # client's delayed ACK add ~40 ms to every embedding request.
    disable_nagle_algorithm = True

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        data = [{"object": "embedding", "index": i, "embedding": vector(t).tolist()}
                for i, t in enumerate(inputs)]
        out = json.dumps({"object": "list", "data": data, "model": body.get("model", "")}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args) -> None:
        pass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post(url: str, payload: dict) -> dict:
    req = urllib.request.Request(
        url, data=json.dumps(payload).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=60) as resp:
        return json.loads(resp.read())


def wait_ready(url: str, proc: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"rearview exited with {proc.returncode} before it was ready")
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"rearview was not ready at {url} after {seconds} s")


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def p95_ms(samples: list[float]) -> float:
    return sorted(samples)[max(0, int(len(samples) * 0.95) - 1)] * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=10_000, help="memories in the one namespace")
    ap.add_argument("--queries", type=int, default=200, help="timed questions per side")
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--rearview", type=Path, default=ROOT / "target" / "release" / "rearview")
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    args = ap.parse_args()

    texts, questions = corpus(args.data)
    memories = [memory(texts, i) for i in range(args.size)]
    queries = [questions[q * 7 % len(questions)] for q in range(args.queries)]
    print(f"{args.size} memories, {len(queries)} questions; vectors: seeded 384-d", file=sys.stderr)

    # The embedding endpoint both sides' vectors come from.
    port = free_port()
    server = ThreadingHTTPServer(("127.0.0.1", port), EmbeddingHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()

    with tempfile.TemporaryDirectory() as tmp:
        # --- the design's Python code ---
        store = MemoryStore(os.path.join(tmp, "design.db"), vector_dim=DIMS)
        started = time.perf_counter()
        for text in memories:
            store.store(text, "episodic", embedding=vector(text))
        design_fill = time.perf_counter() - started
        query_vectors = {q: vector(q) for q in queries}

        class Precomputed:
            def encode(self, text):
                return query_vectors[text]

        retriever = MemoryRetriever(store, Precomputed())
        design = []
        for q in queries:
            started = time.perf_counter()
            retriever.retrieve(q, top_k=5)
            design.append(time.perf_counter() - started)
        print(f"design (Python): recall p50 {median_ms(design):.1f} ms", file=sys.stderr)

        # --- rearview, as a server ---
        listen = f"127.0.0.1:{free_port()}"
        env = dict(os.environ, REARVIEW_LOG=os.environ.get("REARVIEW_LOG", "warn"))
        proc = subprocess.Popen(
            [
                str(args.rearview), "--db", os.path.join(tmp, "rearview.db"),
                "--embed-url", f"http://127.0.0.1:{port}/v1", "--embed-model", "seeded-384",
                "--dedup-threshold", "off",
                "serve", "--listen", listen,
            ],
            env=env, stdout=subprocess.DEVNULL,
        )
        try:
            base = f"http://{listen}"
            wait_ready(f"{base}/readyz", proc)
            started = time.perf_counter()
            for text in memories:
                post(f"{base}/v1/memories", {"content": text, "dedup": False})
            rearview_fill = time.perf_counter() - started
            for q in queries[:10]:  # warm the connection path once
                post(f"{base}/v1/recall", {"query": q, "top_k": 5})
            ours, engine = [], []
            for q in queries:
                started = time.perf_counter()
                hits = post(f"{base}/v1/recall", {"query": q, "top_k": 5})
                ours.append(time.perf_counter() - started)
                assert hits["vector_search"].startswith("vector search"), hits
                engine.append(hits["took_ms"]["search"] / 1000)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
            server.shutdown()

    result = {
        "memories": args.size,
        "queries": len(queries),
        "design_python_recall_p50_ms": round(median_ms(design), 3),
        "design_python_recall_p95_ms": round(p95_ms(design), 3),
        "rearview_http_recall_p50_ms": round(median_ms(ours), 3),
        "rearview_http_recall_p95_ms": round(p95_ms(ours), 3),
        "rearview_server_recall_p50_ms": round(median_ms(engine), 3),
        "rearview_server_recall_p95_ms": round(p95_ms(engine), 3),
        "ratio_p50_same_scope": round(median_ms(design) / median_ms(engine), 1),
        "ratio_p50_end_to_end": round(median_ms(design) / median_ms(ours), 1),
        "design_python_store_per_sec": round(args.size / design_fill, 1),
        "rearview_http_store_per_sec": round(args.size / rearview_fill, 1),
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"memories: {args.size}, questions: {len(queries)}")
        print(f"design's Python code  recall p50 {result['design_python_recall_p50_ms']:>8.2f} ms"
              f"  p95 {result['design_python_recall_p95_ms']:>8.2f} ms"
              f"  (in process, query embedding excluded)")
        print(f"rearview, in server   recall p50 {result['rearview_server_recall_p50_ms']:>8.2f} ms"
              f"  p95 {result['rearview_server_recall_p95_ms']:>8.2f} ms"
              f"  (took_ms.search: query embedding excluded, the same scope)")
        print(f"rearview, over HTTP   recall p50 {result['rearview_http_recall_p50_ms']:>8.2f} ms"
              f"  p95 {result['rearview_http_recall_p95_ms']:>8.2f} ms"
              f"  (client-timed; includes HTTP and fetching the query vector)")
        print(f"rearview is {result['ratio_p50_same_scope']}x faster at the median, same scope; "
              f"{result['ratio_p50_end_to_end']}x end to end")


if __name__ == "__main__":
    main()
