"""The design article's own LangChain tools (§4.5), against rearview's plain-HTTP endpoint.

The article wraps two functions that POST to `/mcp/tools/call` as LangChain `Tool`s. rearview
serves that endpoint with the same tools as over MCP, so the article's code runs unchanged
(`langchain.agents.Tool` is `langchain_core.tools.Tool`). With an LLM you would pass `tools` to
an agent; here the script calls them directly, so it runs without a key.

Usage: REARVIEW_URL=http://127.0.0.1:8765 python langchain_http_tools.py
"""

import os

import requests
from langchain_core.tools import Tool

URL = os.environ.get("REARVIEW_URL", "http://127.0.0.1:8765")


def store_memory(content: str, memory_type: str = "episodic") -> str:
    resp = requests.post(
        f"{URL}/mcp/tools/call",
        json={"name": "store_memory", "arguments": {"content": content, "memory_type": memory_type}},
        timeout=30,
    )
    resp.raise_for_status()
    # The article reads ["result"]["status"]; rearview's result is the stored memory.
    return resp.json()["result"]["memory"]["id"]


def retrieve_memory(query: str) -> str:
    resp = requests.post(
        f"{URL}/mcp/tools/call",
        json={"name": "retrieve_memory", "arguments": {"query": query, "top_k": 5}},
        timeout=30,
    )
    resp.raise_for_status()
    results = resp.json()["result"]["hits"]
    return "\n".join([r["memory"]["content"] for r in results])


tools = [
    Tool(name="store_memory", func=store_memory, description="存储重要信息到长期记忆"),
    Tool(name="retrieve_memory", func=retrieve_memory, description="从长期记忆中检索相关信息"),
]


if __name__ == "__main__":
    store, retrieve = tools
    print("stored", store.invoke("用户要求把数据库从 MySQL 迁移到 PostgreSQL"))
    print("stored", store.invoke("The user prefers answers in bullet points"))
    recalled = retrieve.invoke("数据库迁移")
    print("retrieve_memory:", recalled.replace("\n", " | "))
    assert "PostgreSQL" in recalled, recalled
    recalled = retrieve.invoke("how should answers be formatted?")
    assert "bullet points" in recalled, recalled
    # Bad arguments are a 400 naming the field, not a silent failure.
    bad = requests.post(f"{URL}/mcp/tools/call", json={"name": "store_memory", "arguments": {}}, timeout=30)
    assert bad.status_code == 400 and "content" in bad.json()["error"], bad.text
    print("ok: the article's plain-HTTP LangChain tools work against rearview")
