"""LangChain agent tools from rearview's MCP server, via langchain-mcp-adapters.

This is the current way to give a LangChain (or LangGraph) agent MCP tools: the adapter turns
every tool rearview lists into a LangChain tool with its JSON schema. Hand `tools` to your agent:

    from langchain.agents import create_agent
    agent = create_agent("openai:gpt-4.1", tools)

Without an LLM key, this script drives the tools itself, as the agent would.

Usage: REARVIEW_URL=http://127.0.0.1:8765 python langchain_mcp.py
"""

import asyncio
import json
import os

from langchain_mcp_adapters.client import MultiServerMCPClient


async def main() -> None:
    url = os.environ.get("REARVIEW_URL", "http://127.0.0.1:8765")
    client = MultiServerMCPClient(
        {
            "rearview": {
                "transport": "streamable_http",
                "url": f"{url}/mcp",
                # Each user (or agent) gets its own namespace; memories never cross.
                "headers": {"X-Rearview-Namespace": "langchain-demo"},
            }
        }
    )
    tools = {tool.name: tool for tool in await client.get_tools()}
    print("tools:", ", ".join(sorted(tools)))
    for name in ("store_memory", "retrieve_memory", "end_session", "summarize_episodes"):
        assert name in tools, f"rearview did not list {name}"

    await tools["store_memory"].ainvoke(
        {"content": "用户偏好深色主题，编辑器用 Neovim", "memory_type": "semantic"}
    )
    await tools["store_memory"].ainvoke(
        {"content": "The staging database moved to PostgreSQL 16 on port 5433"}
    )
    answer = await tools["retrieve_memory"].ainvoke({"query": "which port does the database use?"})
    text = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)
    print("retrieve_memory:", text[:300])
    assert "5433" in text, "the database memory is recalled"
    answer = await tools["retrieve_memory"].ainvoke({"query": "主题偏好"})
    text = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)
    assert "深色主题" in text, "the Chinese preference is recalled"
    print("ok: LangChain tools over MCP store and recall (zh + en)")


if __name__ == "__main__":
    asyncio.run(main())
