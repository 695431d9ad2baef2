"""A minimal agent loop with rearview as its memory, the usage pattern the design describes.

For every user turn the agent
1. retrieves what it remembers that is relevant to the turn (`retrieve_memory`),
2. answers with those memories in its context,
3. stores the turn as working memory of this conversation (`store_memory`, session_id);
and when the conversation ends it calls `end_session`, which turns the session's working
memories into lasting episodic memories (by the LLM if rearview has one, else by rule) and lets
the working memories expire. A later conversation then recalls them.

The "LLM" here answers from the recalled memories alone, so the loop runs without a key; point
`answer()` at your model to make it real (e.g. an OpenAI-compatible chat endpoint).

Usage: REARVIEW_URL=http://127.0.0.1:8765 python agent_loop.py
"""

import asyncio
import json
import os
import uuid

from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client

URL = os.environ.get("REARVIEW_URL", "http://127.0.0.1:8765")
USER = "alice"  # one namespace per user: memories never cross users


def payload(result) -> dict:
    if result.isError:
        raise RuntimeError(result.content[0].text)
    if result.structuredContent is not None:
        return result.structuredContent
    return json.loads(result.content[0].text)


def answer(turn: str, memories: list[str]) -> str:
    """Stand-in for the LLM call: a real agent sends `memories` + `turn` to its model."""
    if not memories:
        return "(nothing relevant remembered yet)"
    return "I remember: " + " / ".join(memories[:2])


async def conversation(session: ClientSession, turns: list[str]) -> list[str]:
    session_id = f"chat-{uuid.uuid4()}"
    replies = []
    for turn in turns:
        recalled = payload(await session.call_tool("retrieve_memory", {"query": turn, "top_k": 3}))
        memories = [hit["memory"]["content"] for hit in recalled["hits"]]
        reply = answer(turn, memories)
        replies.append(reply)
        print(f"user: {turn}\nagent: {reply}")
        await session.call_tool(
            "store_memory",
            {
                "content": turn,
                "memory_type": "working",
                "session_id": session_id,
                "metadata": {"role": "user"},
            },
        )
    ended = payload(await session.call_tool("end_session", {"session_id": session_id}))
    print(f"end_session: {len(ended['episodes'])} episodes kept, "
          f"{ended['working_memories']} working memories expired\n")
    return replies


async def main() -> None:
    async with streamablehttp_client(f"{URL}/mcp", headers={"X-Rearview-Namespace": USER}) as (
        read,
        write,
        _,
    ):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await conversation(
                session,
                [
                    "我下周三要去上海出差，住在静安区的酒店",
                    "Remember that my manager's name is Priya and our team uses Rust",
                    "What's the weather like today?",
                ],
            )
            replies = await conversation(
                session,
                ["我上海出差住在哪个区？", "Who is my manager?"],
            )
            assert "静安" in replies[0], replies[0]
            assert "Priya" in replies[1], replies[1]
            print("ok: a new conversation recalls what the last one stored")


if __name__ == "__main__":
    asyncio.run(main())
