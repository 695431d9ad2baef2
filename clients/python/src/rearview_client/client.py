"""``Client`` and ``AsyncClient``: the REST API over httpx.

Both share one table of operations (``_OPS``: method, path, where the arguments go, how the answer
is read) and one retry policy; they differ only in doing the I/O blocking or awaiting.
"""

from __future__ import annotations

import asyncio
import builtins
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any, Literal, NamedTuple, TypeVar
from urllib.parse import quote

import httpx

from ._version import __version__
from .errors import RearviewError, Timeout, TransportError, error_for
from .models import (
    ApiKey,
    CleanupResult,
    Distillation,
    DistillationPreview,
    LinkResult,
    Memory,
    MemoryType,
    PendingReview,
    RecallResult,
    SessionEnd,
    Stats,
    StoreResult,
    Suggestion,
    Timeline,
)

DEFAULT_URL = "http://127.0.0.1:8765"
"""Where ``rearview serve`` listens by default."""

NAMESPACE_HEADER = "X-Rearview-Namespace"
_C = TypeVar("_C", bound="_Base")
Time = datetime | str
"""An instant: a ``datetime`` (naive ones are taken as UTC) or an RFC 3339 string."""


class _Op(NamedTuple):
    method: str
    path: str
    args_in: Literal["json", "query", "none"]
    """Where the arguments other than ``id`` and ``namespace`` go."""
    parse: Callable[[Any], Any]
    namespace_in: Literal["body", "query", "header", "none"] = "header"
    """Where the namespace goes: the body's or the query string's ``namespace`` field where the
    route has one (it takes any Unicode and beats the header), else ``X-Rearview-Namespace``;
    ``none`` for routes that ignore it."""


def _memories(key: str) -> Callable[[Any], list[Memory]]:
    return lambda d: [Memory.model_validate(m) for m in d[key]]


def _summary(d: dict[str, Any]) -> Distillation | DistillationPreview:
    if "preview" in d:
        return DistillationPreview.model_validate(d["preview"])
    return Distillation.model_validate(d)


def _one_memory(d: dict[str, Any]) -> Memory:
    return Memory.model_validate(d["memory"])


_OPS: dict[str, _Op] = {
    "store": _Op("POST", "/v1/memories", "json", StoreResult.model_validate, "body"),
    "recall": _Op("POST", "/v1/recall", "json", RecallResult.model_validate, "body"),
    "get": _Op("GET", "/v1/memories/{id}", "none", _one_memory),
    "update": _Op("PATCH", "/v1/memories/{id}", "json", _one_memory, "body"),
    "delete": _Op("DELETE", "/v1/memories/{id}", "none", lambda _: None),
    "list": _Op("GET", "/v1/memories", "query", _memories("memories"), "query"),
    "history": _Op("GET", "/v1/memories/{id}/history", "none", _memories("history")),
    "end_session": _Op("POST", "/v1/sessions/end", "json", SessionEnd.model_validate, "body"),
    "summarize": _Op("POST", "/v1/summarize", "json", _summary, "body"),
    "suggest_distillations": _Op(
        "POST",
        "/v1/suggest-distillations",
        "json",
        lambda d: [Suggestion.model_validate(s) for s in d["suggestions"]],
        "body",
    ),
    "archive": _Op("POST", "/v1/archive", "json", _memories("memories"), "body"),
    "restore": _Op("POST", "/v1/restore", "json", _memories("memories"), "body"),
    "cleanup": _Op("POST", "/v1/cleanup", "none", CleanupResult.model_validate),
    "stats": _Op("GET", "/v1/stats", "none", Stats.model_validate, "none"),
    "timeline": _Op("GET", "/v1/timeline", "query", Timeline.model_validate),
    "link": _Op("POST", "/v1/link", "json", LinkResult.model_validate, "body"),
    "unlink": _Op("POST", "/v1/unlink", "json", _one_memory, "body"),
    "possible_updates": _Op(
        "GET",
        "/v1/possible-updates",
        "query",
        lambda d: [PendingReview.model_validate(p) for p in d["pending"]],
    ),
    "list_keys": _Op(
        "GET", "/v1/keys", "none", lambda d: [ApiKey.model_validate(k) for k in d["keys"]], "none"
    ),
    "create_key": _Op("POST", "/v1/keys", "json", lambda d: ApiKey.model_validate(d), "none"),
    "revoke_key": _Op("POST", "/v1/keys/{id}/revoke", "none", lambda d: d["revoked"], "none"),
}


def _wire(value: Any) -> Any:
    """A Python value as JSON: datetimes as RFC 3339 (naive = UTC), mappings as dicts, sequences as
    lists."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        return value.isoformat()
    if isinstance(value, Mapping):
        return {k: _wire(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_wire(v) for v in value]
    return value


def _query_value(value: Any) -> Any:
    """A value for the query string; a list becomes repeated keys (``tags=a&tags=b``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_query_value(v) for v in value]
    return _wire(value)


def _list_args(args: dict[str, Any]) -> dict[str, Any]:
    """``list``'s arguments with the older ``tag`` folded into ``tags``."""
    args = dict(args)
    tag = args.pop("tag", None)
    if tag is not None:
        if args.get("tags") is not None:
            raise ValueError("list() takes tags or tag (the older name for one tag), not both")
        args["tags"] = [tag]
    elif isinstance(args.get("tags"), str):
        args["tags"] = [args["tags"]]  # one tag, not its letters
    return args


def _retry_after(value: str | None) -> float | None:
    """``Retry-After`` in seconds: delta-seconds or an HTTP date."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


def _error_code(response: httpx.Response) -> str | None:
    try:
        body = response.json()
    except ValueError:
        return None
    return body.get("code") if isinstance(body, dict) else None


@dataclass(frozen=True)
class _Request:
    op: _Op
    url: str
    headers: dict[str, Any]
    params: dict[str, Any] | None
    json: dict[str, Any] | None


class _Base:
    """Configuration, request building, retries and answers, shared by both clients."""

    def __init__(
        self,
        url: str | None = None,
        api_key: str | None = None,
        namespace: str | None = None,
        *,
        timeout: float | httpx.Timeout | None = 30.0,
        max_retries: int = 2,
        max_retry_wait: float = 30.0,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.url = (url or os.environ.get("REARVIEW_URL") or DEFAULT_URL).rstrip("/")
        self.api_key = api_key or os.environ.get("REARVIEW_API_KEY") or None
        self.namespace = namespace or os.environ.get("REARVIEW_NAMESPACE") or None
        self.timeout = timeout
        if max_retries < 0 or max_retry_wait < 0:
            raise ValueError("max_retries and max_retry_wait must not be negative")
        self.max_retries = max_retries
        self.max_retry_wait = max_retry_wait
        self._extra_headers = dict(headers or {})
        user_agent = f"rearview-client-python/{__version__}"
        self._headers = {"User-Agent": user_agent, **self._extra_headers}
        if self.api_key:
            self._headers["Authorization"] = f"Bearer {self.api_key}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(url={self.url!r}, namespace={self.namespace!r})"

    def _request(self, name: str, args: dict[str, Any]) -> _Request:
        op = _OPS[name]
        args = {k: v for k, v in args.items() if k != "self" and v is not None}
        namespace = args.pop("namespace", None) or self.namespace
        path = op.path.format(id=args.pop("id")) if "{id}" in op.path else op.path
        headers: dict[str, Any] = dict(self._headers)
        if namespace is None or op.namespace_in == "none":
            pass
        elif op.namespace_in in ("body", "query"):
            args["namespace"] = namespace
        else:
            # The header carries percent-encoded UTF-8 (any namespace, Chinese ones included).
            headers[NAMESPACE_HEADER] = quote(namespace, safe="")
        params = json = None
        if op.args_in == "json":
            json = {k: _wire(v) for k, v in args.items()}
        elif op.args_in == "query":
            params = {k: _query_value(v) for k, v in args.items()}
        return _Request(op, self.url + path, headers, params, json)

    def _retry_delay(self, response: httpx.Response, attempt: int) -> float | None:
        """Seconds to wait before retrying, or ``None`` not to retry.

        429 and 503 are retried, at most ``max_retries`` times, after ``Retry-After`` (else a
        backoff of 0.5 s, 1 s, 2 s…), never waiting longer than ``max_retry_wait``. A 503
        ``unavailable`` without ``Retry-After`` is rearview saying it cannot do this (no embedding
        model, the LLM failed after its own retries): not retried."""
        if response.status_code not in (429, 503) or attempt >= self.max_retries:
            return None
        wait = _retry_after(response.headers.get("Retry-After"))
        if wait is None:
            if response.status_code == 503 and _error_code(response) == "unavailable":
                return None
            wait = min(0.5 * 2**attempt, self.max_retry_wait)
        return wait if wait <= self.max_retry_wait else None

    @staticmethod
    def _answer(request: _Request, response: httpx.Response) -> Any:
        try:
            body = response.json() if response.content else None
        except ValueError:
            body = response.text
        if response.is_error:
            retry_after = _retry_after(response.headers.get("Retry-After"))
            raise error_for(response.status_code, body, retry_after)
        return request.op.parse(body)

    @staticmethod
    def _transport_error(exc: httpx.HTTPError) -> RearviewError:
        if isinstance(exc, httpx.TimeoutException):
            return Timeout(f"no answer in time: {exc!r}")
        return TransportError(f"request failed: {exc!r}")


def _twin(client: _Base, cls: type[_C]) -> _C:
    """A client of kind ``cls`` (blocking or async) with ``client``'s settings."""
    return cls(
        client.url,
        client.api_key,
        client.namespace,
        timeout=client.timeout,
        max_retries=client.max_retries,
        max_retry_wait=client.max_retry_wait,
        headers=client._extra_headers,
    )


class Client(_Base):
    """A blocking client for a rearview server.

    Arguments default to the environment: ``REARVIEW_URL`` (else ``http://127.0.0.1:8765``),
    ``REARVIEW_API_KEY`` and ``REARVIEW_NAMESPACE`` (else the server's default: the key's only
    namespace, or ``default``). Every method takes ``namespace=`` to work in another namespace.

    ``timeout`` (seconds, or an ``httpx.Timeout``) bounds each attempt; ``http_client`` replaces
    the underlying ``httpx.Client`` (its own timeout then applies). Answers 429 and 503 are
    retried up to ``max_retries`` times, after ``Retry-After`` seconds (else a backoff of 0.5 s,
    1 s, 2 s…), unless that is longer than ``max_retry_wait``; a 503 ``unavailable`` without
    ``Retry-After`` (the server cannot do this at all) is not. Errors raise
    :class:`~rearview_client.errors.RearviewError` subclasses.
    """

    def __init__(
        self,
        url: str | None = None,
        api_key: str | None = None,
        namespace: str | None = None,
        *,
        timeout: float | httpx.Timeout | None = 30.0,
        max_retries: int = 2,
        max_retry_wait: float = 30.0,
        headers: Mapping[str, str] | None = None,
        http_client: httpx.Client | None = None,
    ) -> None:
        super().__init__(
            url,
            api_key,
            namespace,
            timeout=timeout,
            max_retries=max_retries,
            max_retry_wait=max_retry_wait,
            headers=headers,
        )
        self._http = http_client or httpx.Client(timeout=timeout)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(self, name: str, args: dict[str, Any]) -> Any:
        request = self._request(name, args)
        attempt = 0
        while True:
            try:
                response = self._http.request(
                    request.op.method,
                    request.url,
                    headers=request.headers,
                    params=request.params,
                    json=request.json,
                )
            except httpx.HTTPError as exc:
                raise self._transport_error(exc) from exc
            delay = self._retry_delay(response, attempt)
            if delay is None:
                return self._answer(request, response)
            attempt += 1
            time.sleep(delay)

    # Memories

    def store(
        self,
        content: str,
        *,
        memory_type: MemoryType | None = None,
        metadata: Mapping[str, Any] | None = None,
        ttl: int | None = None,
        session_id: str | None = None,
        occurred_at: Time | None = None,
        dedup: bool | None = None,
        supersedes: Sequence[str] | None = None,
        namespace: str | None = None,
    ) -> StoreResult:
        """Store a memory. The answer's ``memory`` is the stored memory (or, ``status ==
        "merged"``, the one it was merged into); ``superseded`` what it replaced and
        ``possible_updates`` the older memories it may change (confirm with :meth:`link`).

        ``memory_type``: ``working``, ``episodic`` (server default) or ``semantic``; ``ttl``:
        seconds, 0 = never; ``metadata.tags`` (a list of strings) is filterable."""
        return self._call("store", locals())

    def recall(
        self,
        query: str,
        *,
        top_k: int | None = None,
        memory_type: MemoryType | None = None,
        session_id: str | None = None,
        tags: Sequence[str] | None = None,
        include_archived: bool | None = None,
        include_superseded: bool | None = None,
        as_of: Time | None = None,
        tier_priority: bool | None = None,
        explain: bool | None = None,
        models: Sequence[str] | None = None,
        min_relevance: float | None = None,
        max_tokens: int | None = None,
        count_access: bool | None = None,
        namespace: str | None = None,
    ) -> RecallResult:
        """The memories most relevant to ``query``, best first (``top_k``: 1 to 100, default 5).
        The result iterates over its hits: ``hit.score``, ``hit.memory.content``.
        ``count_access=False`` reads without counting the hits as accessed (a preview)."""
        return self._call("recall", locals())

    def get(self, id: str, *, namespace: str | None = None) -> Memory:
        """One memory (also a superseded or archived one)."""
        return self._call("get", locals())

    def update(
        self,
        id: str,
        *,
        content: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        memory_type: MemoryType | None = None,
        ttl: int | None = None,
        namespace: str | None = None,
    ) -> Memory:
        """Correct a memory: a changed text is kept as history; ``metadata`` replaces the whole
        object; ``ttl`` counts from now. Give at least one change (``namespace`` is none)."""
        return self._call("update", locals())

    def delete(self, id: str, *, namespace: str | None = None) -> None:
        """Delete a memory (and the earlier texts an update kept)."""
        return self._call("delete", locals())

    def list(
        self,
        *,
        memory_type: MemoryType | None = None,
        session_id: str | None = None,
        tags: Sequence[str] | None = None,
        tag: str | None = None,
        include_archived: bool | None = None,
        include_superseded: bool | None = None,
        occurred_after: Time | None = None,
        occurred_before: Time | None = None,
        limit: int | None = None,
        offset: int | None = None,
        namespace: str | None = None,
    ) -> builtins.list[Memory]:
        """One page of memories, newest event first (``limit`` 1 to 1000, default 20).

        ``tags``: only memories carrying all of them (``metadata.tags``). ``tag`` is the older
        name for one tag (``tag="x"`` is ``tags=["x"]``); giving both is a ``ValueError``."""
        return self._call("list", _list_args(locals()))

    def history(self, id: str, *, namespace: str | None = None) -> builtins.list[Memory]:
        """The earlier texts and statements a memory replaced, latest replaced first."""
        return self._call("history", locals())

    # Lifecycle

    def end_session(self, session_id: str, *, namespace: str | None = None) -> SessionEnd:
        """End a session: its working memories become episodes (and expire)."""
        return self._call("end_session", locals())

    def summarize(
        self,
        episode_ids: Sequence[str],
        *,
        instruction: str | None = None,
        originals: Literal["archive", "delete", "keep"] | None = None,
        dry_run: bool | None = None,
        namespace: str | None = None,
    ) -> Distillation | DistillationPreview:
        """Distil memories into one semantic memory; with ``dry_run=True`` only a
        :class:`DistillationPreview` and nothing is written."""
        return self._call("summarize", locals())

    def suggest_distillations(
        self,
        *,
        threshold: float | None = None,
        min_size: int | None = None,
        limit: int | None = None,
        namespace: str | None = None,
    ) -> builtins.list[Suggestion]:
        """Groups of similar episodes worth distilling (needs an embedding model: else 503)."""
        return self._call("suggest_distillations", locals())

    def archive(self, ids: Sequence[str], *, namespace: str | None = None) -> builtins.list[Memory]:
        """Move memories to the cold archive (out of recall unless ``include_archived``)."""
        return self._call("archive", locals())

    def restore(self, ids: Sequence[str], *, namespace: str | None = None) -> builtins.list[Memory]:
        """Bring archived memories back into recall."""
        return self._call("restore", locals())

    def cleanup(self, *, namespace: str | None = None) -> CleanupResult:
        """Delete the namespace's expired memories for good."""
        return self._call("cleanup", locals())

    def stats(self) -> Stats:
        """Counts per namespace and tier of what the caller may see, size, embedding state."""
        return self._call("stats", {})

    def timeline(self, *, days: int | None = None, namespace: str | None = None) -> Timeline:
        """Memories per day (event time) and tier over the last ``days`` (1 to 366)."""
        return self._call("timeline", locals())

    # Links

    def link(
        self,
        id: str,
        *,
        supersedes: Sequence[str] | None = None,
        dismiss: Sequence[str] | None = None,
        reason: str | None = None,
        namespace: str | None = None,
    ) -> LinkResult:
        """Confirm that memory ``id`` replaces older ones (``supersedes``) and/or dismiss
        possible updates that are not updates (``dismiss``)."""
        return self._call("link", locals())

    def unlink(self, id: str, *, namespace: str | None = None) -> Memory:
        """Make a superseded memory current again."""
        return self._call("unlink", locals())

    def possible_updates(
        self, *, limit: int | None = None, offset: int | None = None, namespace: str | None = None
    ) -> builtins.list[PendingReview]:
        """The review list: memories with possible updates to confirm or dismiss."""
        return self._call("possible_updates", locals())

    # API keys (an admin key only)

    def list_keys(self) -> builtins.list[ApiKey]:
        """Every API key, oldest first, never a secret."""
        return self._call("list_keys", locals())

    def create_key(
        self,
        *,
        namespaces: Sequence[str] | None = None,
        admin: bool | None = None,
        label: str | None = None,
        expires_in_days: int | None = None,
    ) -> ApiKey:
        """A new key for ``namespaces`` (or every namespace with ``admin=True``); its secret is in
        ``.key`` of this answer only."""
        return self._call("create_key", locals())

    def revoke_key(self, id: str) -> str:
        """Revokes key ``id`` at once; returns the id."""
        return self._call("revoke_key", locals())


class AsyncClient(_Base):
    """The same API as :class:`Client`, awaited: ``await client.store(...)``. Use it as
    ``async with AsyncClient() as client`` or call :meth:`aclose`."""

    def __init__(
        self,
        url: str | None = None,
        api_key: str | None = None,
        namespace: str | None = None,
        *,
        timeout: float | httpx.Timeout | None = 30.0,
        max_retries: int = 2,
        max_retry_wait: float = 30.0,
        headers: Mapping[str, str] | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        super().__init__(
            url,
            api_key,
            namespace,
            timeout=timeout,
            max_retries=max_retries,
            max_retry_wait=max_retry_wait,
            headers=headers,
        )
        self._http = http_client or httpx.AsyncClient(timeout=timeout)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _call(self, name: str, args: dict[str, Any]) -> Any:
        request = self._request(name, args)
        attempt = 0
        while True:
            try:
                response = await self._http.request(
                    request.op.method,
                    request.url,
                    headers=request.headers,
                    params=request.params,
                    json=request.json,
                )
            except httpx.HTTPError as exc:
                raise self._transport_error(exc) from exc
            delay = self._retry_delay(response, attempt)
            if delay is None:
                return self._answer(request, response)
            attempt += 1
            await asyncio.sleep(delay)

    # Memories

    async def store(
        self,
        content: str,
        *,
        memory_type: MemoryType | None = None,
        metadata: Mapping[str, Any] | None = None,
        ttl: int | None = None,
        session_id: str | None = None,
        occurred_at: Time | None = None,
        dedup: bool | None = None,
        supersedes: Sequence[str] | None = None,
        namespace: str | None = None,
    ) -> StoreResult:
        """See :meth:`Client.store`."""
        return await self._call("store", locals())

    async def recall(
        self,
        query: str,
        *,
        top_k: int | None = None,
        memory_type: MemoryType | None = None,
        session_id: str | None = None,
        tags: Sequence[str] | None = None,
        include_archived: bool | None = None,
        include_superseded: bool | None = None,
        as_of: Time | None = None,
        tier_priority: bool | None = None,
        explain: bool | None = None,
        models: Sequence[str] | None = None,
        min_relevance: float | None = None,
        max_tokens: int | None = None,
        count_access: bool | None = None,
        namespace: str | None = None,
    ) -> RecallResult:
        """See :meth:`Client.recall`."""
        return await self._call("recall", locals())

    async def get(self, id: str, *, namespace: str | None = None) -> Memory:
        """See :meth:`Client.get`."""
        return await self._call("get", locals())

    async def update(
        self,
        id: str,
        *,
        content: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        memory_type: MemoryType | None = None,
        ttl: int | None = None,
        namespace: str | None = None,
    ) -> Memory:
        """See :meth:`Client.update`."""
        return await self._call("update", locals())

    async def delete(self, id: str, *, namespace: str | None = None) -> None:
        """See :meth:`Client.delete`."""
        return await self._call("delete", locals())

    async def list(
        self,
        *,
        memory_type: MemoryType | None = None,
        session_id: str | None = None,
        tags: Sequence[str] | None = None,
        tag: str | None = None,
        include_archived: bool | None = None,
        include_superseded: bool | None = None,
        occurred_after: Time | None = None,
        occurred_before: Time | None = None,
        limit: int | None = None,
        offset: int | None = None,
        namespace: str | None = None,
    ) -> builtins.list[Memory]:
        """See :meth:`Client.list`."""
        return await self._call("list", _list_args(locals()))

    async def history(self, id: str, *, namespace: str | None = None) -> builtins.list[Memory]:
        """See :meth:`Client.history`."""
        return await self._call("history", locals())

    # Lifecycle

    async def end_session(self, session_id: str, *, namespace: str | None = None) -> SessionEnd:
        """See :meth:`Client.end_session`."""
        return await self._call("end_session", locals())

    async def summarize(
        self,
        episode_ids: Sequence[str],
        *,
        instruction: str | None = None,
        originals: Literal["archive", "delete", "keep"] | None = None,
        dry_run: bool | None = None,
        namespace: str | None = None,
    ) -> Distillation | DistillationPreview:
        """See :meth:`Client.summarize`."""
        return await self._call("summarize", locals())

    async def suggest_distillations(
        self,
        *,
        threshold: float | None = None,
        min_size: int | None = None,
        limit: int | None = None,
        namespace: str | None = None,
    ) -> builtins.list[Suggestion]:
        """See :meth:`Client.suggest_distillations`."""
        return await self._call("suggest_distillations", locals())

    async def archive(
        self, ids: Sequence[str], *, namespace: str | None = None
    ) -> builtins.list[Memory]:
        """See :meth:`Client.archive`."""
        return await self._call("archive", locals())

    async def restore(
        self, ids: Sequence[str], *, namespace: str | None = None
    ) -> builtins.list[Memory]:
        """See :meth:`Client.restore`."""
        return await self._call("restore", locals())

    async def cleanup(self, *, namespace: str | None = None) -> CleanupResult:
        """See :meth:`Client.cleanup`."""
        return await self._call("cleanup", locals())

    async def stats(self) -> Stats:
        """See :meth:`Client.stats`."""
        return await self._call("stats", {})

    async def timeline(self, *, days: int | None = None, namespace: str | None = None) -> Timeline:
        """See :meth:`Client.timeline`."""
        return await self._call("timeline", locals())

    # Links

    async def link(
        self,
        id: str,
        *,
        supersedes: Sequence[str] | None = None,
        dismiss: Sequence[str] | None = None,
        reason: str | None = None,
        namespace: str | None = None,
    ) -> LinkResult:
        """See :meth:`Client.link`."""
        return await self._call("link", locals())

    async def unlink(self, id: str, *, namespace: str | None = None) -> Memory:
        """See :meth:`Client.unlink`."""
        return await self._call("unlink", locals())

    async def possible_updates(
        self, *, limit: int | None = None, offset: int | None = None, namespace: str | None = None
    ) -> builtins.list[PendingReview]:
        """See :meth:`Client.possible_updates`."""
        return await self._call("possible_updates", locals())

    async def list_keys(self) -> builtins.list[ApiKey]:
        """See :meth:`Client.list_keys`."""
        return await self._call("list_keys", locals())

    async def create_key(
        self,
        *,
        namespaces: Sequence[str] | None = None,
        admin: bool | None = None,
        label: str | None = None,
        expires_in_days: int | None = None,
    ) -> ApiKey:
        """See :meth:`Client.create_key`."""
        return await self._call("create_key", locals())

    async def revoke_key(self, id: str) -> str:
        """See :meth:`Client.revoke_key`."""
        return await self._call("revoke_key", locals())
