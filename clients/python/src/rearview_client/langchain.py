"""LangChain: :class:`RearviewRetriever` (recall as a retriever) and :func:`memory_tools` (the
``store_memory`` and ``recall_memory`` tools for an agent)."""

from __future__ import annotations

from typing import Any

try:
    from langchain_core.callbacks import (
        AsyncCallbackManagerForRetrieverRun,
        CallbackManagerForRetrieverRun,
    )
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.tools import BaseTool, StructuredTool
    from pydantic import BaseModel, Field
except ImportError as exc:  # pragma: no cover
    raise ImportError(
        "rearview_client.langchain needs LangChain: pip install 'rearview-client[langchain]'"
    ) from exc

from ._tools import (
    CONTENT_HELP,
    MEMORY_TYPE_HELP,
    QUERY_HELP,
    RECALL_DESCRIPTION,
    STORE_DESCRIPTION,
    TAGS_HELP,
    TOP_K_HELP,
    recall_text,
    stored_text,
)
from .client import AsyncClient, Client, _twin
from .models import MemoryType, RecallHit, RecallResult, StoreResult

__all__ = ["RearviewRetriever", "StoreMemoryInput", "RecallMemoryInput", "memory_tools"]


def hit_document(hit: RecallHit) -> Document:
    """A recalled memory as a LangChain document: its text, with the memory's fields and the
    score in ``metadata``."""
    memory = hit.memory
    return Document(
        id=memory.id,
        page_content=memory.content,
        metadata={
            "id": memory.id,
            "score": hit.score,
            "namespace": memory.namespace,
            "memory_type": memory.memory_type,
            "session_id": memory.session_id,
            "occurred_at": memory.occurred_at.isoformat(),
            "timestamp": memory.timestamp.isoformat(),
            "tags": memory.tags,
            "metadata": memory.metadata,
        },
    )


class RearviewRetriever(BaseRetriever):
    """Recall as a retriever: ``RearviewRetriever(client=Client(), top_k=5).invoke("query")``.

    Without a client one is made from the environment. ``ainvoke`` uses ``async_client`` when
    given, else runs the blocking client in a thread.
    """

    client: Client | None = None
    async_client: AsyncClient | None = None
    top_k: int = 5
    namespace: str | None = None
    memory_type: MemoryType | None = None
    tags: list[str] | None = None
    min_relevance: float | None = None

    def model_post_init(self, context: Any, /) -> None:
        if self.client is None:
            self.client = _twin(self.async_client, Client) if self.async_client else Client()

    def _recall_args(self) -> dict[str, Any]:
        return {
            "top_k": self.top_k,
            "namespace": self.namespace,
            "memory_type": self.memory_type,
            "tags": self.tags,
            "min_relevance": self.min_relevance,
        }

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        result = self.client.recall(query, **self._recall_args())  # type: ignore[union-attr]
        return [hit_document(h) for h in result.hits]

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        if self.async_client is None:
            return await super()._aget_relevant_documents(query, run_manager=run_manager)
        result = await self.async_client.recall(query, **self._recall_args())
        return [hit_document(h) for h in result.hits]


class StoreMemoryInput(BaseModel):
    """Arguments of ``store_memory``."""

    content: str = Field(description=CONTENT_HELP, min_length=1)
    memory_type: MemoryType = Field(default="episodic", description=MEMORY_TYPE_HELP)
    tags: list[str] | None = Field(default=None, description=TAGS_HELP)


class RecallMemoryInput(BaseModel):
    """Arguments of ``recall_memory``."""

    query: str = Field(description=QUERY_HELP, min_length=1)
    top_k: int = Field(default=5, ge=1, le=100, description=TOP_K_HELP)


def memory_tools(
    client: Client | None = None,
    *,
    async_client: AsyncClient | None = None,
    namespace: str | None = None,
) -> list[BaseTool]:
    """``[store_memory, recall_memory]`` as LangChain tools. Each answers the model with text and
    keeps the typed answer (:class:`StoreResult`, :class:`RecallResult`) as the tool message's
    ``artifact``. Without clients a blocking one is made from the environment; async calls use
    ``async_client`` when given, else run the blocking client in a thread."""
    if client is None:
        client = _twin(async_client, Client) if async_client else Client()

    def store_args(content: str, memory_type: str, tags: list[str] | None) -> dict[str, Any]:
        metadata = {"tags": list(tags)} if tags else None
        return {
            "content": content,
            "memory_type": memory_type,
            "metadata": metadata,
            "namespace": namespace,
        }

    def store(
        content: str, memory_type: MemoryType = "episodic", tags: list[str] | None = None
    ) -> tuple[str, StoreResult]:
        result = client.store(**store_args(content, memory_type, tags))
        return stored_text(result), result

    async def astore(
        content: str, memory_type: MemoryType = "episodic", tags: list[str] | None = None
    ) -> tuple[str, StoreResult]:
        result = await async_client.store(**store_args(content, memory_type, tags))  # type: ignore[union-attr]
        return stored_text(result), result

    def recall(query: str, top_k: int = 5) -> tuple[str, RecallResult]:
        result = client.recall(query, top_k=top_k, namespace=namespace)
        return recall_text(result), result

    async def arecall(query: str, top_k: int = 5) -> tuple[str, RecallResult]:
        result = await async_client.recall(query, top_k=top_k, namespace=namespace)  # type: ignore[union-attr]
        return recall_text(result), result

    has_async = async_client is not None
    return [
        StructuredTool.from_function(
            func=store,
            coroutine=astore if has_async else None,
            name="store_memory",
            description=STORE_DESCRIPTION,
            args_schema=StoreMemoryInput,
            response_format="content_and_artifact",
        ),
        StructuredTool.from_function(
            func=recall,
            coroutine=arecall if has_async else None,
            name="recall_memory",
            description=RECALL_DESCRIPTION,
            args_schema=RecallMemoryInput,
            response_format="content_and_artifact",
        ),
    ]
