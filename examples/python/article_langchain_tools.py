"""The design article's LangChain integration (§4.5), run exactly as printed, against rearview.

The block between the two `----` rules below is copied verbatim from the article (§4.5 "与Agent
框架的对接示例"): its imports, its two functions that POST to `http://localhost:8765/mcp/tools/call`,
its `tools` list, `ChatOpenAI(model="gpt-4")` and the `AgentExecutor`. Nothing in it is adapted: the
URL is hard-coded, and the answers it reads (`["result"]["status"]`, `["result"]` as a list of
`{"content": …}`) are the article's own. rearview serves that endpoint with exactly those shapes,
so the code runs unchanged.

What it needs (pinned in requirements.txt):
- `langchain` 0.3 (`langchain.agents.Tool` and `AgentExecutor`, gone from langchain 1.x) and
  `langchain-openai`;
- `OPENAI_API_KEY` set: `ChatOpenAI` insists on a key when it is constructed, but makes no request
  then (nothing here calls the model), so a dummy key is enough;
- rearview listening on port 8765 of localhost (its default `--listen`), with a fresh database:
  `rearview --db /tmp/article.db serve`.

The test below the block calls the article's functions directly, and through the `tools` list as an
agent would, with Chinese and English memories, and checks what comes back.

Usage: OPENAI_API_KEY=sk-dummy python article_langchain_tools.py
"""

# ---- verbatim from the design article, §4.5 (do not edit) ------------------------------------
from langchain.agents import Tool, AgentExecutor
from langchain_openai import ChatOpenAI
import requests

def store_memory(content: str, memory_type: str = "episodic") -> str:
    resp = requests.post("http://localhost:8765/mcp/tools/call", json={
        "name": "store_memory",
        "arguments": {"content": content, "memory_type": memory_type}
    })
    return resp.json()["result"]["status"]

def retrieve_memory(query: str) -> str:
    resp = requests.post("http://localhost:8765/mcp/tools/call", json={
        "name": "retrieve_memory",
        "arguments": {"query": query, "top_k": 5}
    })
    results = resp.json()["result"]
    return "\n".join([r["content"] for r in results])

tools = [
    Tool(name="store_memory", func=store_memory, description="存储重要信息到长期记忆"),
    Tool(name="retrieve_memory", func=retrieve_memory, description="从长期记忆中检索相关信息")
]

llm = ChatOpenAI(model="gpt-4")
agent = AgentExecutor.from_agent_and_tools(
    agent=llm.bind_tools(tools),
    tools=tools
)
# ---- end of the article's code -----------------------------------------------------------------


if __name__ == "__main__":
    CALL = "http://localhost:8765/mcp/tools/call"

    # The article's functions, called directly.
    status = store_memory("用户要求把数据库从 MySQL 迁移到 PostgreSQL")
    print("store_memory ->", status)
    assert status == "stored", status
    status = store_memory("The user prefers answers in bullet points", "semantic")
    assert status == "stored", status
    # Saying the same thing again merges into the memory already there.
    status = store_memory("用户要求把数据库从 MySQL 迁移到 PostgreSQL")
    assert status == "merged", status

    recalled = retrieve_memory("数据库迁移")
    print("retrieve_memory(数据库迁移) ->", recalled.replace("\n", " | "))
    assert "PostgreSQL" in recalled, recalled
    recalled = retrieve_memory("how should answers be formatted?")
    assert "bullet points" in recalled, recalled

    # The same functions through the `tools` list, as the agent calls them (one string in).
    store_tool, retrieve_tool = tools
    assert (store_tool.name, retrieve_tool.name) == ("store_memory", "retrieve_memory")
    status = store_tool.invoke("周五下午三点和 Priya 一起评审 API 设计")
    assert status == "stored", status
    status = store_tool.invoke("The staging server listens on port 5433")
    assert status == "stored", status
    recalled = retrieve_tool.invoke("API 设计评审")
    print("tools[1].invoke(API 设计评审) ->", recalled.replace("\n", " | "))
    assert "Priya" in recalled, recalled
    recalled = retrieve_tool.invoke("which port does the staging server use?")
    assert "5433" in recalled, recalled

    # Every field of the article's answers (§4.4): store → {id, status}; retrieve → a list of
    # {id, timestamp, content, memory_type, metadata, score}; cleanup_expired → {cleaned}.
    answer = requests.post(CALL, json={"name": "store_memory", "arguments": {
        "content": "Deploys happen on Tuesdays", "memory_type": "semantic"}}, timeout=30).json()
    assert answer["result"]["status"] == "stored" and len(answer["result"]["id"]) == 36, answer
    answer = requests.post(CALL, json={"name": "retrieve_memory", "arguments": {
        "query": "when do deploys happen?", "top_k": 5}}, timeout=30).json()
    hits = answer["result"]
    assert isinstance(hits, list) and 1 <= len(hits) <= 5, answer
    for hit in hits:
        assert {"id", "timestamp", "content", "memory_type", "metadata", "score"} <= set(hit), hit
    assert hits[0]["content"] == "Deploys happen on Tuesdays", hits
    assert hits[0]["memory_type"] == "semantic", hits[0]
    answer = requests.post(CALL, json={"name": "cleanup_expired", "arguments": {}}, timeout=30).json()
    assert isinstance(answer["result"]["cleaned"], int), answer

    # The agent object the article builds is a real AgentExecutor over those two tools.
    assert isinstance(agent, AgentExecutor)
    assert [t.name for t in agent.tools] == ["store_memory", "retrieve_memory"]
    print("ok: the article's §4.5 LangChain code runs unchanged against rearview")
