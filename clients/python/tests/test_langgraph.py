"""``RearviewStore`` as LangGraph's ``BaseStore``, against a real server, and inside real
LangGraph graphs."""

from __future__ import annotations

import operator
import uuid
from typing import Annotated, TypedDict

import pytest
from langgraph.config import get_store
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchItem,
    SearchOp,
)

from rearview_client import AsyncClient, Client
from rearview_client.langgraph import (
    KEY_TAG,
    RearviewStore,
    from_rearview_namespace,
    to_rearview_namespace,
)


@pytest.fixture
def root() -> str:
    """A first namespace label of this test's own."""
    return f"lg{uuid.uuid4().hex[:10]}"


@pytest.fixture
def store(server):
    with Client(server.url) as client:
        yield RearviewStore(client)


@pytest.mark.parametrize(
    "namespace",
    [
        ("users", "alice"),
        ("a",),
        (" spaced ", "tab\there", "50% off", "a/b:c", "项目", "café", "\x7f\x85", "~!#"),
    ],
)
def test_namespace_mapping_is_reversible_and_valid_for_rearview(namespace) -> None:
    name = to_rearview_namespace(namespace)
    assert from_rearview_namespace(name) == namespace
    assert name.isascii() and name.isprintable() and name == name.strip()
    assert 1 <= len(name) <= 128


def test_namespace_mapping_examples_and_limits() -> None:
    assert to_rearview_namespace(("users", "alice")) == "users.alice"
    assert to_rearview_namespace(("notes", "café 1")) == "notes.caf%C3%A9%201"
    for bad in [(), ("a.b",), ("",), ("x" * 129,), ("项" * 15,)]:
        with pytest.raises(InvalidNamespaceError):
            to_rearview_namespace(bad)


def test_put_get_replace_delete(store: RearviewStore, server, root: str) -> None:
    ns = (root, "profile")
    assert store.get(ns, "prefs") is None
    store.put(ns, "prefs", {"content": "Prefers dark roast coffee", "cups": 2})
    item = store.get(ns, "prefs")
    assert isinstance(item, Item)
    assert (item.namespace, item.key) == (ns, "prefs")
    assert item.value == {"content": "Prefers dark roast coffee", "cups": 2}

    store.put(ns, "prefs", {"content": "Switched to green tea", "cups": 1})
    replaced = store.get(ns, "prefs")
    assert replaced.value == {"content": "Switched to green tea", "cups": 1}
    assert replaced.created_at == item.created_at and replaced.updated_at > item.updated_at
    assert len(store.search(ns)) == 1  # replaced, not added

    with Client(server.url, namespace=to_rearview_namespace(ns)) as client:
        [memory] = client.list(tags=[KEY_TAG + "prefs"])
        assert memory.content == "Switched to green tea" and memory.memory_type == "semantic"
        assert memory.metadata["langgraph"] == {"key": "prefs", "value": replaced.value}
        assert [m.content for m in client.history(memory.id)] == ["Prefers dark roast coffee"]

    store.delete(ns, "prefs")
    assert store.get(ns, "prefs") is None
    store.delete(ns, "prefs")  # deleting a missing key is fine
    assert store.search(ns) == []


def test_keys_are_exact_and_values_round_trip(store: RearviewStore, root: str) -> None:
    ns = (root,)
    value = {"text": "Same text", "nested": {"list": [1, 2.5, None, True], "s": "é"}}
    store.put(ns, "Key", value)
    store.put(ns, "key", {"text": "Same text"})  # same text, another key: not merged
    store.put(ns, "key with spaces/and:colons", {"n": 1})
    assert store.get(ns, "Key").value == value
    assert store.get(ns, "key").value == {"text": "Same text"}
    assert store.get(ns, "key with spaces/and:colons").value == {"n": 1}
    assert store.get(ns, "KEY") is None


def test_search_with_query_filter_and_prefix(store: RearviewStore, root: str) -> None:
    store.put((root, "alice"), "1", {"content": "Alice likes hiking in the Alps", "stars": 5})
    store.put((root, "alice"), "2", {"content": "Alice dislikes crowded beaches", "stars": 2})
    store.put((root, "bob"), "1", {"content": "Bob likes hiking on weekends", "stars": 4})

    hits = store.search((root,), query="hiking")
    assert all(isinstance(h, SearchItem) and h.score is not None for h in hits)
    assert {(h.namespace[-1], h.key) for h in hits} == {("alice", "1"), ("bob", "1")}
    assert hits == sorted(hits, key=lambda h: h.score, reverse=True)

    assert [h.key for h in store.search((root, "alice"), query="hiking")] == ["1"]
    filtered = store.search((root,), query="hiking", filter={"stars": {"$gte": 5}})
    assert [(h.namespace[-1], h.key) for h in filtered] == [("alice", "1")]

    everything = store.search((root,))
    assert len(everything) == 3 and all(h.score is None for h in everything)
    assert [h.value["stars"] for h in store.search((root,), filter={"stars": {"$lt": 5}})] in (
        [2, 4],
        [4, 2],
    )
    assert store.search((root,), filter={"stars": 4})[0].namespace == (root, "bob")
    assert store.search((root,), filter={"stars": {"$ne": 4}, "content": {"$eq": "x"}}) == []
    first, second = store.search((root,), limit=1), store.search((root,), limit=1, offset=1)
    assert len(first) == len(second) == 1
    assert (first[0].namespace, first[0].key) != (second[0].namespace, second[0].key)
    assert store.search((root,), limit=0) == []
    assert store.search((root + "-none",), query="hiking") == []


def test_index_fields_and_text_fields(store: RearviewStore, server, root: str) -> None:
    ns = (root,)
    store.put(
        ns,
        "doc",
        {"title": "Quarterly report", "body": {"text": "Revenue grew"}},
        index=["title", "body.text"],
    )
    store.put(ns, "plain", {"name": "Zanzibar", "kind": "island"})
    with Client(server.url, namespace=root) as client:
        contents = {m.metadata["langgraph"]["key"]: m.content for m in client.list()}
    assert contents["doc"] == "Quarterly report\nRevenue grew"
    assert contents["plain"] == '{"kind": "island", "name": "Zanzibar"}'
    assert [h.key for h in store.search(ns, query="revenue")] == ["doc"]
    assert [h.key for h in store.search(ns, query="Zanzibar")] == ["plain"]


def test_list_namespaces(store: RearviewStore, root: str) -> None:
    for ns in [(root, "a", "x"), (root, "a", "y"), (root, "b", "x"), (root, "c")]:
        store.put(ns, "k", {"content": "something " + "/".join(ns)})
    assert store.list_namespaces(prefix=(root,)) == [
        (root, "a", "x"),
        (root, "a", "y"),
        (root, "b", "x"),
        (root, "c"),
    ]
    assert store.list_namespaces(prefix=(root, "a")) == [(root, "a", "x"), (root, "a", "y")]
    assert store.list_namespaces(prefix=(root,), suffix=("x",)) == [
        (root, "a", "x"),
        (root, "b", "x"),
    ]
    assert store.list_namespaces(prefix=(root, "*", "x")) == [(root, "a", "x"), (root, "b", "x")]
    assert store.list_namespaces(prefix=(root,), max_depth=2) == [
        (root, "a"),
        (root, "b"),
        (root, "c"),
    ]
    assert store.list_namespaces(prefix=(root,), limit=2, offset=1) == [
        (root, "a", "y"),
        (root, "b", "x"),
    ]
    assert (root, "c") in store.list_namespaces(limit=100_000)
    store.delete((root, "c"), "k")
    assert (root, "c") not in store.list_namespaces(prefix=(root,))


def test_ttl_in_minutes(store: RearviewStore, server, root: str) -> None:
    store.put((root,), "short", {"content": "expires soon"}, ttl=1.5)
    store.put((root,), "forever", {"content": "stays"})
    with Client(server.url, namespace=root) as client:
        ttl = {m.metadata["langgraph"]["key"]: m.ttl for m in client.list()}
    assert ttl == {"short": 90, "forever": 0}


def test_memories_written_outside_the_store_are_items(store: RearviewStore, server, root: str):
    with Client(server.url, namespace=f"{root}.mcp") as client:
        memory = client.store("Written over MCP about sailing").memory
    [hit] = store.search((root, "mcp"), query="sailing")
    assert hit.key == memory.id
    assert hit.value == {"content": memory.content, "memory_type": "episodic", "metadata": {}}
    assert store.get((root, "mcp"), memory.id).value["content"] == memory.content
    store.delete((root, "mcp"), memory.id)
    assert store.get((root, "mcp"), memory.id) is None


def test_items_rearview_superseded_stay_gettable(store: RearviewStore, server, root: str):
    store.put((root,), "city", {"content": "I live in Berlin"})
    old = store.get((root,), "city")
    with Client(server.url, namespace=root) as client:
        [memory] = client.list(tags=[KEY_TAG + "city"])
        client.store("I moved to Hamburg", supersedes=[memory.id])
    assert store.get((root,), "city") == old
    # History, as in rearview's recall (which answers with the memory that replaced it)
    assert [h.value["content"] for h in store.search((root,), query="Berlin")] == [
        "I moved to Hamburg"
    ]
    store.put((root,), "city", {"content": "I live in Berlin again"})
    assert store.get((root,), "city").value == {"content": "I live in Berlin again"}
    assert "city" in [h.key for h in store.search((root,), query="Berlin")]
    store.delete((root,), "city")
    assert store.get((root,), "city") is None


def test_batch_runs_ops_in_order(store: RearviewStore, root: str) -> None:
    ns = (root, "batch")
    results = store.batch(
        [
            PutOp(ns, "a", {"content": "apples are red"}),
            GetOp(ns, "a"),
            PutOp(ns, "a", {"content": "apples are green"}),
            SearchOp(ns, query="apples"),
            ListNamespacesOp(match_conditions=(MatchCondition("prefix", (root,)),)),
            PutOp(ns, "a", None),
            GetOp(ns, "a"),
        ]
    )
    assert results[0] is None and results[2] is None and results[5] is None
    assert results[1].value == {"content": "apples are red"}
    assert [i.value["content"] for i in results[3]] == ["apples are green"]
    assert results[4] == [ns]
    assert results[6] is None


async def test_async_operations(server, root: str) -> None:
    async with AsyncClient(server.url) as aclient:
        store = RearviewStore(async_client=aclient)
        ns = (root, "async")
        await store.aput(ns, "k", {"content": "async memories about tulips"})
        assert (await store.aget(ns, "k")).value == {"content": "async memories about tulips"}
        [hit] = await store.asearch((root,), query="tulips")
        assert hit.key == "k" and hit.score > 0
        assert await store.alist_namespaces(prefix=(root,)) == [ns]
        results = await store.abatch([GetOp(ns, "k"), PutOp(ns, "k", None), GetOp(ns, "k")])
        assert results[0].key == "k" and results[2] is None
        assert store.get(ns, "k") is None  # the blocking twin sees the same server
        store.client.close()


class State(TypedDict):
    user: str
    fact: str
    recalled: Annotated[list[str], operator.add]


def remember(state: State) -> dict:
    """A node reaching the store through ``get_store()``."""
    get_store().put(("memories", state["user"]), str(uuid.uuid4()), {"content": state["fact"]})
    return {}


def recall(state: State, runtime: Runtime) -> dict:
    """A node reaching it through the runtime."""
    hits = runtime.store.search(("memories", state["user"]), query=state["fact"].split()[-1])
    return {"recalled": [h.value["content"] for h in hits]}


async def arecall(state: State, *, store: BaseStore) -> dict:
    """An async node with the store injected as a parameter."""
    hits = await store.asearch(("memories", state["user"]), query=state["fact"].split()[-1])
    return {"recalled": [h.value["content"] for h in hits]}


def graph(recall_node) -> StateGraph:
    builder = StateGraph(State)
    builder.add_node("remember", remember)
    builder.add_node("recall", recall_node)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "recall")
    builder.add_edge("recall", END)
    return builder


def test_a_langgraph_graph_uses_the_store(store: RearviewStore, root: str) -> None:
    app = graph(recall).compile(store=store)
    out = app.invoke({"user": root, "fact": "The user's favourite fruit is mango", "recalled": []})
    assert out["recalled"] == ["The user's favourite fruit is mango"]
    out = app.invoke({"user": root, "fact": "The user also grows mango", "recalled": []})
    assert sorted(out["recalled"]) == [
        "The user also grows mango",
        "The user's favourite fruit is mango",
    ]
    assert store.list_namespaces(prefix=("memories", root)) == [("memories", root)]


async def test_a_langgraph_graph_uses_the_store_async(server, root: str) -> None:
    async with AsyncClient(server.url) as aclient:
        store = RearviewStore(async_client=aclient)
        app = graph(arecall).compile(store=store)
        out = await app.ainvoke({"user": root, "fact": "Allergic to peanuts", "recalled": []})
        assert out["recalled"] == ["Allergic to peanuts"]
        store.client.close()
