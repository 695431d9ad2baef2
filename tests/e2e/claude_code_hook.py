"""The Claude Code plugin (integrations/claude-code) driven as Claude Code drives it.

Each hook is the command its `hooks/hooks.json` names, run through the shell with the JSON Claude
Code sends on stdin, in the project directory, with `rearview` on the PATH; the MCP server is the
one its `.mcp.json` names, started by the official MCP Python SDK. The transcript is a recorded
session (tests/e2e/fixtures/claude-code-session.jsonl), written in two parts as a live session
grows.

Local mode (no REARVIEW_URL): the first hook starts an on-demand `rearview serve` and falls back
to an in-process store meanwhile; captures are incremental; a new session starts with the
decisions of the last one; a related prompt (English or Chinese) gets the memories it names, an
unrelated one gets nothing; the MCP tools see the same project memory; bad input never fails the
agent. Remote mode (REARVIEW_URL and a key limited to one namespace): the same through a keyed
server, nothing started locally, and a wrong key fails quietly. Prints the hooks' latency.

Usage: python tests/e2e/claude_code_hook.py path/to/rearview  (needs the `mcp` package)
"""

import asyncio
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.parse
import urllib.request
from pathlib import Path

from harness import check, finish, free_port

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "integrations" / "claude-code"
FIXTURE = Path(__file__).resolve().parent / "fixtures" / "claude-code-session.jsonl"
HOOKS = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"]

QUEUE = "The email sender needs a job queue. Let's use PostgreSQL with SELECT ... FOR UPDATE SKIP LOCKED"
QUEUE_DONE = "Done. Outgoing emails are now rows in a `jobs` table"
UTC = "every timestamp the public API returns must be UTC in RFC 3339"
DEPLOY = "部署脚本以后统一放在 deploy/ 目录里"
NOISE = ["Let me look at the existing worker module", "pub fn run_worker", "has been updated",
         "TodoWrite", "<command-name>", "Caveat:", "Request interrupted", "test api_time::utc"]


def hook(event, payload, env, cwd, stdin=None):
    """(exit code, stdout, seconds) of the hook command `hooks.json` names for `event`."""
    entry = HOOKS[event][0]["hooks"][0]
    data = stdin if stdin is not None else json.dumps({"hook_event_name": event, **payload})
    started = time.monotonic()
    done = subprocess.run(entry["command"], shell=True, input=data.encode(), cwd=cwd, env=env,
                          capture_output=True, timeout=entry["timeout"])
    return done.returncode, done.stdout.decode(), time.monotonic() - started


def context(stdout, event):
    """The additionalContext of a hook's answer ('' when it printed nothing)."""
    if not stdout.strip():
        return ""
    answer = json.loads(stdout)["hookSpecificOutput"]
    assert answer["hookEventName"] == event, answer
    return answer["additionalContext"]


def rest(url, method, path, body=None, key=None, namespace=None):
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    if namespace:
        headers["X-Rearview-Namespace"] = urllib.parse.quote(namespace, safe="")
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data=data, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def contents(url, namespace, key=None):
    """Every memory of `namespace`: {content: tier}."""
    listed = rest(url, "GET", "/v1/memories?limit=100", key=key, namespace=namespace)
    return {m["content"]: m["memory_type"] for m in listed["memories"]}


class Session:
    """A Claude Code session in `project`, its transcript growing in `transcript`."""

    def __init__(self, project, env, session_id):
        self.project, self.env, self.id = project, env, session_id
        self.transcript = project / ".transcripts" / f"{session_id}.jsonl"
        self.transcript.parent.mkdir(parents=True, exist_ok=True)
        self.transcript.write_text("")

    def grow(self, lines):
        with self.transcript.open("a") as f:
            f.writelines(lines)

    def run(self, event, **extra):
        payload = {"session_id": self.id, "transcript_path": str(self.transcript),
                   "cwd": str(self.project), "permission_mode": "default", **extra}
        return hook(event, payload, self.env, self.project)


def project_namespace(env):
    """The namespace `rearview mcp --project` works in, read from its startup log line."""
    # The hook and `mcp --project` share one function; ask the hook's log which it used.
    log = Path(env["REARVIEW_HOOK_STATE_DIR"]) / "hook.log"
    for line in reversed(log.read_text().splitlines()):
        if "namespace=" in line:
            return line.split("namespace=", 1)[1].split()[0]
    raise AssertionError("no namespace in the hook's log")


def wait_for(path, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists():
            return True
        time.sleep(0.1)
    return False


async def mcp_recall(env, project, query):
    """The contents `retrieve_memory` answers through the plugin's `.mcp.json` server."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    server = json.loads((PLUGIN / ".mcp.json").read_text())["mcpServers"]["rearview"]
    params = StdioServerParameters(command=server["command"], args=server["args"], env=env,
                                   cwd=str(project))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("retrieve_memory", {"query": query, "top_k": 3})
            answer = json.loads(result.content[0].text)
            return [h["memory"]["content"] for h in answer["hits"]]


def local_mode(binary, work):
    lines = FIXTURE.read_text().splitlines(keepends=True)
    project = work / "shop"
    (project / ".git").mkdir(parents=True)
    (project / "src").mkdir()
    state = work / "state"
    env = {**os.environ, "PATH": f"{Path(binary).parent}:{os.environ['PATH']}",
           "REARVIEW_DB": str(work / "memory.db"), "REARVIEW_HOOK_STATE_DIR": str(state),
           "CLAUDE_PROJECT_DIR": str(project)}
    for name in ("REARVIEW_URL", "REARVIEW_API_KEY", "REARVIEW_NAMESPACE", "REARVIEW_HOOK_NAMESPACE"):
        env.pop(name, None)
    first = Session(project, env, "0b1c2d3e-first")

    first.grow(lines[:12])
    code, out, took = first.run("Stop", stop_hook_active=False)
    check("Stop exits 0 and prints nothing", code == 0 and out == "", (code, out))
    check("the first hook starts a server on demand", wait_for(state / "server.json", 30),
          (state / "hook.log").read_text() if (state / "hook.log").exists() else "no log")
    server = json.loads((state / "server.json").read_text())
    url = server["url"]
    wait_up(url, 30)
    namespace = project_namespace(env)
    check("the namespace is named after the project", namespace.startswith("project:shop@"), namespace)
    stored = contents(url, namespace)
    check("Stop captured the first request and its conclusion (in process, meanwhile)",
          any(c.startswith(QUEUE) for c in stored) and any(c.startswith(QUEUE_DONE) for c in stored),
          stored)

    first.grow(lines[12:])
    code, out, _ = first.run("Stop", stop_hook_active=False)
    stored = contents(url, namespace)
    check("the next Stop adds only what is new, through the server",
          code == 0 and len(stored) == 6 and any(DEPLOY in c for c in stored)
          and any(UTC in c for c in stored), stored)
    check("tool output, meta lines, commands and interruptions are not captured",
          not [n for n in NOISE if any(n in c for c in stored)], stored)
    code, _, _ = first.run("PreCompact", trigger="auto", custom_instructions="")
    check("PreCompact with nothing new stores nothing", code == 0 and len(contents(url, namespace)) == 6)

    code, out, _ = first.run("SessionEnd", reason="prompt_input_exit")
    stored = contents(url, namespace)
    check("SessionEnd turns the session into episodes",
          code == 0 and out == "" and set(stored.values()) == {"episodic"}, stored)

    second = Session(project, env, "9f8e7d6c-second")
    code, out, _ = second.run("SessionStart", source="startup")
    started = context(out, "SessionStart")
    check("a new session starts with the decisions of the last one",
          code == 0 and QUEUE in started and DEPLOY in started and UTC in started, started)

    latencies = []
    prompts = [
        ("How should the job queue pick up work?", [QUEUE], [DEPLOY]),
        ("部署流程是怎样的？", [DEPLOY], [QUEUE]),
        ("what format do API timestamps use", [UTC], [DEPLOY]),
    ]
    for prompt, wanted, unwanted in prompts:
        code, out, took = second.run("UserPromptSubmit", prompt=prompt)
        latencies.append(took)
        shown = context(out, "UserPromptSubmit")
        check(f"prompt {prompt!r} gets the memory it names, not the others",
              code == 0 and all(w in shown for w in wanted) and not any(u in shown for u in unwanted),
              shown)
    for prompt in ["write a haiku about autumn leaves", "帮我写一首关于秋天的诗", "/clear"]:
        code, out, took = second.run("UserPromptSubmit", prompt=prompt)
        latencies.append(took)
        check(f"prompt {prompt!r} gets no context", code == 0 and out == "", out)
    for _ in range(14):
        latencies.append(second.run("UserPromptSubmit", prompt="How should the job queue pick up work?")[2])

    hits = asyncio.run(mcp_recall(env, project, "job queue SKIP LOCKED"))
    check("the plugin's MCP server recalls the same project memory", hits and QUEUE in hits[0], hits)

    for name, stdin in [("not JSON", "this is not json"), ("empty", ""),
                        ("a missing transcript", json.dumps({"hook_event_name": "Stop", "session_id": "x",
                                                           "transcript_path": "/nonexistent.jsonl",
                                                           "cwd": str(project)}))]:
        code, out, _ = hook("Stop", {}, env, project, stdin=stdin)
        check(f"{name} on stdin: exit 0, nothing printed", code == 0 and out == "", (code, out))
    check("the store is intact after bad input", len(contents(url, namespace)) == 6)
    os.kill(server["pid"], signal.SIGTERM)
    check("the on-demand server stops and removes its port file", wait_for_gone(state / "server.json", 15))
    return latencies


def wait_up(url, seconds):
    """Waits until the server at `url` answers /healthz (at most `seconds`)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url + "/healthz", timeout=1)
            return
        except OSError:
            time.sleep(0.1)


def wait_for_gone(path, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not path.exists():
            return True
        time.sleep(0.1)
    return False


def remote_mode(binary, work):
    db = work / "team.db"
    namespace = "team:shop"
    key = json.loads(subprocess.run([binary, "--db", str(db), "keys", "create", "--namespace",
                                     namespace, "--json"], check=True, capture_output=True,
                                    text=True).stdout)["key"]
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = open(work / "team-server.log", "wb")
    server = subprocess.Popen([binary, "--db", str(db), "serve", "--listen", f"127.0.0.1:{port}"],
                              stdout=log, stderr=subprocess.STDOUT,
                              env={**os.environ, "REARVIEW_API_KEY": "rv-admin-" + "1" * 32})
    try:
        wait_up(url, 60)
        project = work / "laptop-a" / "shop"
        (project / ".git").mkdir(parents=True)
        state = work / "remote-state"
        env = {**os.environ, "PATH": f"{Path(binary).parent}:{os.environ['PATH']}",
               "REARVIEW_URL": url, "REARVIEW_API_KEY": key, "REARVIEW_HOOK_NAMESPACE": namespace,
               "REARVIEW_HOOK_STATE_DIR": str(state), "REARVIEW_DB": str(work / "unused.db")}
        session = Session(project, env, "remote-1")
        session.grow(FIXTURE.read_text().splitlines(keepends=True))
        code, out, _ = session.run("Stop", stop_hook_active=False)
        code2, _, _ = session.run("SessionEnd", reason="logout")
        stored = contents(url, namespace, key=key)
        check("remote: Stop and SessionEnd store the session on the team server",
              code == 0 and code2 == 0 and len(stored) == 6 and set(stored.values()) == {"episodic"},
              stored)
        check("remote: nothing is started locally", not (state / "server.json").exists()
              and not (work / "unused.db").exists())
        other = work / "laptop-b" / "shop"
        (other / ".git").mkdir(parents=True)
        teammate = Session(other, env, "remote-2")
        code, out, _ = teammate.run("SessionStart", source="startup")
        check("remote: a teammate's session starts with those decisions",
              QUEUE in context(out, "SessionStart"), out)
        code, out, _ = teammate.run("UserPromptSubmit", prompt="部署脚本放在哪里？")
        check("remote: a Chinese prompt gets the deploy decision", DEPLOY in context(out, "UserPromptSubmit"), out)
        wrong = {**env, "REARVIEW_API_KEY": "rv_wrong_key"}
        code, out, _ = hook("UserPromptSubmit", {"session_id": "remote-3", "cwd": str(other),
                                                 "prompt": "How should the job queue pick up work?"},
                            wrong, other)
        logged = (state / "hook.log").read_text()
        check("remote: a wrong key prints nothing, exits 0 and logs the refusal",
              code == 0 and out == "" and "401" in logged, (code, out, logged[-500:]))
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(15)
        log.close()


def main():
    binary = os.path.abspath(sys.argv[1])
    work = Path(tempfile.mkdtemp(prefix="rearview-hook-"))
    try:
        latencies = local_mode(binary, work)
        if latencies:
            ms = sorted(1000 * t for t in latencies)
            print(f"UserPromptSubmit hook, process start to answer, {len(ms)} runs against the "
                  f"on-demand server: p50 {statistics.median(ms):.0f} ms, max {ms[-1]:.0f} ms")
        remote_mode(binary, work)
    except Exception:
        check("the scenario ran to the end", False, traceback.format_exc())
    finally:
        state = work / "state" / "server.json"
        if state.exists():
            try:
                os.kill(json.loads(state.read_text())["pid"], signal.SIGTERM)
            except (OSError, ValueError, KeyError):
                pass
        shutil.rmtree(work, ignore_errors=True)
    finish("claude code plugin")


if __name__ == "__main__":
    main()
