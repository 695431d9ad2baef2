"""The LangChain retriever and tools, invoked as LangChain invokes them (``invoke``/``ainvoke``
with a query, with tool arguments, with a model's tool call, and through LangGraph's
``ToolNode``)."""

from __future__ import annotations

from langchain_core.documents import Document
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.retrievers import BaseRetriever
from langchain_core.tools import BaseTool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

from rearview_client import AsyncClient, Client, RecallResult, StoreResult
from rearview_client.langchain import RearviewRetriever, memory_tools


def test_retriever(client: Client, ns: str) -> None:
    stored = client.store(
        "The deploy script lives in scripts/deploy.sh",
        memory_type="semantic",
        metadata={"tags": ["ops"]},
    )
    client.store("We had pizza on Friday")
    retriever = RearviewRetriever(client=client, top_k=3)
    assert isinstance(retriever, BaseRetriever)
    docs = retriever.invoke("deploy script")
    assert isinstance(docs[0], Document)
    assert docs[0].page_content == "The deploy script lives in scripts/deploy.sh"
    assert docs[0].id == stored.id
    meta = docs[0].metadata
    assert meta["id"] == stored.id and meta["score"] > 0 and meta["namespace"] == ns
    assert meta["memory_type"] == "semantic" and meta["tags"] == ["ops"]
    assert RearviewRetriever(client=client, memory_type="episodic").invoke("deploy script") == []
    assert [len(d) for d in retriever.batch(["deploy", "pizza"])] == [1, 1]


async def test_retriever_async(client: Client, aclient: AsyncClient) -> None:
    client.store("Standup is at 9:30 every weekday")
    with_async = RearviewRetriever(async_client=aclient)
    docs = await with_async.ainvoke("standup")
    assert docs[0].page_content == "Standup is at 9:30 every weekday"
    assert with_async.invoke("standup")[0].page_content == docs[0].page_content  # blocking twin
    in_thread = RearviewRetriever(client=client)
    assert (await in_thread.ainvoke("standup"))[0].id == docs[0].id


def test_tools_invoked_with_arguments_and_tool_calls(client: Client) -> None:
    store_tool, recall_tool = memory_tools(client)
    assert isinstance(store_tool, BaseTool) and store_tool.name == "store_memory"
    assert recall_tool.name == "recall_memory"
    assert set(store_tool.args) == {"content", "memory_type", "tags"}
    assert set(recall_tool.args) == {"query", "top_k"}

    text = store_tool.invoke(
        {"content": "The user is vegetarian", "memory_type": "semantic", "tags": ["food"]}
    )
    assert text.startswith("Stored memory ")
    [memory] = client.list(tags=["food"])
    assert memory.content == "The user is vegetarian" and memory.memory_type == "semantic"

    call = {
        "name": "store_memory",
        "id": "call-1",
        "type": "tool_call",
        "args": {"content": "The user is vegetarian", "memory_type": "semantic"},
    }
    message = store_tool.invoke(call)
    assert isinstance(message, ToolMessage) and message.tool_call_id == "call-1"
    assert isinstance(message.artifact, StoreResult) and message.artifact.status == "merged"
    assert message.content.startswith(f"Already known; merged into memory {memory.id}")

    message = recall_tool.invoke(
        {
            "name": "recall_memory",
            "args": {"query": "vegetarian"},
            "id": "call-2",
            "type": "tool_call",
        }
    )
    assert "The user is vegetarian" in message.content and memory.id in message.content
    assert isinstance(message.artifact, RecallResult)
    assert message.artifact[0].memory.id == memory.id
    assert recall_tool.invoke({"query": "nothing like this"}) == "No relevant memories."


async def test_tools_async(client: Client, aclient: AsyncClient) -> None:
    store_tool, recall_tool = memory_tools(async_client=aclient)
    text = await store_tool.ainvoke({"content": "Flight LH400 departs at 10:05"})
    assert text.startswith("Stored memory ")
    message = await recall_tool.ainvoke(
        {
            "name": "recall_memory",
            "args": {"query": "LH400", "top_k": 1},
            "id": "c",
            "type": "tool_call",
        }
    )
    assert "Flight LH400 departs at 10:05" in message.content
    # without an async client the blocking one runs in a thread
    _, recall_in_thread = memory_tools(client)
    assert "LH400" in await recall_in_thread.ainvoke({"query": "LH400"})


def test_tools_in_a_langgraph_tool_node(client: Client) -> None:
    """How a LangGraph agent runs the tools its model asked for: a ``ToolNode`` in a graph."""
    builder = StateGraph(MessagesState)
    builder.add_node("tools", ToolNode(memory_tools(client)))
    builder.add_edge(START, "tools")
    builder.add_edge("tools", END)
    app = builder.compile()

    asked = AIMessage(
        content="",
        tool_calls=[
            {"name": "store_memory", "args": {"content": "Parking spot is B12"}, "id": "a"},
        ],
    )
    stored = app.invoke({"messages": [asked]})["messages"][-1]
    assert stored.tool_call_id == "a" and stored.content.startswith("Stored memory ")
    asked = AIMessage(
        content="",
        tool_calls=[
            {"name": "recall_memory", "args": {"query": "parking"}, "id": "b"},
        ],
    )
    recalled = app.invoke({"messages": [asked]})["messages"][-1]
    assert "Parking spot is B12" in recalled.content


def test_tools_use_their_namespace(server, ns: str) -> None:
    with Client(server.url) as client:
        store_tool, _ = memory_tools(client, namespace=ns)
        store_tool.invoke({"content": "Namespaced memory"})
        assert [m.content for m in client.list(namespace=ns)] == ["Namespaced memory"]
