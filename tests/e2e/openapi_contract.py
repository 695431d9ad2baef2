"""The REST API against its own OpenAPI document, with schemathesis (property-based, from PyPI).

Starts `rearview serve` on a fresh database with the default model (no rate limit, no settings
from the environment or a config file), stores a few memories, and runs schemathesis over every
documented operation twice: without a key (a server that has none trusts the local caller) and
with an admin key made by `rearview keys create` beside the running server (then every request
needs it). Before each run, `GET /v1/stats` must answer 200 as that caller, so a run cannot pass
on refusals alone. The checks are the ones a client relies on: no 5xx, every status code
documented, the documented content type, headers (`Retry-After`, `WWW-Authenticate`) and
response schema. Inputs the server refuses that the schemas allow (a namespace of spaces, an
unknown tool name) are not failures here: the server may be stricter than its document, never
looser.

Prints one line per run and a closing "N passed, M failed" line; exits 1 on failure.

Usage: path/to/venv/bin/python tests/e2e/openapi_contract.py path/to/rearview
(the interpreter of a venv with schemathesis; `st` is looked up beside it).
"""

import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from harness import RESULTS, check, free_port


CHECKS = ",".join([
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "response_schema_conformance",
])
# Per operation and run; with a fixed seed the cases are the same on every run.
EXAMPLES = "25"
SEED = "20261205"

def wait_for_health(base, server):
    for _ in range(600):
        try:
            return json.loads(urllib.request.urlopen(base + "/healthz", timeout=1).read())
        except OSError:
            if server.poll() is not None:
                raise RuntimeError(f"server exited: {server.stderr.read().decode()[-800:]}")
            time.sleep(0.2)
    raise RuntimeError("server did not answer /healthz")


def stats_status(base, headers):
    request = urllib.request.Request(base + "/v1/stats", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status
    except urllib.error.HTTPError as e:
        return e.code


def store(base, content, headers=None):
    request = urllib.request.Request(
        base + "/v1/memories", data=json.dumps({"content": content}).encode(), method="POST",
        headers={"Content-Type": "application/json", **(headers or {})})
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.status


def schemathesis(base, workdir, headers=()):
    """Runs schemathesis against the document in `workdir` (created; where it keeps its cache);
    its exit code and report."""
    os.makedirs(workdir)
    st = os.path.join(os.path.dirname(sys.executable), "st")
    command = [st, "run", base + "/openapi.json", "--checks", CHECKS, "--max-examples", EXAMPLES,
               "--seed", SEED, "--workers", "1", "--no-color"]
    for header in headers:
        command += ["--header", header]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, cwd=workdir)
    return done.returncode, done.stdout + done.stderr


def main(binary):
    with tempfile.TemporaryDirectory() as tmp:
        # Only what this test sets: no key, rate limit or listen address from the caller's
        # environment or config file. The models directory is kept (the default model).
        env = {k: v for k, v in os.environ.items() if not k.startswith("REARVIEW_")}
        env.update(REARVIEW_LOG="warn", XDG_CONFIG_HOME=tmp)
        if "REARVIEW_MODELS_DIR" in os.environ:
            env["REARVIEW_MODELS_DIR"] = os.environ["REARVIEW_MODELS_DIR"]
        db = f"{tmp}/contract.db"
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        log = open(f"{tmp}/server.log", "w")
        server = subprocess.Popen(
            [binary, "--db", db, "serve", "--listen", f"127.0.0.1:{port}", "--rate-limit", "0"],
            stdout=subprocess.DEVNULL, stderr=log, env=env)
        try:
            wait_for_health(base, server)
            for content in ["服务端口从 8080 改成 8765", "Alice prefers tea over coffee",
                            "The deploy pipeline runs nightly at 02:00 UTC"]:
                store(base, content)

            check("without a key, /v1/stats answers", stats_status(base, {}) == 200)
            code, report = schemathesis(base, f"{tmp}/anonymous")
            check("every operation without a key (the server has none yet)", code == 0, report)

            created = subprocess.run(
                [binary, "--db", db, "--json", "keys", "create", "--admin", "--label", "contract"],
                capture_output=True, text=True, timeout=120, env=env)
            key = json.loads(created.stdout)["key"] if created.returncode == 0 else None
            check("`rearview keys create` beside the running server", key, created.stderr[-500:])
            if key:
                auth = {"Authorization": f"Bearer {key}"}
                check("with the key, /v1/stats answers (and not without)",
                      (stats_status(base, auth), stats_status(base, {})) == (200, 401))
                code, report = schemathesis(base, f"{tmp}/keyed", [f"Authorization: Bearer {key}"])
                check("every operation with a key", code == 0, report)
            check("the server is still up", server.poll() is None)
        finally:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
            log.close()
            if False in RESULTS:
                with open(f"{tmp}/server.log") as f:
                    print("server log (end):\n" + f.read()[-3000:])
    failed = RESULTS.count(False)
    print(f"{len(RESULTS) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
