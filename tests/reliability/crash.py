"""Crash test: kill -9 the server at random moments under concurrent writers; no acknowledged write
may be lost and `rearview doctor` must find the database clean after every crash.

Each cycle
1. starts `rearview --db FILE serve --listen 127.0.0.1:PORT` (the same FILE every cycle, so each
   crash lands on a database that already survived the previous ones) and waits for /readyz;
2. runs 4 writer threads, each on its own keep-alive connection, storing unique memories through
   `POST /v1/memories` (Chinese, English and mixed text, `"dedup": false` so that every write is
   a memory of its own, with metadata naming writer, cycle and sequence number). A write is
   *acknowledged* once its 2xx answer has been read in full; its id and content are recorded;
3. sends SIGKILL after a random delay of 0.2–2 s (the writers are mid-stream: some requests are
   in flight, some transactions mid-commit);
4. checks with the CLI, the server being dead: `rearview export` must contain every write
   acknowledged in this and all earlier cycles, with its exact content and metadata, and each
   writer's last acknowledged id must be readable with `rearview get ID --json`; then
   `rearview doctor` must exit 0 (schema, `PRAGMA quick_check`, configuration).

Configuration: keyword-only (`REARVIEW_MODEL=none`: no embedding model, so no model load per
cycle and the writes measure the durable write path: row + keyword index in one SQLite
transaction, WAL, synchronous=FULL); default everything else (sweep, dedup threshold, limits);
no config file (XDG_CONFIG_HOME points nowhere); REARVIEW_LOG=warn. The server's stderr is kept in
DIR/server.log (--keep DIR) for a failed run.

Prints one line per cycle and a total; exits 1 on any lost or altered write, doctor failure,
non-2xx answer from a live server, or a server that fails to start.

Usage: python tests/reliability/crash.py path/to/rearview [--cycles 20] [--seed N] [--keep DIR]
"""

import argparse
import http.client
import json
import random
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Client, cli, export, finish, free_port, server_env, start_server, wait_ready  # noqa: E402

WRITERS = 4

ZH = ["数据库迁移到 PostgreSQL", "周末去香山爬山", "用户偏好深色主题", "下周三去上海出差",
      "接口返回格式需要修正", "部署窗口在周二晚上", "团队使用 Rust 开发", "会议改到下午三点"]
EN = ["the staging server listens on port 5433", "prefers answers in bullet points",
      "deploys happen on Tuesdays", "the manager's name is Priya", "use ORM rather than raw SQL",
      "the API follows RESTful conventions", "backups run nightly at 02:00", "on-call rotates weekly"]


def content_for(rng: random.Random, cycle: int, writer: int, seq: int) -> str:
    """Unique text: the (cycle, writer, seq) triple makes it so, the rest varies its shape."""
    tag = f"c{cycle}-w{writer}-n{seq}"
    kind = seq % 3
    if kind == 0:
        return f"记录 {tag}：{rng.choice(ZH)}，{rng.choice(ZH)}。"
    if kind == 1:
        return f"Note {tag}: {rng.choice(EN)}; {rng.choice(EN)}."
    return f"{rng.choice(ZH)} / {rng.choice(EN)} ({tag})" + " 详细说明" * rng.randrange(0, 40)


class Cycle:
    def __init__(self):
        self.lock = threading.Lock()
        self.acked: dict[str, tuple[str, dict]] = {}  # id → (content, metadata)
        self.last_acked: dict[int, str] = {}  # writer → last acknowledged id
        self.http_errors: list[str] = []
        self.transport_failures = 0
        self.sent = 0


def writer(port: int, cycle: int, w: int, seed: int, state: Cycle, stop: threading.Event) -> None:
    rng = random.Random(seed)
    client = Client(port, timeout=30)
    seq = 0
    while not stop.is_set():
        seq += 1
        content = content_for(rng, cycle, w, seq)
        metadata = {"writer": w, "cycle": cycle, "seq": seq, "tags": ["crash-test"]}
        with state.lock:
            state.sent += 1
        try:
            status, body = client.post(
                "/v1/memories", {"content": content, "metadata": metadata, "dedup": False}
            )
        except (OSError, http.client.HTTPException):
            # The server is gone (or going): this write was never acknowledged. Keep trying
            # until told to stop, as a client would, so the kill lands mid-request.
            with state.lock:
                state.transport_failures += 1
            time.sleep(0.01)
            continue
        if 200 <= status < 300:
            memory_id = body["memory"]["id"]
            with state.lock:
                state.acked[memory_id] = (content, metadata)
                state.last_acked[w] = memory_id
        else:
            with state.lock:
                state.http_errors.append(f"{status} {json.dumps(body, ensure_ascii=False)[:300]}")
    client.close()


def run_cycle(binary: str, db: str, env: dict, cycle: int, rng: random.Random, log) -> tuple[Cycle, float, float]:
    port = free_port()
    env = dict(env, REARVIEW_LISTEN=f"127.0.0.1:{port}")
    started = time.monotonic()
    proc = start_server(binary, db, port, env, log)
    try:
        wait_ready(port, proc)
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    startup = time.monotonic() - started
    state = Cycle()
    stop = threading.Event()
    threads = [
        threading.Thread(target=writer, args=(port, cycle, w, rng.randrange(1 << 30), state, stop))
        for w in range(WRITERS)
    ]
    for t in threads:
        t.start()
    delay = rng.uniform(0.2, 2.0)
    time.sleep(delay)
    proc.kill()  # SIGKILL
    proc.wait()
    stop.set()
    for t in threads:
        t.join()
    return state, delay, startup


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary")
    parser.add_argument("--cycles", type=int, default=20)
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: time)")
    parser.add_argument("--keep", metavar="DIR", help="keep the database and server log in DIR")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else time.time_ns() % (1 << 32)
    rng = random.Random(seed)
    env = server_env(keyword_only=True)

    workdir = Path(args.keep or tempfile.mkdtemp(prefix="rearview-crash-"))
    workdir.mkdir(parents=True, exist_ok=True)
    db = str(workdir / "crash.db")
    print(f"crash test: {args.cycles} cycles, {WRITERS} writers, SIGKILL after 0.2-2 s, "
          f"keyword-only, seed {seed}, db {db}", flush=True)

    all_acked: dict[str, tuple[str, dict]] = {}
    total_lost = total_altered = doctor_failures = http_errors = 0
    failed = False
    cycles_done = 0
    t0 = time.monotonic()
    with open(workdir / "server.log", "ab") as log:
        for cycle in range(1, args.cycles + 1):
            log.write(f"--- cycle {cycle}\n".encode())
            log.flush()
            try:
                state, delay, startup = run_cycle(args.binary, db, env, cycle, rng, log)
            except RuntimeError as e:
                print(f"cycle {cycle:3}: FAIL {e} (server log: {workdir / 'server.log'})")
                failed = True
                break
            cycles_done += 1
            all_acked.update(state.acked)

            # Every write acknowledged so far, this cycle's and the earlier ones', must be there
            # exactly as written.
            stored = export(args.binary, db, env)
            lost = [i for i in all_acked if i not in stored]
            altered = [
                i for i, (content, metadata) in all_acked.items()
                if i in stored and (stored[i]["content"] != content
                                    or {k: stored[i]["metadata"].get(k) for k in metadata} != metadata)
            ]
            gets_ok = True
            for w, memory_id in sorted(state.last_acked.items()):
                got = cli(args.binary, db, env, "get", memory_id, "--json")
                if got.returncode != 0 or json.loads(got.stdout)["content"] != all_acked[memory_id][0]:
                    gets_ok = False
                    print(f"  get {memory_id} (writer {w}'s last ack): rc {got.returncode} "
                          f"{(got.stdout + got.stderr).strip()[:300]}")
            doctor = cli(args.binary, db, env, "doctor")
            doctor_ok = doctor.returncode == 0

            total_lost += len(lost)
            total_altered += len(altered)
            doctor_failures += not doctor_ok
            http_errors += len(state.http_errors)
            unacked_landed = len(stored) - len(all_acked)  # in flight at the kill, yet committed
            ok = not lost and not altered and doctor_ok and gets_ok and not state.http_errors
            print(
                f"cycle {cycle:3}: {'ok  ' if ok else 'FAIL'} killed after {delay:.2f} s "
                f"(ready in {startup:.2f} s): acked {len(state.acked):5}, sent {state.sent:5}, "
                f"lost {len(lost)}, altered {len(altered)}, http errors {len(state.http_errors)}, "
                f"doctor {'ok' if doctor_ok else 'FAILED'}; db holds {len(stored)} "
                f"({unacked_landed:+} unacknowledged)",
                flush=True,
            )
            for memory_id in lost[:5]:
                print(f"  lost {memory_id}: {all_acked[memory_id][0][:80]}")
            for memory_id in altered[:5]:
                print(f"  altered {memory_id}: wrote {all_acked[memory_id][0][:60]!r}, "
                      f"read {stored[memory_id]['content'][:60]!r}")
            for error in state.http_errors[:5]:
                print(f"  http error: {error}")
            if not doctor_ok:
                print("  doctor:\n    " + (doctor.stdout + doctor.stderr).strip().replace("\n", "\n    "))
            failed |= not ok

    print(
        f"crash total: {cycles_done} cycles in "
        f"{time.monotonic() - t0:.0f} s, acknowledged writes {len(all_acked)}, lost {total_lost}, "
        f"altered {total_altered}, http errors {http_errors}, doctor failures {doctor_failures}: "
        f"{'FAIL' if failed else 'ok'}"
    )
    return finish(workdir, bool(failed), args.keep)


if __name__ == "__main__":
    sys.exit(main())
