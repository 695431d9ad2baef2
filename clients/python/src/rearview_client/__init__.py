"""Python client for rearview, long-term memory for LLM agents.

>>> from rearview_client import Client
>>> client = Client()                      # REARVIEW_URL, REARVIEW_API_KEY, REARVIEW_NAMESPACE
>>> client.store("The user prefers dark mode", memory_type="semantic")
>>> for hit in client.recall("theme preference", top_k=5):
...     print(hit.score, hit.memory.content)

Integrations (optional extras): ``rearview_client.langgraph`` (a LangGraph ``BaseStore``),
``rearview_client.langchain`` (a retriever and tools), ``rearview_client.openai_agents`` (tools
and a ``Session`` for the OpenAI Agents SDK).
"""

from ._version import __version__
from .client import DEFAULT_URL, AsyncClient, Client
from .errors import (
    Forbidden,
    HostNotAllowed,
    InternalError,
    InvalidInput,
    MethodNotAllowed,
    NotFound,
    Overloaded,
    PayloadTooLarge,
    RateLimited,
    RearviewError,
    RequestTimeout,
    Timeout,
    ToolError,
    TransportError,
    Unauthorized,
    Unavailable,
)
from .models import (
    ApiKey,
    CleanupResult,
    Distillation,
    DistillationPreview,
    EmbeddingModel,
    EmbeddingStats,
    IndexUsage,
    Link,
    LinkResult,
    Memory,
    Merge,
    ModelVectors,
    PendingReview,
    PossibleUpdate,
    RecallHit,
    RecallResult,
    SessionEnd,
    Stats,
    StoreResult,
    Suggestion,
    Superseded,
    Timeline,
)

__all__ = [
    "ApiKey",
    "IndexUsage",
    "DEFAULT_URL",
    "AsyncClient",
    "CleanupResult",
    "Client",
    "Distillation",
    "DistillationPreview",
    "EmbeddingModel",
    "EmbeddingStats",
    "Forbidden",
    "HostNotAllowed",
    "InternalError",
    "InvalidInput",
    "Link",
    "LinkResult",
    "Memory",
    "Merge",
    "MethodNotAllowed",
    "ModelVectors",
    "NotFound",
    "Overloaded",
    "PayloadTooLarge",
    "PendingReview",
    "PossibleUpdate",
    "RateLimited",
    "RearviewError",
    "RecallHit",
    "RecallResult",
    "RequestTimeout",
    "SessionEnd",
    "Stats",
    "StoreResult",
    "Suggestion",
    "Superseded",
    "Timeline",
    "Timeout",
    "ToolError",
    "TransportError",
    "Unauthorized",
    "Unavailable",
    "__version__",
]
