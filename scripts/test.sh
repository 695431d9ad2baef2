#!/usr/bin/env bash
# The whole test suite, exactly as CI runs it (.ci/run calls this script).
# Installs nothing beyond the Rust toolchain today; later steps (model cache, PostgreSQL, the
# Python MCP client) are added here, so that a fresh machine needs only this one command.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*" >&2; }

step "formatting (cargo fmt --check)"
cargo fmt --all --check

step "lints (cargo clippy -D warnings)"
cargo clippy --workspace --all-targets --all-features --quiet -- -D warnings

step "docs build without warnings"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --all-features --no-deps --quiet

step "tests (unit, store contract, service, CLI incl. kill -9 crash test, doc tests)"
cargo test --workspace --all-features
