"""Errors from a real server: each raises its ``RearviewError`` subclass with the exact HTTP
status and the server's code and message."""

from __future__ import annotations

import time
import uuid

import pytest
from conftest import free_port

from rearview_client import (
    AsyncClient,
    Client,
    Forbidden,
    InvalidInput,
    NotFound,
    PayloadTooLarge,
    RearviewError,
    TransportError,
    Unauthorized,
    Unavailable,
)
from rearview_client.errors import error_for


def check(error: pytest.ExceptionInfo[RearviewError], cls: type, status: int, code: str) -> None:
    assert type(error.value) is cls
    assert (error.value.status, error.value.code) == (status, code)
    assert error.value.message and error.value.message in str(error.value)
    assert error.value.body == {"code": code, "message": error.value.message}


def test_invalid_input_names_the_field(client: Client) -> None:
    with pytest.raises(InvalidInput) as error:
        client.store("   ")
    check(error, InvalidInput, 400, "invalid_input")
    assert "content" in error.value.message

    with pytest.raises(InvalidInput) as error:
        client.list(limit=0)
    assert "limit" in error.value.message

    with pytest.raises(InvalidInput) as error:
        client.get("not-a-uuid")
    assert "UUID" in error.value.message

    with pytest.raises(InvalidInput) as error:
        client.update(client.store("x").id)  # no change named
    assert "no change" in error.value.message

    with pytest.raises(InvalidInput) as error:
        client.store("x", namespace=" padded ")
    assert "namespace" in error.value.message

    with pytest.raises(InvalidInput) as error:
        client.store("x" * 40_000)  # over --max-content-chars (32,768), under the body cap
    assert "32768" in error.value.message.replace(",", "")


def test_not_found(client: Client) -> None:
    missing = str(uuid.uuid4())
    for call in (
        lambda: client.get(missing),
        lambda: client.delete(missing),
        lambda: client.history(missing),
        lambda: client.update(missing, content="y"),
        lambda: client.archive([missing]),
        lambda: client.unlink(missing),
    ):
        with pytest.raises(NotFound) as error:
            call()
        check(error, NotFound, 404, "not_found")
        assert missing in error.value.message


def test_payload_too_large(client: Client) -> None:
    with pytest.raises(PayloadTooLarge) as error:
        client.store("x" * (1024 * 1024 + 1))  # over --max-request-bytes (1 MiB)
    check(error, PayloadTooLarge, 413, "payload_too_large")


def test_unavailable_is_not_retried(client: Client) -> None:
    started = time.monotonic()
    with pytest.raises(Unavailable) as error:
        client.suggest_distillations()  # keyword-only server: no vectors to compare
    check(error, Unavailable, 503, "unavailable")
    assert error.value.retry_after is None
    assert time.monotonic() - started < 0.4


def test_unauthorized_without_or_with_a_bad_key(keyed_server) -> None:
    for key in (None, "rv_not_a_key"):
        with Client(keyed_server.url, api_key=key) as client:
            with pytest.raises(Unauthorized) as error:
                client.stats()
            check(error, Unauthorized, 401, "unauthorized")


def test_forbidden_outside_the_keys_grant(keyed_server) -> None:
    with Client(keyed_server.url, api_key=keyed_server.keys["alice"]) as alice:
        assert alice.store("alice's own").memory.namespace == "alice"  # the key's only namespace
        assert alice.stats().granted == ["alice"]
        for call in (
            lambda: alice.store("x", namespace="bob"),
            lambda: alice.list(namespace="bob"),
            lambda: alice.recall("x", namespace="bob"),
        ):
            with pytest.raises(Forbidden) as error:
                call()
            check(error, Forbidden, 403, "forbidden")
    with Client(keyed_server.url, api_key=keyed_server.keys["alice"], namespace="bob") as alice:
        assert alice.stats().granted == ["alice"]  # stats takes no namespace: none is sent
        with pytest.raises(Forbidden):
            alice.list()
    with Client(keyed_server.url, api_key=keyed_server.keys["admin"], namespace="bob") as admin:
        assert admin.store("bob's").memory.namespace == "bob"


async def test_async_errors(server, keyed_server) -> None:
    async with AsyncClient(server.url) as client:
        with pytest.raises(NotFound) as error:
            await client.get(str(uuid.uuid4()))
        check(error, NotFound, 404, "not_found")
    async with AsyncClient(keyed_server.url) as client:
        with pytest.raises(Unauthorized) as error:
            await client.list()
        check(error, Unauthorized, 401, "unauthorized")


async def test_transport_errors() -> None:
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    with Client(url) as client, pytest.raises(TransportError) as error:
        client.stats()
    assert error.value.status is None and error.value.code is None
    async with AsyncClient(url) as aclient:
        with pytest.raises(TransportError):
            await aclient.stats()


def test_error_for_falls_back_to_the_status() -> None:
    assert type(error_for(404, "plain text")) is NotFound
    assert error_for(404, "plain text").message == "plain text"
    assert type(error_for(418, None)) is RearviewError
    overloaded = error_for(503, {"code": "overloaded", "message": "busy"}, 1.0)
    assert isinstance(overloaded, Unavailable) and overloaded.retry_after == 1.0


def test_keys_are_created_used_listed_and_revoked(keyed_server) -> None:
    with Client(keyed_server.url, api_key=keyed_server.keys["admin"]) as admin:
        created = admin.create_key(namespaces=["carol"], label="sdk test")
        assert created.key and created.namespaces == ["carol"] and created.active
        assert not created.admin and created.label == "sdk test"
        listed = {k.id: k for k in admin.list_keys()}
        assert created.id in listed and listed[created.id].key is None
        with Client(keyed_server.url, api_key=created.key, namespace="carol") as carol:
            stored = carol.store("carol's first memory")
            assert carol.get(stored.id).content == "carol's first memory"
            with pytest.raises(Forbidden):
                carol.list_keys()
            assert admin.revoke_key(created.id) == created.id
            with pytest.raises(Unauthorized):
                carol.get(stored.id)
        assert not {k.id: k for k in admin.list_keys()}[created.id].active
        with pytest.raises(InvalidInput) as bad:
            admin.create_key(namespaces=[])
        assert bad.value.status == 400
