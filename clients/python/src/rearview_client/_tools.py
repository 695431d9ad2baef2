"""What the agent-framework tools say: descriptions and answers as text for a model (shared by the
LangChain and OpenAI Agents integrations)."""

from __future__ import annotations

from .models import RecallResult, StoreResult

STORE_DESCRIPTION = (
    "Remember something for later conversations: one self-contained fact, preference, decision "
    "or event per call (e.g. 'The user prefers window seats'). Use memory_type 'semantic' for "
    "lasting knowledge and preferences, 'episodic' (default) for events, 'working' for notes on "
    "the current task."
)
RECALL_DESCRIPTION = (
    "Search long-term memory for what is relevant to a query (any language), best first. Use it "
    "before answering questions about the user, earlier conversations or decisions."
)
CONTENT_HELP = "The statement to remember, understandable without the conversation."
MEMORY_TYPE_HELP = "'working', 'episodic' (default) or 'semantic'."
TAGS_HELP = "Optional tags to filter by later, e.g. ['travel']."
QUERY_HELP = "What to look for."
TOP_K_HELP = "How many memories to return, 1 to 100."


def stored_text(result: StoreResult) -> str:
    """A store's answer for a model."""
    memory = result.memory
    if result.status == "merged":
        lines = [f"Already known; merged into memory {memory.id}: {memory.content}"]
    else:
        lines = [f"Stored memory {memory.id}."]
    for old in result.superseded:
        lines.append(f"It replaces memory {old.id} ({old.reason}).")
    for update in result.possible_updates:
        text = f": {update.content}" if update.content else ""
        lines.append(f"It may update memory {update.id}{text}")
    return "\n".join(lines)


def recall_text(result: RecallResult) -> str:
    """Recalled memories for a model, one per line, best first."""
    if not result.hits:
        return "No relevant memories."
    lines = []
    for hit in result.hits:
        memory = hit.memory
        when = memory.occurred_at.date().isoformat()
        lines.append(f"- {memory.content} ({memory.memory_type}, {when}, id {memory.id})")
    return "\n".join(lines)
