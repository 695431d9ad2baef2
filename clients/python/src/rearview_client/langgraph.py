"""A LangGraph ``BaseStore`` on rearview: ``graph.compile(store=RearviewStore())``.

Mapping (see README, "LangGraph"):

* A namespace tuple is one rearview namespace: its labels, each percent-encoded to printable
  ASCII (every character but ``!``..``~`` without ``%``, as UTF-8 ``%XX``), joined with ``.``.
  LangGraph labels never contain ``.``, so the mapping reverses (:func:`from_rearview_namespace`).
  ``("users", "alice")`` is ``users.alice``; ``("notes", "café 1")`` is ``notes.caf%C3%A9%201``.
  The encoded name must fit rearview's 128 characters.
* An item is one memory (tier ``semantic`` by default: never expires, never auto-archived),
  stored with ``dedup=False``. ``metadata.langgraph = {"key", "value"}`` holds the key and the
  value exactly as put; ``metadata.tags = ["langgraph:key:" + key]`` finds it again. The memory's
  text, what recall searches, is the value's fields named by ``index`` (LangGraph's paths), else
  its first non-empty string field of ``text_fields`` (``content``, ``text``, ``memory``), else
  the value as JSON.
* ``put`` on an existing key updates that memory in place (same id and ``created_at``; a changed
  text is kept by rearview as history, deleted with the item); ``put(..., None)``/``delete``
  deletes it. When rearview has superseded the item's memory (a newer memory stated a change),
  ``get`` still returns it, ``search`` leaves it out like rearview's recall, and a ``put`` deletes
  it and stores the new value afresh. ``ttl`` (minutes) becomes the memory's TTL, counted from
  the write: rearview does not refresh it on reads (``refresh_ttl`` is ignored).
* ``search`` with a ``query`` is rearview's recall (score = recall score; at most 100 hits per
  namespace), without one a listing, newest first; ``filter`` is applied to the values as
  LangGraph's own stores do (``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``). A prefix
  spans every namespace under it that ``/v1/stats`` lists for the caller.
* Memories not written through this store (e.g. over MCP) are items too: key = memory id, value
  ``{"content", "memory_type", "metadata"}``.
"""

from __future__ import annotations

import contextlib
import json
import math
import uuid
from collections.abc import Awaitable, Callable, Generator, Iterable
from typing import Any
from urllib.parse import quote, unquote

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        InvalidNamespaceError,
        Item,
        ListNamespacesOp,
        MatchCondition,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
        TTLConfig,
        get_text_at_path,
        tokenize_path,
    )
except ImportError as exc:  # pragma: no cover
    raise ImportError(
        "rearview_client.langgraph needs LangGraph: pip install 'rearview-client[langgraph]'"
    ) from exc

from .client import AsyncClient, Client, _twin
from .errors import NotFound, RearviewError
from .models import Memory, MemoryType

__all__ = ["RearviewStore", "from_rearview_namespace", "to_rearview_namespace"]

META = "langgraph"
"""The metadata field holding ``{"key", "value"}``."""
KEY_TAG = "langgraph:key:"
"""Tag prefix that finds an item's memory by key."""
MAX_NAMESPACE_CHARS = 128
_SAFE = "".join(chr(c) for c in range(0x21, 0x7F) if chr(c) != "%")

# A step of an operation: the name of a client method and its keyword arguments.
_Call = tuple[str, dict[str, Any]]
_Steps = Generator[_Call, Any, Any]


def to_rearview_namespace(namespace: tuple[str, ...]) -> str:
    """The rearview namespace of a LangGraph namespace tuple."""
    if not namespace:
        raise InvalidNamespaceError("Namespace cannot be empty.")
    for label in namespace:
        if not isinstance(label, str) or not label or "." in label:
            raise InvalidNamespaceError(
                f"Invalid namespace label {label!r} in {namespace}: labels are non-empty strings "
                "without periods."
            )
    name = ".".join(quote(label, safe=_SAFE) for label in namespace)
    if len(name) > MAX_NAMESPACE_CHARS:
        raise InvalidNamespaceError(
            f"Namespace {namespace} is {len(name)} characters as a rearview namespace ({name!r}); "
            f"rearview allows {MAX_NAMESPACE_CHARS}."
        )
    return name


def from_rearview_namespace(name: str) -> tuple[str, ...]:
    """The LangGraph namespace tuple of a rearview namespace (inverse of
    :func:`to_rearview_namespace`)."""
    return tuple(unquote(label) for label in name.split("."))


class RearviewStore(BaseStore):
    """LangGraph's long-term store on a rearview server.

    Pass a :class:`~rearview_client.Client` and/or an :class:`~rearview_client.AsyncClient`
    (the missing one is made with the same URL, key and limits), or neither to read
    ``REARVIEW_URL``/``REARVIEW_API_KEY`` from the environment. ``batch`` uses the blocking
    client, ``abatch`` the async one; the operations of a batch run in order.
    """

    supports_ttl = True

    def __init__(
        self,
        client: Client | None = None,
        *,
        async_client: AsyncClient | None = None,
        memory_type: MemoryType = "semantic",
        text_fields: Iterable[str] = ("content", "text", "memory"),
        ttl: TTLConfig | None = None,
    ) -> None:
        if client is None:
            client = _twin(async_client, Client) if async_client is not None else Client()
        self.client = client
        self.async_client = async_client or _twin(client, AsyncClient)
        self.memory_type = memory_type
        self.text_fields = tuple(text_fields)
        self.ttl_config = ttl

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        def call(name: str, kwargs: dict[str, Any]) -> Any:
            return getattr(self.client, name)(**kwargs)

        return [_drive(self._steps(op), call) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        async def call(name: str, kwargs: dict[str, Any]) -> Any:
            return await getattr(self.async_client, name)(**kwargs)

        return [await _adrive(self._steps(op), call) for op in ops]

    # Each operation is written once, as a generator of client calls (see `_drive`).

    def _steps(self, op: Op) -> _Steps:
        if isinstance(op, GetOp):
            return self._get(op)
        if isinstance(op, PutOp):
            return self._put(op)
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        raise ValueError(f"Unknown operation type: {type(op)}")

    def _get(self, op: GetOp) -> _Steps:
        memory = yield from self._find(to_rearview_namespace(op.namespace), op.key)
        return None if memory is None else _item(memory, op.namespace, Item)

    def _put(self, op: PutOp) -> _Steps:
        namespace = to_rearview_namespace(op.namespace)
        existing = yield from self._find(namespace, op.key)
        if op.value is None:
            if existing is not None:
                yield from self._delete(namespace, existing.id)
            return None
        value = dict(op.value)
        content = self._content(value, op.index)
        metadata = {META: {"key": op.key, "value": value}, "tags": [KEY_TAG + op.key]}
        ttl = 0 if op.ttl is None else max(1, math.ceil(op.ttl * 60))
        if existing is not None and existing.superseded_by is not None:
            # Rearview made it history (a newer memory replaced it): the new value starts afresh.
            yield from self._delete(namespace, existing.id)
            existing = None
        if existing is None:
            yield (
                "store",
                {
                    "content": content,
                    "memory_type": self.memory_type,
                    "metadata": metadata,
                    "ttl": ttl,
                    "dedup": False,
                    "namespace": namespace,
                },
            )
        else:
            changes: dict[str, Any] = {"metadata": metadata, "ttl": ttl}
            if existing.content != content:
                changes["content"] = content
            yield "update", {"id": existing.id, "namespace": namespace, **changes}
        return None

    def _search(self, op: SearchOp) -> _Steps:
        wanted = op.offset + op.limit
        if op.limit <= 0:
            return []
        found: list[SearchItem] = []
        for name, namespace in (yield from self._namespaces(op.namespace_prefix)):
            if op.query:
                top_k = 100 if op.filter else min(max(wanted, 1), 100)
                result = yield (
                    "recall",
                    {
                        "query": op.query,
                        "top_k": top_k,
                        "include_archived": True,
                        "namespace": name,
                    },
                )
                for hit in result.hits:
                    item = _item(hit.memory, namespace, SearchItem, score=hit.score)
                    if _matches(item.value, op.filter):
                        found.append(item)
                continue
            matched, offset = 0, 0
            while matched < wanted:
                page = yield (
                    "list",
                    {
                        "limit": 1000,
                        "offset": offset,
                        "include_archived": True,
                        "namespace": name,
                    },
                )
                for memory in page:
                    item = _item(memory, namespace, SearchItem)
                    if _matches(item.value, op.filter):
                        found.append(item)
                        matched += 1
                if len(page) < 1000:
                    break
                offset += len(page)
        if op.query:
            found.sort(key=lambda i: i.score or 0.0, reverse=True)
        else:
            found.sort(key=lambda i: i.created_at, reverse=True)
        return found[op.offset : wanted]

    def _list_namespaces(self, op: ListNamespacesOp) -> _Steps:
        namespaces = [ns for _, ns in (yield from self._namespaces(()))]
        conditions = op.match_conditions or ()
        namespaces = [ns for ns in namespaces if all(_does_match(c, ns) for c in conditions)]
        if op.max_depth is not None:
            namespaces = [ns[: op.max_depth] for ns in namespaces]
        return sorted(set(namespaces))[op.offset : op.offset + op.limit]

    # Helpers

    def _delete(self, namespace: str, id: str) -> _Steps:
        with contextlib.suppress(NotFound):  # deleted meanwhile
            yield "delete", {"id": id, "namespace": namespace}

    def _namespaces(self, prefix: tuple[str, ...]) -> _Steps:
        """``(name, tuple)`` of the namespaces holding memories under ``prefix``."""
        stats = yield "stats", {}
        pairs = [(name, from_rearview_namespace(name)) for name in stats.namespaces]
        return [(name, ns) for name, ns in pairs if ns[: len(prefix)] == tuple(prefix)]

    def _find(self, namespace: str, key: str) -> _Steps:
        """The memory holding ``key`` (current ones first, then ones rearview superseded), or
        for a key that is a memory id, a memory written outside this store."""
        for include_superseded in (False, True):
            memories = yield (
                "list",
                {
                    "tags": [KEY_TAG + key],
                    "include_archived": True,
                    "include_superseded": include_superseded,
                    "limit": 1000,
                    "namespace": namespace,
                },
            )
            for memory in memories:
                # Skip the earlier texts an update kept (they carry the same tag).
                if _stored_key(memory) == key and "history_of" not in memory.metadata:
                    return memory
        if _is_uuid(key):
            try:
                memory = yield "get", {"id": key, "namespace": namespace}
            except NotFound:
                return None
            return memory if _stored_key(memory) is None else None
        return None

    def _content(self, value: dict[str, Any], index: Any) -> str:
        """The memory's text: the fields ``index`` names, else the first text field."""
        if isinstance(index, list) and index:
            texts = [t for path in index for t in get_text_at_path(value, tokenize_path(path))]
            text = "\n".join(t for t in texts if isinstance(t, str) and t.strip())
        else:
            fields = (value.get(f) for f in self.text_fields)
            text = next((f for f in fields if isinstance(f, str) and f.strip()), "")
        return text or json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def _drive(steps: _Steps, call: Callable[[str, dict[str, Any]], Any]) -> Any:
    """Run an operation's steps with a blocking client; client errors go back into the steps."""
    answer: Any = None
    error: RearviewError | None = None
    while True:
        try:
            name, kwargs = steps.throw(error) if error else steps.send(answer)
        except StopIteration as stop:
            return stop.value
        try:
            answer, error = call(name, kwargs), None
        except RearviewError as exc:
            answer, error = None, exc


async def _adrive(steps: _Steps, call: Callable[[str, dict[str, Any]], Awaitable[Any]]) -> Any:
    """:func:`_drive` with an async client."""
    answer: Any = None
    error: RearviewError | None = None
    while True:
        try:
            name, kwargs = steps.throw(error) if error else steps.send(answer)
        except StopIteration as stop:
            return stop.value
        try:
            answer, error = await call(name, kwargs), None
        except RearviewError as exc:
            answer, error = None, exc


def _stored_key(memory: Memory) -> str | None:
    meta = memory.metadata.get(META)
    return meta.get("key") if isinstance(meta, dict) and isinstance(meta.get("key"), str) else None


def _item(memory: Memory, namespace: tuple[str, ...], cls: type, **extra: Any) -> Any:
    key = _stored_key(memory)
    if key is None:
        key = memory.id
        value = {
            "content": memory.content,
            "memory_type": memory.memory_type,
            "metadata": memory.metadata,
        }
    else:
        value = memory.metadata[META].get("value") or {}
    return cls(
        namespace=namespace,
        key=key,
        value=value,
        created_at=memory.timestamp,
        updated_at=memory.updated_at,
        **extra,
    )


def _is_uuid(key: str) -> bool:
    try:
        uuid.UUID(key)
    except ValueError:
        return False
    return True


def _does_match(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = condition.path
    if len(namespace) < len(path):
        return False
    pairs = (
        zip(namespace, path, strict=False)
        if condition.match_type == "prefix"
        else zip(reversed(namespace), reversed(path), strict=False)
    )
    return all(p == "*" or n == p for n, p in pairs)


def _matches(value: dict[str, Any], filter: dict[str, Any] | None) -> bool:
    return not filter or all(_compare(value.get(k), f) for k, f in filter.items())


def _compare(value: Any, wanted: Any) -> bool:
    """LangGraph's filter semantics (as its in-memory store applies them)."""
    if isinstance(wanted, dict):
        if any(k.startswith("$") for k in wanted):
            return all(_operator(value, op, arg) for op, arg in wanted.items())
        return isinstance(value, dict) and all(_compare(value.get(k), v) for k, v in wanted.items())
    if isinstance(wanted, (list, tuple)):
        return (
            isinstance(value, (list, tuple))
            and len(value) == len(wanted)
            and all(_compare(v, w) for v, w in zip(value, wanted, strict=True))
        )
    return value == wanted


def _operator(value: Any, op: str, arg: Any) -> bool:
    if op == "$eq":
        return value == arg
    if op == "$ne":
        return value != arg
    if op in ("$gt", "$gte", "$lt", "$lte"):
        try:
            a, b = float(value), float(arg)
        except (TypeError, ValueError):
            return False
        return {"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[op]
    raise ValueError(f"Unsupported operator: {op}")
