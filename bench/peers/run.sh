#!/usr/bin/env bash
# Runs bench/peers/compare.py: the design's Python code and rearview on the same data.
# Builds rearview (release) and a venv with the design's dependencies on first use.
# Usage: bench/peers/run.sh [--size 10000] [--queries 200] [--json]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${REARVIEW_PEERS_VENV:-$root/target/peers-venv}"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet -r "$here/requirements.txt"
fi
(cd "$root" && cargo build --release --quiet -p rearview)
exec "$venv/bin/python" "$here/compare.py" "$@"
