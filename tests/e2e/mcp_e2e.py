"""End-to-end check of rearview's MCP server with the official Python MCP SDK (package `mcp`).

Runs the same checks twice on fresh databases: over stdio (`rearview mcp`) and over Streamable
HTTP (`rearview serve`, with the `X-Rearview-Namespace` header). Checks: initialize, list tools
(names, schemas, annotations), store Chinese and English memories, retrieve them, update and
delete one, bad arguments are JSON-RPC invalid-params errors while a missing memory is a tool
error; over HTTP also /healthz and a graceful SIGTERM. Prints one line per check and a closing
"N passed, M failed" line; exits 1 on failure.

Then many processes on one file (issue 16): two `rearview mcp` processes, each driven by its own
SDK client, and `rearview` CLI commands on one database see each other's stores, updates and
deletes within a second, and a deleted memory never comes back.

Usage: python tests/e2e/mcp_e2e.py path/to/rearview
"""

import asyncio
import json
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.request

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from harness import RESULTS, check, finish, free_port


def payload(result):
    """The structured JSON of a tool result (falls back to its text)."""
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


async def main(binary):
    with tempfile.TemporaryDirectory() as tmp:
        params = StdioServerParameters(
            command=binary, args=["--model", "none", "--db", f"{tmp}/e2e.db", "mcp"], env={"REARVIEW_LOG": "warn"}
        )
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await checks(session, "stdio", "default")

    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        server = subprocess.Popen(
            [binary, "--model", "none", "--db", f"{tmp}/e2e.db", "serve", "--listen", f"127.0.0.1:{port}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        try:
            health = None
            for _ in range(100):
                try:
                    health = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1).read())
                    break
                except OSError:
                    time.sleep(0.1)
            check("http: /healthz answers", health == {"status": "ok"}, health)
            client = create_mcp_http_client(headers={"X-Rearview-Namespace": "team-a"})
            async with client:
                async with streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=client) as streams:
                    async with ClientSession(streams[0], streams[1]) as session:
                        await checks(session, "http", "team-a")
            compat_checks(f"http://127.0.0.1:{port}")
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                code = server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                code = None
        check("http: SIGTERM shuts the server down cleanly", code == 0, server.stderr.read().decode()[-500:])


async def many_processes(binary):
    """Two `rearview mcp` servers and the CLI on one SQLite file (no restarts)."""
    with tempfile.TemporaryDirectory() as tmp:
        db = f"{tmp}/shared.db"

        def server():
            return StdioServerParameters(command=binary, args=["--model", "none", "--db", db, "mcp"],
                                         env={"REARVIEW_LOG": "warn"})

        def cli(*args):
            out = subprocess.run([binary, "--model", "none", "--db", db, "--json", *args],
                                 capture_output=True, text=True, timeout=30, check=True)
            return json.loads(out.stdout)

        async def contents(session, query):
            hits = payload(await session.call_tool("retrieve_memory", {"query": query}))["hits"]
            return [h["memory"]["content"] for h in hits]

        async def within_a_second(session, query, want):
            """Polls until `want(contents)` holds; the seconds it took, or None after 1 s."""
            start = time.monotonic()
            while time.monotonic() - start < 1.0:
                if want(await contents(session, query)):
                    return time.monotonic() - start
                await asyncio.sleep(0.02)
            return None

        async with stdio_client(server()) as (ra, wa), stdio_client(server()) as (rb, wb):
            async with ClientSession(ra, wa) as a, ClientSession(rb, wb) as b:
                await a.initialize()
                await b.initialize()
                stored = payload(await a.call_tool("store_memory", {"content": "团队的 Redis 端口是 6380"}))
                seen = await within_a_second(b, "Redis 端口", lambda c: "团队的 Redis 端口是 6380" in c)
                check("processes: a memory stored through one mcp is recalled through another within 1 s",
                      seen is not None, await contents(b, "Redis 端口"))
                added = cli("add", "the staging database moved to host db-7")
                for name, session in (("first", a), ("second", b)):
                    seen = await within_a_second(session, "staging database",
                                                 lambda c: "the staging database moved to host db-7" in c)
                    check(f"processes: `rearview add` is recalled through the {name} mcp within 1 s",
                          seen is not None, await contents(session, "staging database"))
                memory_id = stored["memory"]["id"]
                await b.call_tool("update_memory", {"id": memory_id, "content": "团队的 Redis 端口改成 6390"})
                seen = await within_a_second(a, "Redis 端口", lambda c: "团队的 Redis 端口改成 6390" in c)
                check("processes: an update through one mcp is recalled through the other within 1 s",
                      seen is not None, await contents(a, "Redis 端口"))
                cli("delete", added["id"])
                gone = lambda c: "the staging database moved to host db-7" not in c  # noqa: E731
                seen = [await within_a_second(s, "staging database", gone) for s in (a, b)]
                check("processes: `rearview delete` disappears from both mcp processes within 1 s",
                      None not in seen, seen)
                await asyncio.sleep(0.6)
                late = await contents(a, "staging database") + await contents(b, "staging database")
                check("processes: the deleted memory never comes back",
                      "the staging database moved to host db-7" not in late, late)
                recalled = cli("recall", "Redis 端口")
                check("processes: the CLI recalls what an mcp process updated",
                      [h["memory"]["content"] for h in recalled["hits"]][:1] == ["团队的 Redis 端口改成 6390"],
                      recalled)


def compat_checks(base):
    """The design's plain-HTTP endpoints, as its LangChain example calls them."""
    def call(name, arguments):
        body = json.dumps({"name": name, "arguments": arguments}).encode()
        request = urllib.request.Request(f"{base}/mcp/tools/call", data=body,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=10) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    listed = json.loads(urllib.request.urlopen(f"{base}/mcp/tools/list", timeout=10).read())
    check("compat: GET /mcp/tools/list", "store_memory" in [t["name"] for t in listed["tools"]], listed)
    status, stored = call("store_memory", {"content": "LangChain 通过 HTTP 存的记忆", "namespace": "compat"})
    check("compat: store_memory answers the design's {id, status}",
          status == 200 and stored["result"]["status"] == "stored"
          and stored["result"]["memory"]["namespace"] == "compat", stored)
    status, found = call("retrieve_memory", {"query": "记忆", "namespace": "compat"})
    # The design's shape: a list of {id, timestamp, content, memory_type, metadata, score}.
    check("compat: retrieve_memory answers the design's list",
          status == 200 and found["result"][0]["id"] == stored["result"]["id"]
          and found["result"][0]["content"] == "LangChain 通过 HTTP 存的记忆", found)
    status, bad = call("retrieve_memory", {"query": "x", "top_k": 500})
    check("compat: bad arguments are 400 naming the field", status == 400 and "top_k" in bad["error"], (status, bad))
    status, missing = call("get_memory", {"id": "01a22910-7243-7e36-b21d-4ba2b60629d1"})
    check("compat: a missing memory is 422", status == 422 and "not found" in missing["error"], (status, missing))
    status, unknown = call("no_such_tool", {})
    check("compat: an unknown tool is 400", status == 400 and "unknown tool" in unknown["error"], (status, unknown))


async def checks(session, transport, namespace):
    """The shared checks; `namespace` is where memories must land."""
    def check_(name, condition, detail=""):
        check(f"{transport}: {name}", condition, detail)

    init = await session.initialize()
    check_("initialize names the server and gives instructions",
          init.server_info.name == "rearview" and "retrieve_memory" in (init.instructions or ""), init)

    tools = {t.name: t for t in (await session.list_tools()).tools}
    expected = {"store_memory", "retrieve_memory", "get_memory", "update_memory",
                "delete_memory", "list_memories", "memory_stats",
                "summarize_episodes", "cleanup_expired", "end_session", "archive_memory",
                "restore_memory", "suggest_distillations"}
    check_("tools/list has every tool", expected <= set(tools), sorted(tools))
    store_schema = tools["store_memory"].input_schema
    check_("store_memory requires content", store_schema.get("required") == ["content"], store_schema)
    check_("memory_type is an enum of the three tiers",
          "semantic" in json.dumps(store_schema) and "working" in json.dumps(store_schema), store_schema)
    check_("retrieve_memory is marked read-only",
          tools["retrieve_memory"].annotations.read_only_hint is True, tools["retrieve_memory"].annotations)
    check_("delete_memory is marked destructive",
          tools["delete_memory"].annotations.destructive_hint is True, tools["delete_memory"].annotations)

    zh = payload(await session.call_tool("store_memory", {"content": "我喜欢在周末去香山爬山", "metadata": {"tags": ["hobby"]}}))
    en = payload(await session.call_tool("store_memory", {"content": "The MCP server listens on port 8765", "memory_type": "semantic"}))
    check_("store_memory returns the stored memory", zh["memory"]["id"] and en["memory"]["memory_type"] == "semantic", (zh, en))
    check_(f"memories land in namespace {namespace!r}", zh["memory"]["namespace"] == namespace, zh)

    hits = payload(await session.call_tool("retrieve_memory", {"query": "爬山"}))["hits"]
    check_("a Chinese query finds the Chinese memory", hits and hits[0]["memory"]["id"] == zh["memory"]["id"], hits)
    hits = payload(await session.call_tool("retrieve_memory", {"query": "端口 8765", "explain": True}))["hits"]
    check_("a mixed query finds the port", hits and hits[0]["memory"]["id"] == en["memory"]["id"], hits)
    check_("explain returns the score's derivation", "relevance" in json.dumps(hits[0].get("explanation")), hits)

    fixed = payload(await session.call_tool("update_memory", {"id": en["memory"]["id"], "content": "The MCP server listens on port 9000"}))
    check_("update_memory corrects content", fixed["memory"]["content"].endswith("9000"), fixed)
    listed = payload(await session.call_tool("list_memories", {}))["memories"]
    check_("list_memories lists both", len(listed) == 2, listed)
    stats = payload(await session.call_tool("memory_stats", {}))
    check_("memory_stats reports keyword-only mode", stats["embedding"]["degraded"] is True, stats)

    deleted = await session.call_tool("delete_memory", {"id": zh["memory"]["id"]})
    check_("delete_memory succeeds", not deleted.is_error, deleted)
    missing = await session.call_tool("get_memory", {"id": zh["memory"]["id"]})
    check_("a missing memory is a tool error, not a protocol error",
          missing.is_error and "not found" in missing.content[0].text, missing)
    cleaned = await session.call_tool("cleanup_expired", {})
    check_("cleanup_expired reports how many it deleted",
          not cleaned.is_error and cleaned.structured_content.get("cleaned") == 0, cleaned)

    # Lifecycle: dedup-merge, a session's working memory → episodes, distillation, archive.
    first = payload(await session.call_tool("store_memory", {"content": "周五的周会改到下午三点"}))
    again = payload(await session.call_tool("store_memory", {"content": "周五的周会改到下午三点"}))
    check_("storing the same text again merges into it",
          again["merged"] and again["merged"]["into"] == first["memory"]["id"], again)
    for text, role in [("我对花生过敏，点餐时要注意", "user"), ("好的，我记住了", "assistant")]:
        await session.call_tool("store_memory", {"content": text, "memory_type": "working",
                                                 "session_id": "dinner", "metadata": {"role": role}})
    ended = payload(await session.call_tool("end_session", {"session_id": "dinner"}))
    check_("end_session turns the user's statement into an episode",
          ended["working_memories"] == 2 and len(ended["episodes"]) == 1
          and ended["episodes"][0]["memory"]["memory_type"] == "episodic", ended)
    episode = ended["episodes"][0]["memory"]["id"]
    distilled = payload(await session.call_tool("summarize_episodes", {
        "episode_ids": [episode, first["memory"]["id"]], "instruction": "过敏"}))
    check_("summarize_episodes writes a semantic memory with its sources and says how",
          distilled["memory"]["memory_type"] == "semantic"
          and len(distilled["memory"]["source_ids"]) == 2
          and distilled["method"].startswith("extractive") and distilled["originals_changed"] == 2, distilled)
    restored = payload(await session.call_tool("restore_memory", {"ids": [episode]}))
    check_("restore_memory brings an archived episode back",
          restored["memories"][0]["archived"] is False, restored)

    for name, args, field in [
        ("retrieve_memory", {"query": "x", "top_k": 0}, "top_k"),
        ("store_memory", {"content": "x", "memory_type": "longterm"}, "memory_type"),
        ("store_memory", {"content": "   "}, "content"),
        ("get_memory", {"id": "not-a-uuid"}, "id"),
        ("store_memory", {"memory_type": "semantic"}, "content"),
        ("retrieve_memory", {"query": "x", "top_k": "five"}, "top_k"),
        ("store_memory", {"content": "x", "colour": "red"}, "colour"),
    ]:
        try:
            result = await session.call_tool(name, args)
            check_(f"{name} {args} is invalid params", False, result)
        except MCPError as e:
            check_(f"{name} {args} is invalid params naming {field}",
                  e.error.code == -32602 and field in e.error.message, e.error)


if __name__ == "__main__":
    try:
        asyncio.run(main(sys.argv[1]))
        asyncio.run(many_processes(sys.argv[1]))
    except Exception:  # noqa: BLE001 - any crash is a failed check
        traceback.print_exc()
        RESULTS.append(False)
    finish("mcp e2e")
