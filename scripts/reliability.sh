#!/usr/bin/env bash
# The long reliability runs, against a built binary (they do not build it):
#   crash: kill -9 at random moments under 4 concurrent writers, 100 cycles: 0 acknowledged writes
#          lost, `rearview doctor` clean after every crash (keyword-only server);
#   soak:  64 concurrent clients x 60 s of mixed store (30 %) / recall (70 %) over REST: 0 errors,
#          p50/p99 per operation, access counts exact after the graceful-shutdown flush (the
#          default embedding model, as installed by `rearview models fetch` / scripts/test.sh).
# CI runs shorter versions; these are the full figures. Python 3 stdlib only.
#
# Usage: scripts/reliability.sh [BINARY]
#   BINARY defaults to target/release/rearview if built, else target/debug/rearview (both under
#   $CARGO_TARGET_DIR when set). Knobs (environment): CRASH_CYCLES (100), SOAK_CLIENTS (64),
#   SOAK_SECONDS (60), SOAK_ARGS (extra soak.py flags, e.g. --keyword-only), SKIP_CRASH=1,
#   SKIP_SOAK=1.
set -euo pipefail
cd "$(dirname "$0")/.."

target="${CARGO_TARGET_DIR:-target}"
bin="${1:-}"
if [ -z "$bin" ]; then
  if [ -x "$target/release/rearview" ]; then
    bin="$target/release/rearview"
  elif [ -x "$target/debug/rearview" ]; then
    bin="$target/debug/rearview"
  else
    echo "no rearview binary: build one (cargo build --release) or pass its path" >&2
    exit 2
  fi
fi
[ -x "$bin" ] || { echo "not an executable: $bin" >&2; exit 2; }
export REARVIEW_MODELS_DIR="${REARVIEW_MODELS_DIR:-$HOME/.cache/rearview/models}"
echo "binary: $bin ($("$bin" --version))"

status=0
if [ "${SKIP_CRASH:-0}" != 1 ]; then
  printf '\n==> crash: %s cycles of kill -9 under 4 writers\n' "${CRASH_CYCLES:-100}"
  python3 tests/reliability/crash.py "$bin" --cycles "${CRASH_CYCLES:-100}" || status=1
fi
if [ "${SKIP_SOAK:-0}" != 1 ]; then
  printf '\n==> soak: %s clients x %s s, mixed store/recall\n' "${SOAK_CLIENTS:-64}" "${SOAK_SECONDS:-60}"
  # shellcheck disable=SC2086 # SOAK_ARGS is a list of flags
  python3 tests/reliability/soak.py "$bin" --clients "${SOAK_CLIENTS:-64}" \
    --seconds "${SOAK_SECONDS:-60}" ${SOAK_ARGS:-} || status=1
fi
echo
echo "reliability: $([ "$status" -eq 0 ] && echo 'all passed' || echo 'FAILED')"
exit "$status"

if [ -z "${SKIP_FUZZ:-}" ]; then
  echo "==> fuzz: ${FUZZ_CASES:-1000000} structure-aware inputs through the router (REARVIEW_FUZZ_CASES)" >&2
  REARVIEW_FUZZ_CASES="${FUZZ_CASES:-1000000}" cargo test --release -p rearview-http --test fuzz -- --nocapture
fi
