"""Typed answers of the REST API (pydantic v2).

Each model mirrors a schema of the server's ``/openapi.json`` (named in its docstring), field for
field: a field without a default is one the schema lists as required (it may still be null where
the schema allows it). ``tests/test_openapi_drift.py`` compares them with the document. Fields a
newer server adds are kept (``extra="allow"``, see ``model_extra``) rather than refused.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

MemoryType = Literal["working", "episodic", "semantic"]
"""A memory tier."""

DistillMethod = Literal["llm", "extractive-embeddings", "extractive-keywords"]
"""How a distillation was written (schema ``DistillMethod``)."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=False)


class Link(_Model):
    """Who made a memory history and why. Schema ``Link``."""

    made_by: str
    """``caller``, ``llm``, ``rule`` or ``update``."""
    reason: str


class PossibleUpdate(_Model):
    """An older memory a newer one may change. Schema ``PossibleUpdate``."""

    id: str
    similarity: float | None
    why: str
    content: str | None = None
    """The older memory's text (in a store's answer and the review list)."""


class Memory(_Model):
    """A memory. Schema ``Memory``."""

    id: str
    namespace: str
    memory_type: str
    content: str
    summary: str | None = None
    metadata: dict[str, Any]
    session_id: str | None
    ttl: int
    timestamp: datetime
    occurred_at: datetime
    updated_at: datetime
    last_accessed_at: datetime | None
    # Past the year 9999 (a TTL of thousands of years) the server writes ISO 8601's expanded
    # year (`+33715-09-03T14:02:34Z`), which no `datetime` holds: then the text itself.
    expires_at: Annotated[datetime | str | None, Field(union_mode="left_to_right")]
    access_count: int
    archived: bool
    source_ids: list[str]
    content_hash: str
    superseded_by: str | None
    invalid_at: datetime | None
    link: Link | None = None
    possible_updates: list[PossibleUpdate] = Field(default_factory=list)

    @property
    def tags(self) -> list[str]:
        """``metadata.tags``."""
        tags = self.metadata.get("tags")
        return list(tags) if isinstance(tags, list) else []


class Superseded(_Model):
    """A memory a store or a link made history (items of ``superseded`` in the store and link
    answers). Schema ``SupersededMemory``."""

    id: str
    made_by: str
    reason: str


class Merge(_Model):
    """How a stored text was merged into an existing memory (the store answer's ``merged``).
    Schema ``MergedView``."""

    into: str
    exact: bool
    similarity: float | None
    content_replaced: bool


class StoreResult(_Model):
    """Answer of ``POST /v1/memories`` (and each of a session end's ``episodes``). Schema
    ``Stored``."""

    id: str
    status: Literal["stored", "merged"]
    memory: Memory
    merged: Merge | None
    superseded: list[Superseded]
    possible_updates: list[PossibleUpdate]


class RecallHit(_Model):
    """One recalled memory. Schema ``RecallHit``."""

    score: float
    memory: Memory
    summarized: bool = False
    explanation: Any | None = None


class Took(_Model):
    """Where a recall's time went, in ms. Schema ``TookView``."""

    embed: float
    search: float


class RecallResult(_Model):
    """Answer of ``POST /v1/recall``. Schema ``RecallResult``."""

    as_of: datetime
    vector_search: str
    query_terms: list[str]
    hits: list[RecallHit]
    below_floor: int
    over_budget: int | None = None
    took_ms: Took

    def __iter__(self) -> Iterator[RecallHit]:  # type: ignore[override]
        """The hits, best first: ``for hit in client.recall(...)`` (``dict(result)`` is thus not
        the fields; use ``model_dump()``)."""
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)

    def __getitem__(self, index: int) -> RecallHit:
        return self.hits[index]


class SessionEnd(_Model):
    """Answer of ``POST /v1/sessions/end``. Schema ``SessionEnded``."""

    working_memories: int
    small_talk: int
    method: str
    model: str | None
    episodes: list[StoreResult]


class Distillation(_Model):
    """Answer of ``POST /v1/summarize``. Schema ``Distilled``."""

    memory: Memory
    method: DistillMethod
    model: str | None
    originals_changed: int
    already_existed: bool


class DistillationPreview(_Model):
    """Answer of ``POST /v1/summarize`` with ``dry_run`` (its ``preview``). Schema
    ``PreviewView``."""

    content: str
    method: DistillMethod
    model: str | None
    sources: int


class Suggestion(_Model):
    """A group of similar episodes worth distilling (``POST /v1/suggest-distillations``). Schema
    ``SuggestionView``."""

    episode_ids: list[str]
    cohesion: float
    previews: list[str]


class LinkResult(_Model):
    """Answer of ``POST /v1/link``. Schema ``Linked``."""

    memory: Memory
    superseded: list[Superseded]


class PendingReview(_Model):
    """An item of ``GET /v1/possible-updates``. Schema ``PendingView``."""

    memory: Memory
    possible_updates: list[PossibleUpdate]


class TierStats(_Model):
    """Counts of one namespace and tier (``GET /v1/stats``). Schema ``TierCountView``."""

    namespace: str
    memory_type: str
    live: int
    archived: int
    superseded: int
    expired: int


class IndexUsage(_Model):
    """The server's in-memory search indexes (``GET /v1/stats``, admin keys; zeros otherwise).
    Schema ``IndexesView``."""

    namespaces_loaded: int
    """Namespaces whose indexes are in memory."""
    bytes: int
    """Roughly the bytes they hold."""
    budget_bytes: int | None
    """``index_memory``; ``None`` when every namespace is loaded at start."""
    evictions: int
    """Namespaces dropped from memory since start, least recently used first."""


class ModelVectors(_Model):
    """Stored vectors of one embedding model (``GET /v1/stats``). Schema ``ModelVectorsView``."""

    model: str
    vectors: int


class EmbeddingModel(_Model):
    """An embedding model in use (``GET /v1/stats``). Schema ``ModelView``."""

    model: str
    dimensions: int


class EmbeddingStats(_Model):
    """The embedding models' state (``GET /v1/stats``). Schema ``EmbeddingView``."""

    model: str | None
    """The primary model; ``None`` in keyword-only mode."""
    dimensions: int | None
    models: list[EmbeddingModel]
    """Every model in use, primary first."""
    degraded: bool
    """True when recall is keyword-only."""
    status: str
    """``ready``, or why recall is keyword-only."""
    indexed_vectors: int
    graph_vectors: int
    pending: int
    """Missing vectors waiting for backfill."""


class Stats(_Model):
    """Answer of ``GET /v1/stats``: what the caller may see. Schema ``Stats``."""

    store: str
    size_bytes: int
    tiers: list[TierStats]
    vectors_per_model: list[ModelVectors]
    embedding: EmbeddingStats
    indexes: IndexUsage
    """The in-memory search indexes (loaded on demand within ``index_memory``)."""
    granted: list[str] | None = None
    """For a key limited to some namespaces: those namespaces (also the empty ones)."""

    @property
    def namespaces(self) -> list[str]:
        """The namespaces holding memories (expired ones aside), sorted."""
        held = {t.namespace for t in self.tiers if t.live + t.archived + t.superseded > 0}
        return sorted(held)


class ApiKey(_Model):
    """An API key as ``/v1/keys`` shows it; ``key`` (the secret) only in the answer to its
    creation. Schema ``ApiKey``."""

    id: str
    namespaces: list[str]
    admin: bool
    label: str | None
    created_at: datetime
    expires_at: datetime | None
    revoked_at: datetime | None
    active: bool
    key: str | None = None


class TimelineDay(_Model):
    """Memories per tier whose event happened on ``day``. Schema ``DayView``."""

    day: date
    working: int
    episodic: int
    semantic: int


class LatencyMinute(_Model):
    """Recall latency over one minute (admin keys only). Schema ``MinuteView``."""

    minute: datetime
    count: int
    p50_ms: float
    p99_ms: float


class Timeline(_Model):
    """Answer of ``GET /v1/timeline``. Schema ``Timeline``."""

    namespace: str
    days: int
    tiers: list[TimelineDay]
    recall_latency: list[LatencyMinute]


class CleanupResult(_Model):
    """Answer of ``POST /v1/cleanup``. Schema ``Cleaned``."""

    cleaned: int
    namespace: str
    """The namespace cleaned."""


class ErrorBody(_Model):
    """An error answer. Schema ``Error``."""

    code: str
    message: str


__all__ = [
    "ApiKey",
    "IndexUsage",
    "CleanupResult",
    "DistillMethod",
    "Distillation",
    "DistillationPreview",
    "EmbeddingModel",
    "EmbeddingStats",
    "ErrorBody",
    "LatencyMinute",
    "Link",
    "LinkResult",
    "Memory",
    "MemoryType",
    "Merge",
    "ModelVectors",
    "PendingReview",
    "PossibleUpdate",
    "RecallHit",
    "RecallResult",
    "SessionEnd",
    "Stats",
    "StoreResult",
    "Suggestion",
    "Superseded",
    "TierStats",
    "Timeline",
    "TimelineDay",
    "Took",
]
