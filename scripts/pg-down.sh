#!/usr/bin/env bash
# pg-down.sh - stop the server started by pg-up.sh. Idempotent.
#   pg-down.sh           stop (keep data + binaries, next pg-up is fast)
#   pg-down.sh --purge   stop and delete the data directory (keep binaries)
#   pg-down.sh --all     stop and delete everything under $REARVIEW_PG_HOME
set -euo pipefail
log() { echo "pg-down: $*" >&2; }

PG_MAJOR="${REARVIEW_PG_MAJOR:-16}"
if [ "$(id -u)" = 0 ]; then
  HOME_DIR="${REARVIEW_PG_HOME:-/var/tmp/rearview-pg}"
else
  HOME_DIR="${REARVIEW_PG_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/rearview/pg}"
fi
[ -d "$HOME_DIR" ] || { log "nothing to do ($HOME_DIR absent)"; exit 0; }
HOME_DIR="$(realpath "$HOME_DIR")"
DATA="$HOME_DIR/data$PG_MAJOR"

alive() {     # running and not a zombie
  local st
  kill -0 "$1" 2>/dev/null || return 1
  st="$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)"
  [ -n "$st" ] && [ "$st" != Z ]
}

stop_one() {   # $1 = data dir
  local d="$1" pid
  [ -f "$d/postmaster.pid" ] || return 0
  pid="$(head -n1 "$d/postmaster.pid" 2>/dev/null || true)"
  case "$pid" in ''|*[!0-9]*) return 0 ;; esac
  # Only signal the pid if it really is a postgres postmaster for this data dir.
  if alive "$pid" && tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "-D $d"; then
    log "stopping postgres pid $pid ($d)"
    kill -INT "$pid"                      # SIGINT = "fast" shutdown
    for _ in $(seq 1 150); do             # up to 30 s
      alive "$pid" || break
      sleep 0.2
    done
    if alive "$pid"; then
      log "still running, sending SIGQUIT (immediate shutdown)"
      kill -QUIT "$pid" 2>/dev/null || true
      sleep 2
    fi
    alive "$pid" && { log "ERROR: pid $pid did not exit"; return 1; }
  else
    log "stale postmaster.pid in $d (pid $pid not running)"
  fi
  return 0
}

for d in "$HOME_DIR"/data*; do
  [ -d "$d" ] && stop_one "$d"
done
log "stopped"

case "${1:-}" in
  --purge) rm -rf "$DATA"; log "removed $DATA" ;;
  --all)   rm -rf "$HOME_DIR"; log "removed $HOME_DIR" ;;
  '') ;;
  *) echo "usage: $0 [--purge|--all]" >&2; exit 2 ;;
esac
