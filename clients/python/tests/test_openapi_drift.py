"""The SDK against the server's ``/openapi.json``: models (field names and required-ness, nested
models included), method parameters (names and required-ness, from each operation's request body
and its ``path`` and ``query`` parameters), where the namespace goes, routes, enums and error
codes. Any difference fails, so the SDK cannot drift from the server unnoticed. Where the SDK
knowingly differs from the document, the differences are listed here (``UNDOCUMENTED``,
``COMPAT``); the test also fails when the document starts describing them, so the lists stay
true. ``test_the_checks_notice_drift`` feeds the checks a drifted document, so they stay able to
fail."""

from __future__ import annotations

import copy
import inspect
import re
import typing
from collections.abc import Sequence
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

from rearview_client import AsyncClient, Client, models
from rearview_client.client import _OPS, NAMESPACE_HEADER
from rearview_client.errors import _BY_CODE, _BY_STATUS, error_for

# Fields the server answers that its document does not list, per model (none at present).
UNDOCUMENTED: dict[type[BaseModel], set[str]] = {}
# Method parameters the document does not list, per method: `list(tag=...)`, kept for callers of
# the older SDK (the server still takes `tag` as an alias of `tags`; the SDK sends `tags`).
COMPAT: dict[str, set[str]] = {"list": {"tag"}}


@pytest.fixture(scope="module")
def doc(server) -> dict[str, Any]:
    return httpx.get(server.url + "/openapi.json").json()


def resolve(doc: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def types(schema: dict[str, Any]) -> list[str]:
    """A schema's ``type``, as a list (``"object"``, ``["array", "null"]``)."""
    kind = schema.get("type")
    return [kind] if isinstance(kind, str) else list(kind or [])


def unwrap(doc: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """The object schema a field holds: ``$ref``s followed, a nullable ``anyOf``/``oneOf``
    reduced to its one other option, an array to its items."""
    while True:
        schema = resolve(doc, schema)
        options = schema.get("anyOf") or schema.get("oneOf")
        if options:
            real = [o for o in options if o.get("type") != "null"]
            if len(real) != 1:
                return schema
            schema = real[0]
        elif "array" in types(schema):
            schema = schema["items"]
        else:
            return schema


def response(doc: dict[str, Any], path: str, method: str, status: str = "200") -> dict[str, Any]:
    answer = doc["paths"][path][method]["responses"][status]
    return resolve(doc, answer["content"]["application/json"]["schema"])


def fields(model: type[BaseModel]) -> tuple[set[str], set[str]]:
    """``(names, required names)`` of a model."""
    names = {f.alias or n for n, f in model.model_fields.items()}
    required = {f.alias or n for n, f in model.model_fields.items() if f.is_required()}
    return names, required


def nested_models(annotation: Any) -> list[type[BaseModel]]:
    """The models a field's annotation holds (``X``, ``X | None``, ``list[X]``)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in nested_models(arg)]


def assert_model(
    doc: dict[str, Any], model: type[BaseModel], schema: dict[str, Any], path: str = ""
) -> None:
    """``model`` has exactly the properties of ``schema``, required where it says, and so do the
    models of its fields with the schemas of those properties."""
    path = path or model.__name__
    schema = unwrap(doc, schema)
    names, required = fields(model)
    documented = set(schema.get("properties", {}))
    extra = UNDOCUMENTED.get(model, set())
    assert not extra & documented, f"{path}: now documented: {extra & documented}"
    assert names - extra == documented, f"{path} differs: {sorted(names ^ documented)}"
    assert required - extra == set(schema.get("required", [])), (
        f"{path} required differs: {sorted((required - extra) ^ set(schema.get('required', [])))}"
    )
    for name, field in model.model_fields.items():
        for inner in nested_models(field.annotation):
            prop = schema["properties"][field.alias or name]
            assert_model(doc, inner, prop, f"{path}.{field.alias or name}")


def enum_values(doc: dict[str, Any], schema: dict[str, Any]) -> list[Any]:
    """The values of an enumeration schema: ``enum``, or ``oneOf``/``anyOf`` of ``const``s."""
    schema = resolve(doc, schema)
    if "enum" in schema:
        return list(schema["enum"])
    return [resolve(doc, o)["const"] for o in schema.get("oneOf") or schema["anyOf"]]


def literal(model: type[BaseModel], field: str) -> list[Any]:
    return list(typing.get_args(model.model_fields[field].annotation))


# Each operation's answer (the whole answer, or the part the client returns) and its model.
ANSWERS = [
    ("/v1/memories", "post", "201", None, models.StoreResult),
    ("/v1/memories", "post", "200", None, models.StoreResult),
    ("/v1/recall", "post", "200", None, models.RecallResult),
    ("/v1/memories", "get", "200", "memories", models.Memory),
    ("/v1/memories/{id}", "get", "200", "memory", models.Memory),
    ("/v1/memories/{id}", "patch", "200", "memory", models.Memory),
    ("/v1/memories/{id}/history", "get", "200", "history", models.Memory),
    ("/v1/archive", "post", "200", "memories", models.Memory),
    ("/v1/restore", "post", "200", "memories", models.Memory),
    ("/v1/unlink", "post", "200", "memory", models.Memory),
    ("/v1/link", "post", "200", None, models.LinkResult),
    ("/v1/possible-updates", "get", "200", "pending", models.PendingReview),
    ("/v1/sessions/end", "post", "200", None, models.SessionEnd),
    ("/v1/suggest-distillations", "post", "200", "suggestions", models.Suggestion),
    ("/v1/cleanup", "post", "200", None, models.CleanupResult),
    ("/v1/stats", "get", "200", None, models.Stats),
    ("/v1/timeline", "get", "200", None, models.Timeline),
    ("/v1/keys", "get", "200", "keys", models.ApiKey),
    ("/v1/keys", "post", "201", None, models.ApiKey),
]


@pytest.mark.parametrize(
    ("path", "method", "status", "key", "model"),
    ANSWERS,
    ids=[f"{m.upper()} {p} {s}" for p, m, s, _, _ in ANSWERS],
)
def test_answer_schemas(doc, path, method, status, key, model) -> None:
    """The client's models are the answers' schemas; where it unwraps a key (``{"memories":
    [...]}``), that key is the answer's only property, and required."""
    schema = response(doc, path, method, status)
    if key is not None:
        assert set(schema["properties"]) == {key} and schema.get("required") == [key], path
        schema = schema["properties"][key]
    assert_model(doc, model, schema)


def test_summarize_answers_a_distillation_or_a_preview(doc) -> None:
    """``anyOf``: the distillation, or ``{"preview": ...}`` (what the client dispatches on)."""
    distilled, preview = response(doc, "/v1/summarize", "post")["anyOf"]
    assert_model(doc, models.Distillation, distilled)
    preview = resolve(doc, preview)
    assert set(preview["properties"]) == {"preview"} and preview["required"] == ["preview"]
    assert_model(doc, models.DistillationPreview, preview["properties"]["preview"])


def test_revoke_answers_the_id(doc) -> None:
    revoked = response(doc, "/v1/keys/{id}/revoke", "post")
    assert set(revoked["properties"]) == {"revoked"} and revoked["required"] == ["revoked"]
    assert revoked["properties"]["revoked"]["type"] == "string"


COMPONENTS = [
    (models.Memory, "Memory"),
    (models.Link, "Link"),
    (models.PossibleUpdate, "PossibleUpdate"),
    (models.RecallHit, "RecallHit"),
    (models.RecallResult, "RecallResult"),
    (models.Took, "TookView"),
    (models.StoreResult, "Stored"),
    (models.Superseded, "SupersededMemory"),
    (models.Merge, "MergedView"),
    (models.LinkResult, "Linked"),
    (models.PendingReview, "PendingView"),
    (models.SessionEnd, "SessionEnded"),
    (models.Distillation, "Distilled"),
    (models.DistillationPreview, "PreviewView"),
    (models.Suggestion, "SuggestionView"),
    (models.CleanupResult, "Cleaned"),
    (models.Stats, "Stats"),
    (models.TierStats, "TierCountView"),
    (models.ModelVectors, "ModelVectorsView"),
    (models.EmbeddingStats, "EmbeddingView"),
    (models.EmbeddingModel, "ModelView"),
    (models.IndexUsage, "IndexesView"),
    (models.Timeline, "Timeline"),
    (models.TimelineDay, "DayView"),
    (models.LatencyMinute, "MinuteView"),
    (models.ApiKey, "ApiKey"),
    (models.ErrorBody, "Error"),
]


@pytest.mark.parametrize(("model", "name"), COMPONENTS, ids=[n for _, n in COMPONENTS])
def test_component_schemas(doc, model, name) -> None:
    assert_model(doc, model, doc["components"]["schemas"][name])


def test_every_route_has_a_method_and_every_method_a_route(doc) -> None:
    documented = {
        (path, method.upper())
        for path, operations in doc["paths"].items()
        if path.startswith("/v1/")
        for method in operations
    }
    covered = {(op.path, op.method) for op in _OPS.values()}
    assert covered == documented


# Request side: each method's parameters are its operation's inputs, required exactly where the
# document says: the request body's properties (for methods that send one), the `query`
# parameters and the `path` parameters, plus `namespace` for routes that read the namespace
# header; `COMPAT` aside.


def parameters(method: Any) -> tuple[set[str], set[str]]:
    params = [p for p in inspect.signature(method).parameters.values() if p.name != "self"]
    return {p.name for p in params}, {p.name for p in params if p.default is p.empty}


def method_drift(doc: dict[str, Any], name: str) -> list[str]:
    """How method ``name`` differs from its operation in ``doc``, as sentences; empty when not."""
    op = _OPS[name]
    operation = doc["paths"][op.path][op.method.lower()]
    params = operation.get("parameters", [])
    query = {p["name"]: p for p in params if p["in"] == "query"}
    path = {p["name"]: p for p in params if p["in"] == "path"}
    header = any(p["in"] == "header" and p["name"] == NAMESPACE_HEADER for p in params)
    body = operation.get("requestBody")
    body_schema = resolve(doc, body["content"]["application/json"]["schema"]) if body else {}
    problems = []
    properties: set[str] = set()
    body_required: set[str] = set()
    if op.args_in == "json":
        if not body:
            problems.append(f"{name}: sends a body, the operation takes none")
        properties = set(body_schema.get("properties", {}))
        body_required = set(body_schema.get("required", []))
    elif body and (
        # `cleanup` sends no body: its optional body only names the namespace (the header's).
        body.get("required") or set(body_schema.get("properties", {})) - {"namespace"}
    ):
        problems.append(f"{name}: sends no body, the operation takes {body_schema}")
    if query and op.args_in != "query":
        problems.append(f"{name}: sends no query string, the operation takes {sorted(query)}")
    names, required = parameters(getattr(Client, name))
    compat = COMPAT.get(name, set())
    documented = properties | set(query) | set(path) | ({"namespace"} if header else set())
    if compat & documented:
        problems.append(f"{name}: {sorted(compat & documented)} now documented: drop from COMPAT")
    if names - compat != documented:
        problems.append(
            f"{name}: parameters {sorted(names - compat)}, documented {sorted(documented)}"
        )
    documented_required = body_required | {n for n, p in {**query, **path}.items() if p["required"]}
    if required != documented_required:
        problems.append(f"{name}: requires {sorted(required)}, documented {documented_required}")
    # The namespace goes where the operation's own fields have it (body or query string: any
    # Unicode), else in the header; methods without a namespace parameter send none.
    if "namespace" in properties:
        where = "body"
    elif "namespace" in query:
        where = "query"
    elif header:
        where = "header"
    else:
        where = "none"
    if op.namespace_in != where:
        problems.append(f"{name}: sends the namespace in the {op.namespace_in}, not the {where}")
    # A list in the query string is sent as repeated keys: the method must take a list there.
    hints = typing.get_type_hints(getattr(Client, name))
    for param, spec in query.items():
        if "array" in types(spec["schema"]):
            origins = {typing.get_origin(a) for a in typing.get_args(hints.get(param))}
            if not origins & {list, Sequence}:
                problems.append(f"{name}: {param} is a list in the document")
    return problems


@pytest.mark.parametrize("name", sorted(_OPS))
def test_method_parameters(doc, name) -> None:
    assert method_drift(doc, name) == []


def test_list_takes_what_mcp_list_memories_takes(doc) -> None:
    """``GET /v1/memories``'s query is MCP ``list_memories``' arguments (the server's one
    ``ListParams``), ``tags`` a list and ``limit`` 1 to 1000."""
    params = {p["name"]: p for p in doc["paths"]["/v1/memories"]["get"]["parameters"]}
    assert {n for n, p in params.items() if p["in"] == "query"} == {
        "memory_type",
        "session_id",
        "tags",
        "include_archived",
        "include_superseded",
        "occurred_after",
        "occurred_before",
        "limit",
        "offset",
        "namespace",
    }
    assert params["tags"]["schema"]["items"] == {"type": "string"}
    assert (params["limit"]["schema"]["minimum"], params["limit"]["schema"]["maximum"]) == (1, 1000)


def test_the_async_client_has_the_same_methods(doc) -> None:
    public = {n for n in dir(Client) if not n.startswith("_") and callable(getattr(Client, n))}
    for name in public - {"close"}:
        assert inspect.signature(getattr(Client, name)) == inspect.signature(
            getattr(AsyncClient, name)
        ), name
        assert inspect.iscoroutinefunction(getattr(AsyncClient, name)), name


def test_enums(doc) -> None:
    schemas = doc["components"]["schemas"]
    assert enum_values(doc, schemas["Tier"]) == list(typing.get_args(models.MemoryType))
    originals = enum_values(doc, schemas["OriginalsParam"])
    hints = typing.get_type_hints(Client.summarize)
    assert originals == list(typing.get_args(typing.get_args(hints["originals"])[0]))
    assert enum_values(doc, schemas["LinkMakerName"]) == ["caller", "llm", "rule", "update"]
    status = response(doc, "/v1/memories", "post", "201")["properties"]["status"]
    assert enum_values(doc, status) == literal(models.StoreResult, "status")
    assert enum_values(doc, schemas["DistillMethod"]) == list(typing.get_args(models.DistillMethod))
    previews = [(models.Distillation, "Distilled"), (models.DistillationPreview, "PreviewView")]
    for model, name in previews:
        method = schemas[name]["properties"]["method"]
        assert enum_values(doc, method) == literal(model, "method"), name


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


def test_the_checks_notice_drift(doc) -> None:
    """A document the SDK does not follow fails the checks above."""
    drifted = copy.deepcopy(doc)
    schemas = drifted["components"]["schemas"]
    listing = drifted["paths"]["/v1/memories"]["get"]["parameters"]
    # A query parameter the SDK lacks; a query parameter becoming required.
    listing.append({"name": "importance", "in": "query", "required": False, "schema": {}})
    next(p for p in listing if p["name"] == "offset")["required"] = True
    # A query parameter the SDK sends that the server no longer has.
    review = drifted["paths"]["/v1/possible-updates"]["get"]["parameters"]
    review[:] = [p for p in review if p["name"] != "offset"]
    # A body field gone, which moves the namespace to the header.
    del schemas["UpdateParams"]["properties"]["namespace"]
    # A query string where the SDK sends none.
    drifted["paths"]["/v1/stats"]["get"]["parameters"] = [
        {"name": "verbose", "in": "query", "required": False, "schema": {}}
    ]
    problems = [p for name in _OPS for p in method_drift(drifted, name)]
    for pattern in [
        r"^list: parameters .*, documented .*'importance'",
        r"^list: requires \[\], documented \{'offset'\}",
        r"^possible_updates: parameters \[.*'offset'.*\], documented \['limit', 'namespace'\]",
        r"^update: sends the namespace in the body, not the header",
        r"^stats: sends no query string",
    ]:
        assert any(re.search(pattern, p) for p in problems), f"{pattern} not in {problems}"
    # `tag` documented for `list` itself: COMPAT is out of date.
    listing.append({"name": "tag", "in": "query", "required": False, "schema": {}})
    assert any("now documented: drop from COMPAT" in p for p in method_drift(drifted, "list"))

    # Answers: a nested model's field made optional (three levels down: Stats.embedding.models),
    # a new property (also nested: Stored.memory), a property gone.
    schemas["ModelView"]["required"].remove("dimensions")
    with pytest.raises(AssertionError, match=r"Stats\.embedding\.models required differs"):
        assert_model(drifted, models.Stats, response(drifted, "/v1/stats", "get"))
    schemas["Memory"]["properties"]["importance"] = {"type": "number"}
    with pytest.raises(AssertionError, match=r"StoreResult\.memory differs: \['importance'\]"):
        assert_model(drifted, models.StoreResult, response(drifted, "/v1/memories", "post", "201"))
    del schemas["Cleaned"]["properties"]["namespace"]
    with pytest.raises(AssertionError, match=r"CleanupResult differs: \['namespace'\]"):
        assert_model(drifted, models.CleanupResult, response(drifted, "/v1/cleanup", "post"))
