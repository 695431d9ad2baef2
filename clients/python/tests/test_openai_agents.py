"""OpenAI Agents SDK: the memory tools invoked as the SDK invokes them (``on_invoke_tool`` with a
``ToolContext`` and the model's JSON arguments), ``RearviewSession`` through the ``Session``
protocol, and both inside ``Runner.run`` with a scripted model (no network)."""

from __future__ import annotations

import json
from typing import Any

from agents import Agent, FunctionTool, ModelResponse, RunConfig, Runner
from agents.memory import Session
from agents.models.interface import Model
from agents.tool_context import ToolContext
from agents.usage import Usage
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from rearview_client import AsyncClient, Client
from rearview_client.openai_agents import RearviewSession, memory_tools


async def invoke(tool: FunctionTool, arguments: dict[str, Any]) -> Any:
    raw = json.dumps(arguments)
    context = ToolContext(
        context=None, tool_name=tool.name, tool_call_id="call-1", tool_arguments=raw
    )
    return await tool.on_invoke_tool(context, raw)


async def test_memory_tools(aclient: AsyncClient, client: Client) -> None:
    store_tool, recall_tool = memory_tools(aclient)
    assert isinstance(store_tool, FunctionTool) and store_tool.name == "store_memory"
    assert recall_tool.name == "recall_memory" and store_tool.strict_json_schema
    schema = store_tool.params_json_schema
    assert set(schema["properties"]) == {"content", "memory_type", "tags"}
    assert schema["properties"]["memory_type"]["enum"] == ["working", "episodic", "semantic"]
    assert set(recall_tool.params_json_schema["properties"]) == {"query", "top_k"}

    answer = await invoke(
        store_tool,
        {"content": "The user's dog is called Pixel", "memory_type": "semantic", "tags": ["pets"]},
    )
    assert answer.startswith("Stored memory ")
    [memory] = client.list(tags=["pets"])
    assert memory.content == "The user's dog is called Pixel" and memory.memory_type == "semantic"

    answer = await invoke(recall_tool, {"query": "dog name", "top_k": 3})
    assert "The user's dog is called Pixel" in answer and memory.id in answer
    answer = await invoke(recall_tool, {"query": "unrelated zebra", "top_k": 3})
    assert answer == "No relevant memories."


async def test_memory_tools_from_a_blocking_client(server, ns: str) -> None:
    with Client(server.url, namespace=ns) as client:
        store_tool, _ = memory_tools(client)
        await invoke(
            store_tool, {"content": "Made by a twin", "memory_type": "episodic", "tags": None}
        )
        assert [m.content for m in client.list()] == ["Made by a twin"]


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


async def test_session_protocol(aclient: AsyncClient, client: Client) -> None:
    session = RearviewSession("conv-1", aclient)
    assert isinstance(session, Session)
    assert await session.get_items() == [] and await session.pop_item() is None

    items = [
        user("hello"),
        user("hello"),
        {
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Hi! How can I help?", "annotations": []}],
        },
    ]
    await session.add_items(items)
    await session.add_items([user("I need a flight to Oslo next Friday")])
    history = await session.get_items()
    assert history == [*items, user("I need a flight to Oslo next Friday")]
    assert await session.get_items(limit=2) == history[-2:]

    memories = client.list(session_id="conv-1")
    assert {m.memory_type for m in memories} == {"working"} and len(memories) == 4
    assert {m.metadata["role"] for m in memories} == {"user", "assistant"}
    assert "Hi! How can I help?" in {m.content for m in memories}

    assert await session.pop_item() == user("I need a flight to Oslo next Friday")
    assert await session.get_items() == items
    await session.clear_session()
    assert await session.get_items() == [] and client.list(session_id="conv-1") == []


async def test_sessions_are_separate_and_limited_by_settings(aclient: AsyncClient) -> None:
    class Settings:
        limit = 1

    a = RearviewSession("a", aclient, session_settings=Settings())
    b = RearviewSession("b", aclient)
    await a.add_items([user("one"), user("two")])
    await b.add_items([user("three")])
    assert await a.get_items() == [user("two")]
    assert await a.get_items(limit=5) == [user("one"), user("two")]
    assert await b.get_items() == [user("three")]


async def test_ending_a_session_makes_episodes(aclient: AsyncClient, client: Client) -> None:
    session = RearviewSession("conv-2", aclient)
    await session.add_items([user("I am allergic to shellfish and peanuts"), user("thanks")])
    ended = await session.end()
    assert [e.memory.content for e in ended.episodes] == ["I am allergic to shellfish and peanuts"]
    assert await session.get_items() == []
    assert client.recall("allergic")[0].memory.memory_type == "episodic"


class ScriptedModel(Model):
    """A model that answers from a script and records what it was given."""

    def __init__(self, outputs: list[list[Any]]) -> None:
        self.outputs = outputs
        self.inputs: list[Any] = []

    async def get_response(self, system_instructions, input, *args: Any, **kwargs: Any):
        self.inputs.append(input)
        return ModelResponse(output=self.outputs.pop(0), usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any):
        raise NotImplementedError


def say(text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(
        id="msg",
        role="assistant",
        status="completed",
        type="message",
        content=[ResponseOutputText(text=text, type="output_text", annotations=[])],
    )


def call(name: str, arguments: dict[str, Any], call_id: str) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(
        id=call_id,
        call_id=call_id,
        name=name,
        arguments=json.dumps(arguments),
        type="function_call",
        status="completed",
    )


async def test_an_agent_run_with_tools_and_session(aclient: AsyncClient, client: Client) -> None:
    model = ScriptedModel(
        [
            [
                call(
                    "store_memory",
                    {
                        "content": "The user's favourite colour is teal",
                        "memory_type": "semantic",
                        "tags": None,
                    },
                    "c1",
                )
            ],
            [say("Noted: teal.")],
            [call("recall_memory", {"query": "favourite colour", "top_k": 5}, "c2")],
            [say("Your favourite colour is teal.")],
        ]
    )
    agent = Agent(name="assistant", model=model, tools=memory_tools(aclient))
    session = RearviewSession("run-1", aclient)
    config = RunConfig(tracing_disabled=True)

    first = await Runner.run(
        agent, "My favourite colour is teal.", session=session, run_config=config
    )
    assert first.final_output == "Noted: teal."
    second = await Runner.run(
        agent, "What is my favourite colour?", session=session, run_config=config
    )
    assert second.final_output == "Your favourite colour is teal."

    # The tool ran against rearview...
    assert [m.content for m in client.list(memory_type="semantic")] == [
        "The user's favourite colour is teal"
    ]
    # ...the second run saw the first one's history from the session...
    assert user("My favourite colour is teal.") in model.inputs[2]
    # ...and its recall output reached the model.
    outputs = [i for i in model.inputs[3] if i.get("type") == "function_call_output"]
    assert "The user's favourite colour is teal" in outputs[-1]["output"]
    history = await session.get_items()
    assert history[0] == user("My favourite colour is teal.")
    assert history[-1]["content"][0]["text"] == "Your favourite colour is teal."
    assert {i.get("type") for i in history} >= {"function_call", "function_call_output"}
