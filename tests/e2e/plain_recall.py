"""Issue 40's five-memory example, as a new user tries it, with the default model: five unrelated
memories in one tier (one of them states a change about something else), then a question that
names each plainly must get that memory first, over MCP (the official Python SDK, stdio), REST
(`rearview serve`) and the CLI. No option is set anywhere: this is what a user gets.

Usage: python tests/e2e/plain_recall.py path/to/rearview   (needs the default model installed)
"""

import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from harness import check, finish, free_port

MEMORIES = [
    "我喜欢在周末去香山爬山，呼吸新鲜空气。",
    "The MCP memory service listens on port 8765 inside the agent-net network.",
    "用户要求把数据库从MySQL换成PostgreSQL。",
    "用户偏好使用深色主题。",
    "Lunch today was a bowl of ramen near the office.",
]
# Each question names one memory (by index).
QUESTIONS = [("爬山", 0), ("port 8765", 1), ("数据库迁移", 2), ("深色主题", 3), ("ramen", 4)]


def first(hits):
    return hits[0]["memory"]["content"] if hits else None


async def over_mcp(binary, db):
    env = dict(os.environ, REARVIEW_LOG="warn")
    params = StdioServerParameters(command=binary, args=["--db", db, "mcp"], env=env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for text in MEMORIES:
                result = await session.call_tool("store_memory", {"content": text})
                check(f"mcp: store {text[:16]}", not result.is_error, result)
            for query, index in QUESTIONS:
                result = await session.call_tool("retrieve_memory", {"query": query, "top_k": 1})
                hits = result.structured_content["hits"]
                check(f"mcp: {query!r} recalls its memory first", first(hits) == MEMORIES[index], hits)


def over_rest(binary, db):
    port = free_port()
    server = subprocess.Popen(
        [binary, "--db", db, "serve", "--listen", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"

    def post(path, body):
        request = urllib.request.Request(
            base + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
        )
        return json.loads(urllib.request.urlopen(request, timeout=30).read())

    try:
        # Ready once the model has loaded: recall then reports vector search in use.
        deadline = time.time() + 120
        while time.time() < deadline:
            try:
                answer = post("/v1/recall", {"query": "warm up"})
                if answer["vector_search"].startswith("vector search"):
                    break
            except OSError:
                pass
            time.sleep(0.5)
        for text in MEMORIES:
            post("/v1/memories", {"content": text})
        for query, index in QUESTIONS:
            hits = post("/v1/recall", {"query": query, "top_k": 1})["hits"]
            check(f"rest: {query!r} recalls its memory first", first(hits) == MEMORIES[index], hits)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=10)


def over_cli(binary, db):
    def cli(*args):
        run = subprocess.run([binary, "--db", db, "--json", *args], capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError(run.stderr)
        return json.loads(run.stdout)

    stored = [cli("add", text) for text in MEMORIES]
    # The database change names the hiking memory nowhere: nothing is linked to it.
    check("cli: the change about the database links nothing",
          all(not s["superseded"] for s in stored), [s["superseded"] for s in stored])
    for query, index in QUESTIONS:
        hits = cli("recall", query, "-k", "1", "--no-count")["hits"]
        check(f"cli: {query!r} recalls its memory first", first(hits) == MEMORIES[index], hits)


def main(binary):
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(over_mcp(binary, f"{tmp}/mcp.db"))
        over_rest(binary, f"{tmp}/rest.db")
        over_cli(binary, f"{tmp}/cli.db")
    finish("plain recall")


if __name__ == "__main__":
    main(sys.argv[1])
