"""The SDK against the server's ``/openapi.json``: models (field names and required-ness),
method parameters (names and required-ness), routes, enums and error codes. Any difference fails,
so the SDK cannot drift from the server unnoticed. Where the document says less than the server
answers, the known gaps are listed here (``UNDOCUMENTED``); the test also
fails when the document starts describing them, so the lists stay true."""

from __future__ import annotations

import inspect
import re
import typing
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

from rearview_client import AsyncClient, Client, models
from rearview_client.client import _OPS
from rearview_client.errors import _BY_CODE, _BY_STATUS, error_for

# Fields the server answers that its document does not list, per model.
UNDOCUMENTED: dict[type[BaseModel], set[str]] = {
    models.SessionEnd: {"working_memories", "method", "model", "episodes"},
    models.Timeline: {"namespace", "days"},
}
# Answers the document describes only as `{"type": "object"}`.
OPAQUE = [
    ("/v1/stats", "get", "200", None),
    ("/v1/suggest-distillations", "post", "200", None),
]


@pytest.fixture(scope="module")
def doc(server) -> dict[str, Any]:
    return httpx.get(server.url + "/openapi.json").json()


def resolve(doc: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def response(doc: dict[str, Any], path: str, method: str, status: str = "200") -> dict[str, Any]:
    answer = doc["paths"][path][method]["responses"][status]
    return resolve(doc, answer["content"]["application/json"]["schema"])


def fields(model: type[BaseModel]) -> tuple[set[str], set[str]]:
    """``(names, required names)`` of a model."""
    names = {f.alias or n for n, f in model.model_fields.items()}
    required = {f.alias or n for n, f in model.model_fields.items() if f.is_required()}
    return names, required


def assert_model(doc: dict[str, Any], model: type[BaseModel], schema: dict[str, Any]) -> None:
    schema = resolve(doc, schema)
    names, required = fields(model)
    documented = set(schema.get("properties", {}))
    extra = UNDOCUMENTED.get(model, set())
    assert not extra & documented, f"{model.__name__}: now documented: {extra & documented}"
    assert names - extra == documented, f"{model.__name__} differs: {names ^ documented}"
    if "required" in schema:
        assert required - extra == set(schema["required"]), f"{model.__name__} required differs"


COMPONENTS = [
    (models.Memory, "Memory"),
    (models.Link, "Link"),
    (models.PossibleUpdate, "PossibleUpdate"),
    (models.RecallHit, "RecallHit"),
    (models.RecallResult, "RecallResult"),
    (models.Took, "TookView"),
    (models.ErrorBody, "Error"),
]


@pytest.mark.parametrize(("model", "name"), COMPONENTS, ids=[n for _, n in COMPONENTS])
def test_component_schemas(doc, model, name) -> None:
    assert_model(doc, model, doc["components"]["schemas"][name])


def test_inline_answer_schemas(doc) -> None:
    for status in ("200", "201"):
        stored = response(doc, "/v1/memories", "post", status)
        assert_model(doc, models.StoreResult, stored)
        assert_model(doc, models.Superseded, stored["properties"]["superseded"]["items"])
        assert stored["properties"]["status"]["enum"] == list(
            typing.get_args(models.StoreResult.model_fields["status"].annotation)
        )
    linked = response(doc, "/v1/link", "post")
    assert_model(doc, models.LinkResult, linked)
    assert_model(doc, models.Superseded, linked["properties"]["superseded"]["items"])
    distilled = response(doc, "/v1/summarize", "post")
    assert_model(doc, models.Distillation, distilled)
    assert distilled["properties"]["method"]["enum"] == list(
        typing.get_args(models.Distillation.model_fields["method"].annotation)
    )
    assert_model(doc, models.SessionEnd, response(doc, "/v1/sessions/end", "post"))
    timeline = response(doc, "/v1/timeline", "get")
    assert_model(doc, models.Timeline, timeline)
    assert_model(doc, models.TimelineDay, timeline["properties"]["tiers"]["items"])
    assert_model(doc, models.LatencyMinute, timeline["properties"]["recall_latency"]["items"])
    assert_model(doc, models.CleanupResult, response(doc, "/v1/cleanup", "post"))
    pending = response(doc, "/v1/possible-updates", "get")["properties"]["pending"]["items"]
    assert_model(doc, models.PendingReview, pending)
    assert_model(doc, models.ApiKey, response(doc, "/v1/keys", "post", "201"))
    listed = response(doc, "/v1/keys", "get")["properties"]["keys"]["items"]
    assert_model(doc, models.ApiKey, listed)


def test_merge_description_names_the_merge_fields(doc) -> None:
    merged = response(doc, "/v1/memories", "post", "200")["properties"]["merged"]
    listed = re.search(r":\s*(.*)$", merged["description"]).group(1)
    assert {f.strip() for f in listed.split(",")} == fields(models.Merge)[0]


def test_opaque_answers_are_still_opaque(doc) -> None:
    for path, method, status, _ in OPAQUE:
        assert "properties" not in response(doc, path, method, status), f"{path} is now described"


def test_answers_wrap_what_the_client_unwraps(doc) -> None:
    """The key each operation reads its answer from is a documented property."""
    wrapped = {
        ("/v1/memories", "get"): "memories",
        ("/v1/memories/{id}", "get"): "memory",
        ("/v1/memories/{id}", "patch"): "memory",
        ("/v1/memories/{id}/history", "get"): "history",
        ("/v1/archive", "post"): "memories",
        ("/v1/restore", "post"): "memories",
        ("/v1/unlink", "post"): "memory",
        ("/v1/possible-updates", "get"): "pending",
    }
    for (path, method), key in wrapped.items():
        properties = response(doc, path, method)["properties"]
        assert key in properties, f"{method} {path} has no {key}"
        item = properties[key].get("items", properties[key])
        if key != "pending":
            assert resolve(doc, item) == doc["components"]["schemas"]["Memory"]


def test_every_route_has_a_method_and_every_method_a_route(doc) -> None:
    documented = {
        (path, method.upper())
        for path, operations in doc["paths"].items()
        if path.startswith("/v1/")
        for method in operations
    }
    covered = {(op.path, op.method) for op in _OPS.values()}
    assert covered == documented


# Request side: each method's parameters are the schema's properties (plus the path id and the
# namespace, which GET/PATCH/DELETE send as a header), required exactly where the schema says.
REQUESTS = [
    ("store", "StoreParams", set()),
    ("recall", "RecallParams", set()),
    ("list", "ListQuery", {"namespace"}),
    ("update", "PatchBody", {"id", "namespace"}),
    ("end_session", "EndSessionParams", set()),
    ("summarize", "SummarizeEpisodesParams", set()),
    ("suggest_distillations", "SuggestParams", set()),
    ("archive", "IdsParams", set()),
    ("restore", "IdsParams", set()),
    ("link", "LinkParams", set()),
    ("unlink", "UnlinkParams", set()),
    ("possible_updates", "ReviewQuery", {"namespace"}),
    ("timeline", "TimelineQuery", {"namespace"}),
    ("get", None, {"id", "namespace"}),
    ("delete", None, {"id", "namespace"}),
    ("history", None, {"id", "namespace"}),
    ("cleanup", None, {"namespace"}),
    ("stats", None, set()),
    ("list_keys", None, set()),
    ("create_key", "KeyParams", set()),
    ("revoke_key", None, {"id"}),
]


def parameters(method: Any) -> tuple[set[str], set[str]]:
    params = [p for p in inspect.signature(method).parameters.values() if p.name != "self"]
    return {p.name for p in params}, {p.name for p in params if p.default is p.empty}


@pytest.mark.parametrize(("name", "schema", "outside"), REQUESTS, ids=[r[0] for r in REQUESTS])
def test_method_parameters(doc, name, schema, outside) -> None:
    names, required = parameters(getattr(Client, name))
    properties: set[str] = set()
    schema_required: set[str] = set()
    if schema is not None:
        body = doc["components"]["schemas"][schema]
        properties, schema_required = set(body["properties"]), set(body.get("required", []))
    path_params = {"id"} & outside
    assert names == properties | outside
    assert required == schema_required | path_params
    # The namespace goes in the body exactly where the body has the field, else in the header;
    # methods without a namespace parameter (stats, keys) send none.
    where = _OPS[name].namespace_in
    if "namespace" in names:
        assert where == ("body" if "namespace" in properties else "header")
    else:
        assert where == "none"


def test_the_async_client_has_the_same_methods(doc) -> None:
    public = {n for n in dir(Client) if not n.startswith("_") and callable(getattr(Client, n))}
    for name in public - {"close"}:
        assert inspect.signature(getattr(Client, name)) == inspect.signature(
            getattr(AsyncClient, name)
        ), name
        assert inspect.iscoroutinefunction(getattr(AsyncClient, name)), name


def test_enums(doc) -> None:
    schemas = doc["components"]["schemas"]
    tiers = [v["const"] for v in schemas["Tier"]["oneOf"]]
    assert tiers == list(typing.get_args(models.MemoryType))
    originals = [v["const"] for v in schemas["OriginalsParam"]["oneOf"]]
    hints = typing.get_type_hints(Client.summarize)
    assert originals == list(typing.get_args(typing.get_args(hints["originals"])[0]))
    assert schemas["LinkMakerName"]["enum"] == ["caller", "llm", "rule", "update"]


def test_error_codes(doc) -> None:
    """Every documented code has its class, and that class is (a subclass of) the class of the
    code's documented status, so ``except NotFound`` and the like hold by code and by status."""
    code = doc["components"]["schemas"]["Error"]["properties"]["code"]
    assert set(code["enum"]) == set(_BY_CODE)
    statuses = dict(re.findall(r"`(\w+)` (\d{3})", code["description"]))
    assert set(statuses) == set(_BY_CODE)
    for name, status in statuses.items():
        assert issubclass(_BY_CODE[name], _BY_STATUS[int(status)]), name
        assert type(error_for(int(status), {"code": name, "message": "m"})) is _BY_CODE[name]
