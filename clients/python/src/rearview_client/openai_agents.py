"""OpenAI Agents SDK (``openai-agents``): :func:`memory_tools`, the ``store_memory`` and
``recall_memory`` function tools, and :class:`RearviewSession`, a ``Session`` (the SDK's
conversation-history protocol) kept in rearview.

A session's items are ``working`` memories of rearview session ``session_id``: the item itself
(JSON, as the SDK gave it) and its position in ``metadata.openai_agents = {"item", "seq"}``, its
text as the memory's content and its role in ``metadata.role``, so that rearview's recall finds
the conversation and :meth:`RearviewSession.end` (``POST /v1/sessions/end``) can turn it into
episodes.
"""

from __future__ import annotations

import json
from typing import Any, Literal

try:
    from agents import FunctionTool, function_tool
except ImportError as exc:  # pragma: no cover
    raise ImportError(
        "rearview_client.openai_agents needs the OpenAI Agents SDK: "
        "pip install 'rearview-client[openai-agents]'"
    ) from exc

from ._tools import RECALL_DESCRIPTION, STORE_DESCRIPTION, recall_text, stored_text
from .client import AsyncClient, Client, _twin
from .models import Memory, SessionEnd

__all__ = ["RearviewSession", "memory_tools"]

META = "openai_agents"
"""The metadata field holding ``{"item", "seq"}``."""
_PAGE = 1000
_MAX_TEXT = 8000


def memory_tools(
    client: AsyncClient | Client | None = None, *, namespace: str | None = None
) -> list[FunctionTool]:
    """``[store_memory, recall_memory]`` as the SDK's function tools:
    ``Agent(..., tools=memory_tools(AsyncClient()))``. A blocking :class:`Client` is turned into
    an async one with the same settings; without a client one is made from the environment."""
    if not isinstance(client, AsyncClient):
        client = _twin(client, AsyncClient) if client else AsyncClient()
    api = client

    @function_tool(name_override="store_memory", description_override=STORE_DESCRIPTION)
    async def store_memory(
        content: str,
        memory_type: Literal["working", "episodic", "semantic"] = "episodic",
        tags: list[str] | None = None,
    ) -> str:
        """Remember something.

        Args:
            content: The statement to remember, understandable without the conversation.
            memory_type: 'working', 'episodic' (default) or 'semantic'.
            tags: Optional tags to filter by later, e.g. ['travel'].
        """
        metadata = {"tags": list(tags)} if tags else None
        result = await api.store(
            content, memory_type=memory_type, metadata=metadata, namespace=namespace
        )
        return stored_text(result)

    @function_tool(name_override="recall_memory", description_override=RECALL_DESCRIPTION)
    async def recall_memory(query: str, top_k: int = 5) -> str:
        """Search memory.

        Args:
            query: What to look for.
            top_k: How many memories to return, 1 to 100.
        """
        result = await api.recall(query, top_k=top_k, namespace=namespace)
        return recall_text(result)

    return [store_memory, recall_memory]


class RearviewSession:
    """The SDK's ``Session`` protocol on rearview: ``Runner.run(agent, "hi",
    session=RearviewSession("user-42", AsyncClient()))``.

    ``ttl`` is the items' time to live in seconds (default 0: kept until cleared or ended;
    ``None``: rearview's working-memory default, one hour). ``session_settings.limit`` is the
    default for :meth:`get_items`.
    """

    def __init__(
        self,
        session_id: str,
        client: AsyncClient | Client | None = None,
        *,
        namespace: str | None = None,
        ttl: int | None = 0,
        session_settings: Any = None,
    ) -> None:
        if not isinstance(client, AsyncClient):
            client = _twin(client, AsyncClient) if client else AsyncClient()
        self.session_id = session_id
        self.client = client
        self.namespace = namespace
        self.ttl = ttl
        self.session_settings = session_settings

    async def get_items(self, limit: int | None = None) -> list[Any]:
        """The history, oldest first; with ``limit``, the latest ``limit`` items."""
        if limit is None and self.session_settings is not None:
            limit = getattr(self.session_settings, "limit", None)
        if limit is not None and limit <= 0:
            return []
        memories = await self._newest(limit)
        return [m.metadata[META]["item"] for m in reversed(memories)]

    async def add_items(self, items: list[Any]) -> None:
        """Append items (one memory each, in order)."""
        if not items:
            return
        last = await self._newest(1)
        seq = last[0].metadata[META]["seq"] + 1 if last else 0
        for item in items:
            role = item.get("role") if isinstance(item, dict) else None
            await self.client.store(
                _text(item),
                memory_type="working",
                metadata={META: {"item": item, "seq": seq}, "role": role or "tool"},
                ttl=self.ttl,
                session_id=self.session_id,
                dedup=False,
                namespace=self.namespace,
            )
            seq += 1

    async def pop_item(self) -> Any | None:
        """Remove and return the latest item, or ``None`` when the session is empty."""
        last = await self._newest(1)
        if not last:
            return None
        await self.client.delete(last[0].id, namespace=self.namespace)
        return last[0].metadata[META]["item"]

    async def clear_session(self) -> None:
        """Delete every item of the session."""
        for memory in await self._newest(None):
            await self.client.delete(memory.id, namespace=self.namespace)

    async def end(self) -> SessionEnd:
        """End the session in rearview: its turns become episodic memories (by the server's LLM,
        else by rule) and the working memories, so the session's items, expire."""
        return await self.client.end_session(self.session_id, namespace=self.namespace)

    async def _newest(self, limit: int | None) -> list[Memory]:
        """The session's items, latest first (all when ``limit`` is None)."""
        found: list[Memory] = []
        size = _PAGE if limit is None else min(limit, _PAGE)
        offset = 0
        while True:
            page = await self.client.list(
                memory_type="working",
                session_id=self.session_id,
                limit=size,
                offset=offset,
                namespace=self.namespace,
            )
            found += [m for m in page if isinstance(m.metadata.get(META), dict)]
            if len(page) < size or (limit is not None and len(found) >= limit):
                break
            offset += size
        found.sort(key=lambda m: m.metadata[META]["seq"], reverse=True)
        return found if limit is None else found[:limit]


def _text(item: Any) -> str:
    """An item's text for rearview: a message's text, a tool call's name and arguments, a tool's
    output; else the item as JSON."""
    if not isinstance(item, dict):
        return str(item)[:_MAX_TEXT] or "(empty)"
    content = item.get("content")
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        parts = (p.get("text") or p.get("refusal") for p in content if isinstance(p, dict))
        text = " ".join(p for p in parts if isinstance(p, str))
    elif item.get("type") == "function_call":
        text = f"{item.get('name')}({item.get('arguments', '')})"
    elif "output" in item:
        output = item["output"]
        text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
    else:
        text = ""
    text = text.strip() or json.dumps(item, ensure_ascii=False, default=str)
    return text[:_MAX_TEXT]
