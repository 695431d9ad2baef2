"""MCP round-trip latency of `retrieve_memory` over stdio and Streamable HTTP, measured with the
official Python SDK.

Loads N memories (MemDaily messages in Chinese interleaved with LoCoMo turns in English, read in
place from ../shared/data) into a fresh database with `rearview add --stdin`, starts
`rearview mcp` (stdio) and then `rearview serve` (HTTP) on it, and times `retrieve_memory` calls with the datasets' questions, client to
client (JSON-RPC encode, pipe, server, decode). Prints p50/p95/p99.

Usage: python bench/mcp_roundtrip.py path/to/rearview [N=10000] [CALLS=300]
"""

import asyncio
import json
import pathlib
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

DATA = pathlib.Path(__file__).resolve().parents[2] / "shared" / "data"


def corpus():
    zh, zh_q = [], []
    for path in sorted((DATA / "memdaily" / "messages_and_QAs").glob("*.json")):
        for traj in json.loads(path.read_text()):
            zh += [m["message"] for m in traj["message_list"]]
            zh_q += [q["question"] for q in traj["question_list"] if q["question"] != "[ERRORQ]"]
    en, en_q = [], []
    for sample in json.loads((DATA / "locomo-dev" / "locomo-dev.json").read_text()):
        for key, session in sample["conversation"].items():
            if key.startswith("session_") and not key.endswith("date_time"):
                en += [f'{t["speaker"]}: {t["text"]}' for t in session]
        en_q += [q["question"] for q in sample["qa"]]
    mix = lambda a, b: [x for pair in zip(a, b) for x in pair] + a[len(b):] + b[len(a):]
    return mix(zh, en), mix(zh_q, en_q)


async def main(binary, n, calls):
    memories, questions = corpus()
    with tempfile.TemporaryDirectory() as tmp:
        db = f"{tmp}/bench.db"
        lines = "\n".join(m.replace("\n", " ") for m in (memories * (n // len(memories) + 1))[:n])
        start = time.perf_counter()
        subprocess.run([binary, "--model", "none", "--db", db, "add", "--stdin"], input=lines.encode(), check=True,
                       stdout=subprocess.DEVNULL)
        print(f"ingested {n} memories in {time.perf_counter() - start:.1f} s")
        params = StdioServerParameters(command=binary, args=["--model", "none", "--db", db, "mcp"])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                report("stdio", n, await timed(session, questions, calls))
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        server = subprocess.Popen([binary, "--model", "none", "--db", db, "serve", "--listen", f"127.0.0.1:{port}"],
                                  stderr=subprocess.DEVNULL)
        try:
            for _ in range(100):
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
                    break
                except OSError:
                    time.sleep(0.1)
            async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    report("HTTP", n, await timed(session, questions, calls))
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=10)


async def timed(session, questions, calls):
    await session.initialize()
    for q in questions[:20]:  # warm-up
        await session.call_tool("retrieve_memory", {"query": q})
    times = []
    for i in range(calls):
        t = time.perf_counter()
        result = await session.call_tool("retrieve_memory", {"query": questions[i % len(questions)]})
        times.append((time.perf_counter() - t) * 1000)
        assert not result.is_error, result
    return sorted(times)


def report(transport, n, times):
    pick = lambda p: times[min(len(times) - 1, int(p * len(times)))]
    print(f"retrieve_memory over {transport} at {n} memories, {len(times)} calls: "
          f"p50 {pick(0.5):.2f} ms, p95 {pick(0.95):.2f} ms, p99 {pick(0.99):.2f} ms")


if __name__ == "__main__":
    args = sys.argv[1:]
    asyncio.run(main(args[0], int(args[1]) if len(args) > 1 else 10_000, int(args[2]) if len(args) > 2 else 300))
