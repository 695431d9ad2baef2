"""`rearview import --from mcp-memory` and `--from mem0`, on files the tools wrote.

The MCP reference memory server (`@modelcontextprotocol/server-memory` from npm, pinned) is
driven with the official MCP Python SDK as an agent would: entities with English and Chinese
observations, relations, observations added later. Its JSONL file is imported; mem0's is the
`get_all()` answer in tests/e2e/fixtures/mem0-get-all.json, shaped as mem0's code writes it (mem0
needs an LLM and an embedding service to write one). Checks: every observation, relation and
mem0 memory is there, in the right namespace, and found by recall (default model) with its own
words, in Chinese too; a second import skips everything; a bad file is refused with the line
named and the store unchanged.

Usage: python tests/e2e/imports_e2e.py path/to/rearview   (needs `mcp`, `npm`)
"""

import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.parse
import urllib.request
from pathlib import Path

from harness import check, finish, free_port

SERVER_MEMORY = "@modelcontextprotocol/server-memory@2026.8.31"
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "rearview" / "npm-server-memory"
MEM0 = Path(__file__).resolve().parent / "fixtures" / "mem0-get-all.json"

ENTITIES = [
    {"name": "Ada_Lovelace", "entityType": "person",
     "observations": ["Wrote the first published algorithm for the Analytical Engine",
                      "Prefers tea over coffee"]},
    {"name": "王小明", "entityType": "person", "observations": ["住在杭州，在一家电商公司做后端开发"]},
    {"name": "Analytical_Engine", "entityType": "machine", "observations": []},
]
RELATIONS = [{"from": "Ada_Lovelace", "to": "Analytical_Engine", "relationType": "wrote_programs_for"}]
ADDED = [{"entityName": "王小明", "contents": ["周末喜欢去西湖边跑步"]}]


def server_memory_bin():
    """The reference server's entry point, installed from npm into the cache once."""
    entry = CACHE / "node_modules" / "@modelcontextprotocol" / "server-memory" / "dist" / "index.js"
    if not entry.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--prefix", str(CACHE), "--no-audit", "--no-fund",
                        "--loglevel=error", SERVER_MEMORY], check=True)
    return entry


async def write_with_reference_server(memory_file):
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command="node", args=[str(server_memory_bin())],
                                   env={**os.environ, "MEMORY_FILE_PATH": str(memory_file)})
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for name, arguments in [("create_entities", {"entities": ENTITIES}),
                                    ("create_relations", {"relations": RELATIONS}),
                                    ("add_observations", {"observations": ADDED})]:
                result = await session.call_tool(name, arguments)
                assert not getattr(result, "is_error", False), result


def rearview(binary, db, *args):
    return subprocess.run([binary, "--db", str(db), *args], capture_output=True, text=True)


def recall(url, namespace, query):
    body = json.dumps({"query": query, "namespace": namespace, "top_k": 3}).encode()
    request = urllib.request.Request(url + "/v1/recall", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return [h["memory"]["content"] for h in json.loads(response.read())["hits"]]


def listed(url, namespace):
    request = urllib.request.Request(url + "/v1/memories?limit=100",
                                     headers={"X-Rearview-Namespace": urllib.parse.quote(namespace, safe="")})
    with urllib.request.urlopen(request, timeout=10) as response:
        return {m["content"]: m for m in json.loads(response.read())["memories"]}


def serve(binary, db, work):
    port = free_port()
    log = open(work / "server.log", "wb")
    process = subprocess.Popen([binary, "--db", str(db), "serve", "--listen", f"127.0.0.1:{port}"],
                               stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url + "/healthz", timeout=1)
            return process, url
        except OSError:
            time.sleep(0.1)
    raise RuntimeError((work / "server.log").read_text())


def main():
    binary = os.path.abspath(sys.argv[1])
    work = Path(tempfile.mkdtemp(prefix="rearview-imports-"))
    db = work / "memory.db"
    server = None
    try:
        memory_file = work / "memory.jsonl"
        asyncio.run(write_with_reference_server(memory_file))
        lines = memory_file.read_text().splitlines()
        check("the reference server wrote its JSONL", len(lines) == 4, lines)

        done = rearview(binary, db, "--namespace", "kg", "--json", "import", "--from", "mcp-memory", str(memory_file))
        report = json.loads(done.stdout or "{}")
        check("mcp-memory: 4 observations, 1 bare entity and 1 relation imported",
              done.returncode == 0 and report.get("inserted") == 6, done.stdout + done.stderr)
        again = rearview(binary, db, "--namespace", "kg", "--json", "import", "--from", "mcp-memory", str(memory_file))
        check("mcp-memory: a second import skips all 6",
              json.loads(again.stdout or "{}").get("skipped") == 6, again.stdout + again.stderr)

        done = rearview(binary, db, "--json", "import", "--from", "mem0", str(MEM0))
        check("mem0: 4 memories and 1 relation imported", done.returncode == 0
              and json.loads(done.stdout or "{}").get("inserted") == 5, done.stdout + done.stderr)

        bad = work / "bad.jsonl"
        bad.write_text(lines[0] + "\n" + '{"type":"entity","observations":["x"]}\n')
        refused = rearview(binary, db, "--namespace", "kg", "import", "--from", "mcp-memory", str(bad))
        check("a bad file is refused, naming the line", refused.returncode != 0
              and "line 2: an entity without a `name`" in refused.stderr, refused.stderr)

        server, url = serve(binary, db, work)
        kg = listed(url, "kg")
        check("mcp-memory: every observation and relation is a memory in the namespace", set(kg) == {
            "Ada_Lovelace: Wrote the first published algorithm for the Analytical Engine",
            "Ada_Lovelace: Prefers tea over coffee", "王小明: 住在杭州，在一家电商公司做后端开发",
            "王小明: 周末喜欢去西湖边跑步", "Analytical_Engine (machine)",
            "Ada_Lovelace wrote programs for Analytical_Engine"}, sorted(kg))
        check("mcp-memory: tagged with the entity", kg["王小明: 周末喜欢去西湖边跑步"]["metadata"]["tags"]
              == ["entity:王小明", "entity-type:person"], kg["王小明: 周末喜欢去西湖边跑步"]["metadata"])
        for query, namespace, expected in [
            ("who wrote the first algorithm", "kg", "Ada_Lovelace: Wrote the first published algorithm"),
            ("tea or coffee", "kg", "Ada_Lovelace: Prefers tea over coffee"),
            ("王小明住在哪里", "kg", "王小明: 住在杭州"),
            ("西湖跑步", "kg", "王小明: 周末喜欢去西湖边跑步"),
            ("dietary restrictions vegetarian", "alice", "Is a vegetarian and avoids dairy"),
            ("where does she work", "alice", "Works as a data engineer"),
            ("周末爬山", "bob", "喜欢在周末去香山爬山"),
            ("answer formatting style", "support-bot", "Answers should be short"),
        ]:
            hits = recall(url, namespace, query)
            check(f"recall {query!r} in {namespace} finds the imported memory",
                  hits and hits[0].startswith(expected), hits)
        alice = listed(url, "alice")
        vegetarian = alice.get("Is a vegetarian and avoids dairy", {})
        check("mem0: the time, metadata and mem0 id are kept",
              vegetarian.get("occurred_at", "").startswith("2026-03-02T17:15:27.481532")
              and vegetarian["metadata"].get("category") == "food"
              and vegetarian["metadata"]["mem0"]["id"] == "6f2b7a4e-1c3d-4e5f-8a9b-0c1d2e3f4a5b",
              vegetarian)
        check("mem0: one user's memories stay out of another's namespace",
              "喜欢在周末去香山爬山" not in alice and len(listed(url, "bob")) == 1)
        check("mem0: run_id becomes the session",
              listed(url, "bob")["喜欢在周末去香山爬山"]["session_id"] == "trip-planning-2026-05")
    except Exception:
        check("the scenario ran to the end", False, traceback.format_exc())
    finally:
        if server:
            server.send_signal(signal.SIGTERM)
            server.wait(15)
    finish("imports")


if __name__ == "__main__":
    main()
