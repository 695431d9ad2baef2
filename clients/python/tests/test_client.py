"""Every client method against a real server, for ``Client`` and ``AsyncClient`` alike (the
``api`` fixture runs each test with both). Every answer is also checked for fields the models do
not declare (``no_extra``)."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone

import pytest
from conftest import no_extra
from stub import Stub

from rearview_client import (
    AsyncClient,
    Client,
    Distillation,
    DistillationPreview,
    InvalidInput,
    Memory,
    NotFound,
    RecallResult,
    StoreResult,
)


def test_store_returns_the_memory_and_merges_duplicates(api) -> None:
    stored = no_extra(api.store("The MCP server listens on port 8765", memory_type="semantic"))
    assert isinstance(stored, StoreResult)
    assert stored.status == "stored" and stored.merged is None
    assert stored.id == stored.memory.id
    assert stored.memory.content == "The MCP server listens on port 8765"
    assert stored.memory.memory_type == "semantic" and stored.memory.ttl == 0
    assert stored.superseded == [] and stored.possible_updates == []

    again = no_extra(api.store("The MCP server listens on port 8765", memory_type="semantic"))
    assert again.status == "merged"
    assert again.merged is not None and again.merged.into == stored.id and again.merged.exact

    separate = no_extra(
        api.store("The MCP server listens on port 8765", memory_type="semantic", dedup=False)
    )
    assert separate.status == "stored" and separate.id != stored.id


def test_an_expiry_past_the_year_9999_is_kept_as_text(api) -> None:
    stored = api.store("a note for the ages", ttl=1_000_000_000_000)
    assert isinstance(stored.memory.expires_at, str) and stored.memory.expires_at.startswith("+")
    soon = api.store("a note for an hour", ttl=3600)
    assert isinstance(soon.memory.expires_at, datetime)


def test_recall_returns_scored_hits(api) -> None:
    first = api.store("The user prefers dark mode in every editor", memory_type="semantic")
    api.store("Lunch was a bowl of ramen", memory_type="episodic")
    result = no_extra(api.recall("dark mode", top_k=5))
    assert isinstance(result, RecallResult)
    assert result.hits[0].memory.id == first.id
    assert result.hits[0].memory.content == "The user prefers dark mode in every editor"
    assert result.hits[0].score > 0
    assert [h.memory.id for h in result] == [h.memory.id for h in result.hits]
    assert len(result) == len(result.hits) and result[0] is result.hits[0]
    assert "dark" in result.query_terms and result.took_ms.search >= 0

    explained = no_extra(api.recall("dark mode", top_k=1, explain=True, memory_type="semantic"))
    assert len(explained) == 1 and explained[0].explanation is not None

    budget = no_extra(api.recall("dark mode", max_tokens=1))
    assert budget.over_budget is not None

    assert len(api.recall("dark mode", memory_type="episodic")) == 0


def test_recall_without_counting_leaves_access_alone(api) -> None:
    stored = api.store("The staging database is called atlas", memory_type="semantic")
    for _ in range(2):
        preview = api.recall("staging database atlas", count_access=False)
        assert preview[0].memory.id == stored.id
        assert preview[0].memory.access_count == 0
    counted = api.recall("staging database atlas")
    assert counted[0].memory.id == stored.id
    assert counted[0].memory.access_count == 1


def test_get_update_history_delete(api) -> None:
    stored = api.store("The office is on floor 3", metadata={"source": "chat"})
    memory = no_extra(api.get(stored.id))
    assert isinstance(memory, Memory) and memory.metadata == {"source": "chat"}

    updated = no_extra(api.update(stored.id, content="The office is on floor 4"))
    assert updated.id == stored.id and updated.content == "The office is on floor 4"
    assert updated.updated_at > memory.updated_at

    history = no_extra(api.history(stored.id))
    assert [m.content for m in history] == ["The office is on floor 3"]
    assert history[0].superseded_by == stored.id and history[0].link is not None
    assert history[0].link.made_by == "update"

    retyped = no_extra(api.update(stored.id, metadata={"tags": ["office"]}, ttl=0))
    assert retyped.metadata == {"tags": ["office"]} and retyped.tags == ["office"]
    assert retyped.ttl == 0 and retyped.expires_at is None

    assert api.delete(stored.id) is None
    with pytest.raises(NotFound):
        api.get(stored.id)


def test_list_filters_and_pages(api) -> None:
    old = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
    api.store("Trip to Lisbon booked", metadata={"tags": ["travel"]}, occurred_at=old)
    api.store("Standup moved to 10am", metadata={"tags": ["work"]})
    api.store("Scratch note for this task", memory_type="working", session_id="s-1")

    everything = no_extra(api.list())
    assert len(everything) == 3
    assert [m.content for m in api.list(tag="travel")] == ["Trip to Lisbon booked"]
    assert [m.session_id for m in api.list(session_id="s-1")] == ["s-1"]
    assert [m.memory_type for m in api.list(memory_type="working")] == ["working"]
    before = api.list(occurred_before=old + timedelta(days=1))
    assert [m.content for m in before] == ["Trip to Lisbon booked"]
    assert before[0].occurred_at == old
    assert len(api.list(occurred_after="2024-01-01T00:00:00Z")) == 2
    first, second = api.list(limit=1), api.list(limit=1, offset=1)
    assert len(first) == len(second) == 1 and first[0].id != second[0].id


def test_list_by_several_tags(api) -> None:
    """``tags``: memories carrying all of them (sent as ``tags=a&tags=b``); ``tag`` is the older
    name for one."""
    both = api.store("Flight to Lisbon for the conference", metadata={"tags": ["travel", "work"]})
    api.store("Beach week in the Algarve", metadata={"tags": ["travel"]})
    api.store("Quarterly planning offsite", metadata={"tags": ["work"]})

    assert [m.id for m in no_extra(api.list(tags=["travel", "work"]))] == [both.id]
    assert [m.id for m in api.list(tags=("work", "travel"))] == [both.id]
    assert len(api.list(tags=["travel"])) == 2
    assert len(api.list(tag="travel")) == 2
    assert api.list(tags=["travel", "work", "holiday"]) == []
    with pytest.raises(ValueError, match=r"tags.*tag"):
        api.list(tags=["travel"], tag="work")


def test_list_by_occurrence_time(api) -> None:
    """``occurred_after``/``occurred_before`` bound the event time (inclusive), as datetimes or
    RFC 3339 strings, and combine with ``tags``."""
    jan = datetime(2024, 1, 10, 9, 0, tzinfo=timezone.utc)
    mar = datetime(2024, 3, 10, 9, 0, tzinfo=timezone.utc)
    api.store("January standup notes", metadata={"tags": ["work"]}, occurred_at=jan)
    api.store("March standup notes", metadata={"tags": ["work"]}, occurred_at=mar)
    api.store("March dentist appointment", occurred_at=mar + timedelta(days=1))

    after = api.list(occurred_after=datetime(2024, 2, 1, tzinfo=timezone.utc))
    assert [m.content for m in after] == ["March dentist appointment", "March standup notes"]
    assert [m.content for m in api.list(occurred_after=mar, tags=["work"])] == [
        "March standup notes"
    ]
    naive = datetime(2024, 2, 1)  # taken as UTC
    assert [m.content for m in api.list(occurred_after=naive, occurred_before=mar)] == [
        "March standup notes"
    ]
    assert len(api.list(occurred_after="2024-03-11T09:00:00Z")) == 1
    with pytest.raises(InvalidInput, match="occurred_after"):
        api.list(occurred_after="last tuesday")


def test_supersede_link_unlink_and_review(api) -> None:
    berlin = api.store("I live in Berlin", memory_type="semantic")
    hamburg = no_extra(
        api.store("I now live in Hamburg", memory_type="semantic", supersedes=[berlin.id])
    )
    assert [(s.id, s.made_by) for s in hamburg.superseded] == [(berlin.id, "caller")]
    assert [m.id for m in api.list()] == [hamburg.id]
    assert {m.id for m in api.list(include_superseded=True)} == {berlin.id, hamburg.id}
    assert [m.id for m in api.history(hamburg.id)] == [berlin.id]

    current = no_extra(api.unlink(berlin.id))
    assert current.id == berlin.id and current.superseded_by is None

    pending = no_extra(api.possible_updates())
    assert [p.memory.id for p in pending] == [hamburg.id]
    assert [u.id for u in pending[0].possible_updates] == [berlin.id]
    assert pending[0].possible_updates[0].content == "I live in Berlin"

    linked = no_extra(api.link(hamburg.id, supersedes=[berlin.id], reason="moved"))
    assert linked.memory.id == hamburg.id
    assert [(s.id, s.made_by, s.reason) for s in linked.superseded] == [
        (berlin.id, "caller", "moved")
    ]
    assert api.get(berlin.id).superseded_by == hamburg.id
    assert api.possible_updates() == []

    api.unlink(berlin.id)
    dismissed = no_extra(api.link(hamburg.id, dismiss=[berlin.id]))
    assert dismissed.superseded == [] and dismissed.memory.possible_updates == []
    assert api.possible_updates(limit=5, offset=0) == []


def test_sessions_distillation_archive(api) -> None:
    turns = [
        "Hello there",
        "I booked a flight to Lisbon for the conference next Tuesday",
        "The user prefers window seats on long flights",
    ]
    for turn in turns:
        api.store(turn, memory_type="working", session_id="chat-1", metadata={"role": "user"})
    ended = no_extra(api.end_session("chat-1"))
    assert ended.working_memories == 3 and ended.method == "rules"
    episodes = [e.memory for e in ended.episodes]
    assert {e.content for e in episodes} == set(turns[1:])
    assert all(e.memory_type == "episodic" for e in episodes)
    assert api.list(memory_type="working") == []

    ids = [e.id for e in episodes]
    preview = no_extra(api.summarize(ids, dry_run=True))
    assert isinstance(preview, DistillationPreview) and preview.sources == 2

    distilled = no_extra(api.summarize(ids, instruction="flights"))
    assert isinstance(distilled, Distillation)
    assert distilled.memory.memory_type == "semantic" and set(distilled.memory.source_ids) == set(
        ids
    )
    assert distilled.originals_changed == 2 and not distilled.already_existed
    assert all(m.archived for m in api.list(include_archived=True) if m.id in ids)

    restored = no_extra(api.restore(ids))
    assert {m.id for m in restored} == set(ids) and not any(m.archived for m in restored)
    archived = no_extra(api.archive(ids[:1]))
    assert archived[0].archived
    assert ids[0] not in {m.id for m in api.list()}


def test_stats_timeline_cleanup(api, ns: str) -> None:
    api.store("Counted memory", memory_type="semantic")
    stats = no_extra(api.stats())
    assert ns in stats.namespaces
    assert [(t.memory_type, t.live) for t in stats.tiers if t.namespace == ns] == [("semantic", 1)]
    assert stats.granted is None  # no key: nothing granted explicitly

    timeline = no_extra(api.timeline(days=7))
    assert timeline.namespace == ns and timeline.days == 7
    assert sum(day.semantic for day in timeline.tiers) == 1

    cleaned = no_extra(api.cleanup())
    assert cleaned.cleaned == 0 and cleaned.namespace == ns


def test_namespaces_from_arguments_and_environment(server, monkeypatch) -> None:
    a, b = f"ns-a-{uuid.uuid4().hex[:8]}", f"ns-b-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("REARVIEW_URL", server.url)
    monkeypatch.setenv("REARVIEW_NAMESPACE", a)
    with Client() as client:
        assert client.url == server.url and client.namespace == a
        stored = client.store("only in a")
        assert stored.memory.namespace == a
        assert client.store("only in b", namespace=b).memory.namespace == b
        assert [m.content for m in client.list()] == ["only in a"]
        assert [m.content for m in client.list(namespace=b)] == ["only in b"]
        moved = client.update(stored.id, content="still only in a", namespace=a)
        assert moved.namespace == a and moved.content == "still only in a"
        with pytest.raises(NotFound):
            client.update(stored.id, ttl=0, namespace=b)
        with pytest.raises(NotFound):
            client.get(stored.id, namespace=b)


def test_default_url_is_the_servers_default_listen_address(monkeypatch) -> None:
    for name in ("REARVIEW_URL", "REARVIEW_API_KEY", "REARVIEW_NAMESPACE"):
        monkeypatch.delenv(name, raising=False)
    assert Client().url == "http://127.0.0.1:8765"
    assert AsyncClient().namespace is None


def test_a_unicode_namespace_works_in_bodies_and_in_the_header(server) -> None:
    """The body takes any namespace; the header carries it percent-encoded, so listing, getting,
    updating and deleting reach a Chinese namespace too."""
    namespace = f"项目-{uuid.uuid4().hex[:6]}"
    with Client(server.url, namespace=namespace) as client:
        stored = client.store("一个中文命名空间里的记忆")
        assert stored.memory.namespace == namespace
        assert client.recall("记忆")[0].memory.id == stored.id
        assert [m.id for m in client.list()] == [stored.id]
        assert client.get(stored.id).content == "一个中文命名空间里的记忆"
        assert client.update(stored.id, ttl=0).namespace == namespace  # in the body
        client.delete(stored.id)
        assert client.list() == []


def test_list_sends_tags_as_repeated_keys_and_the_namespace_in_the_query() -> None:
    """The query string the server reads into MCP's ``ListParams``: one key per tag, and the
    namespace as its own field (any Unicode, percent-encoded by the URL); PATCH's namespace goes
    in its body."""
    missing = {"code": "not_found", "message": "no such memory"}
    answers = [(200, {}, {"memories": []}, 0.0)] * 2 + [(404, {}, missing, 0.0)]
    with Stub(answers) as stub, Client(stub.url, namespace="项目") as client:
        assert client.list(tags=["a", "b c"], include_archived=True, limit=5) == []
        assert client.list(tag="a", namespace="other") == []
        with pytest.raises(NotFound):
            client.update(str(uuid.uuid4()), ttl=0)
    paths = [r[2] for r in stub.requests]
    assert paths[0] == (
        "/v1/memories?tags=a&tags=b+c&include_archived=true&limit=5&namespace=%E9%A1%B9%E7%9B%AE"
    )
    assert paths[1] == "/v1/memories?tags=a&namespace=other"
    assert stub.requests[2][1:] == ("PATCH", paths[2], {"ttl": 0, "namespace": "项目"})
