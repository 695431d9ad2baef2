"""Retries on 429/503 honouring Retry-After, bounded and configurable; timeouts. Against a stub
server (a real one rarely sheds load), and against a real server's rate limit."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest
from stub import Stub

from rearview_client import (
    AsyncClient,
    Client,
    Overloaded,
    RateLimited,
    Timeout,
    Unavailable,
)

MEMORY = {
    "id": "01a24efa-a8ec-74d8-9c3f-df4d23092593",
    "namespace": "default",
    "memory_type": "episodic",
    "content": "hi",
    "metadata": {},
    "session_id": None,
    "ttl": 0,
    "timestamp": "2026-01-01T00:00:00Z",
    "occurred_at": "2026-01-01T00:00:00Z",
    "updated_at": "2026-01-01T00:00:00Z",
    "last_accessed_at": None,
    "expires_at": None,
    "access_count": 0,
    "archived": False,
    "source_ids": [],
    "content_hash": "x",
    "superseded_by": None,
    "invalid_at": None,
}
STORED = (
    201,
    {},
    {
        "id": MEMORY["id"],
        "status": "stored",
        "memory": MEMORY,
        "merged": None,
        "superseded": [],
        "possible_updates": [],
    },
    0.0,
)
RATE_LIMITED = {"code": "rate_limited", "message": "this key is over its request rate"}
OVERLOADED = {"code": "overloaded", "message": "too many requests in flight"}


def limited(after: str) -> tuple[int, dict[str, str], dict[str, str], float]:
    return (429, {"Retry-After": after}, RATE_LIMITED, 0.0)


def overloaded(after: str | None = "0") -> tuple[int, dict[str, str], dict[str, str], float]:
    return (503, {"Retry-After": after} if after is not None else {}, OVERLOADED, 0.0)


def test_429_waits_retry_after_then_succeeds() -> None:
    with Stub([limited("1"), STORED]) as stub, Client(stub.url) as client:
        assert client.store("hi").memory.id == MEMORY["id"]
    assert len(stub.requests) == 2
    assert 0.95 <= stub.gaps()[0] < 2.0
    assert stub.requests[0][3] == stub.requests[1][3] == {"content": "hi"}  # same body again


async def test_async_429_waits_retry_after_then_succeeds() -> None:
    with Stub([limited("1"), STORED]) as stub:
        async with AsyncClient(stub.url) as client:
            assert (await client.store("hi")).memory.id == MEMORY["id"]
    assert len(stub.requests) == 2 and 0.95 <= stub.gaps()[0] < 2.0


def test_503_overloaded_is_retried_up_to_max_retries() -> None:
    with Stub([overloaded(), overloaded(), STORED]) as stub, Client(stub.url) as client:
        assert client.store("hi").status == "stored"
    assert len(stub.requests) == 3

    with Stub([overloaded()]) as stub, Client(stub.url, max_retries=3) as client:
        with pytest.raises(Overloaded) as error:
            client.store("hi")
    assert len(stub.requests) == 4  # the first try and 3 retries
    assert (error.value.status, error.value.code, error.value.retry_after) == (503, "overloaded", 0)


async def test_async_retries_are_bounded() -> None:
    with Stub([overloaded()]) as stub:
        async with AsyncClient(stub.url, max_retries=1) as client:
            with pytest.raises(Overloaded):
                await client.recall("x")
    assert len(stub.requests) == 2


def test_no_retries_when_disabled() -> None:
    with Stub([limited("0"), STORED]) as stub, Client(stub.url, max_retries=0) as client:
        with pytest.raises(RateLimited) as error:
            client.store("hi")
    assert len(stub.requests) == 1 and error.value.status == 429


def test_a_wait_over_max_retry_wait_is_not_waited() -> None:
    with Stub([limited("120"), STORED]) as stub, Client(stub.url, max_retry_wait=5) as client:
        started = time.monotonic()
        with pytest.raises(RateLimited) as error:
            client.stats()
    assert time.monotonic() - started < 1 and len(stub.requests) == 1
    assert error.value.retry_after == 120


def test_retry_after_as_an_http_date() -> None:
    when = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=2), usegmt=True)
    with Stub([limited(when), STORED]) as stub, Client(stub.url) as client:
        client.store("hi")
    assert len(stub.requests) == 2 and 0.3 <= stub.gaps()[0] < 3.0  # the date has 1 s resolution


def test_backoff_without_retry_after() -> None:
    no_header = (429, {}, RATE_LIMITED, 0.0)
    with Stub([no_header, no_header, STORED]) as stub, Client(stub.url) as client:
        client.store("hi")
    first, second = stub.gaps()
    assert 0.45 <= first < 1.0 and 0.95 <= second < 1.6  # 0.5 s, then 1 s


def test_503_unavailable_without_retry_after_is_final() -> None:
    unavailable = (503, {}, {"code": "unavailable", "message": "no embedding model"}, 0.0)
    with Stub([unavailable, STORED]) as stub, Client(stub.url) as client:
        with pytest.raises(Unavailable) as error:
            client.suggest_distillations()
    assert type(error.value) is Unavailable and len(stub.requests) == 1
    # ...but one with Retry-After is retried
    unavailable_later = (503, {"Retry-After": "0"}, unavailable[2], 0.0)
    with Stub([unavailable_later, STORED]) as stub, Client(stub.url) as client:
        client.store("hi")
    assert len(stub.requests) == 2


def test_timeouts() -> None:
    slow = (200, {}, {"cleaned": 0, "namespace": "default"}, 1.5)
    with Stub([slow]) as stub, Client(stub.url, timeout=0.3) as client:
        started = time.monotonic()
        with pytest.raises(Timeout) as error:
            client.cleanup()
    assert time.monotonic() - started < 1.2
    assert error.value.status is None


async def test_async_timeouts() -> None:
    slow = (200, {}, {"cleaned": 0, "namespace": "default"}, 1.5)
    with Stub([slow]) as stub:
        async with AsyncClient(stub.url, timeout=0.3) as client:
            with pytest.raises(Timeout):
                await client.cleanup()


def test_real_rate_limit(limited_server) -> None:
    """``--rate-limit 1``: the third quick request is refused with 429 and Retry-After."""
    key = limited_server.keys["admin"]
    with Client(limited_server.url, api_key=key, max_retries=0) as client:
        with pytest.raises(RateLimited) as error:
            for _ in range(10):
                client.stats()
    assert (error.value.status, error.value.code) == (429, "rate_limited")
    assert error.value.retry_after is not None and error.value.retry_after >= 1

    with Client(limited_server.url, api_key=key, max_retries=5) as client:
        for _ in range(4):  # over the rate, but each refusal is waited out
            client.stats()


def test_invalid_retry_settings() -> None:
    with pytest.raises(ValueError):
        Client(max_retries=-1)
