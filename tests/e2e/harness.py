"""What every end-to-end script shares (stdlib only): a check that records its outcome and
prints one line, a free loopback port, and the summary line and exit code at the end."""

import socket
import sys

RESULTS = []


def check(name, condition, detail=""):
    """Records `condition` and prints `ok` or `FAIL` with `name` (and, on failure, `detail`:
    its first and last 1,500 characters when longer, where a traceback or a tool's report
    says what went wrong)."""
    RESULTS.append(bool(condition))
    if condition:
        print(f"ok   {name}")
        return
    text = str(detail)
    if len(text) > 3000:
        text = f"{text[:1500]} … {text[-1500:]}"
    print(f"FAIL {name}{': ' + text if text else ''}")


def free_port():
    """A loopback port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def finish(what):
    """Prints `what: N passed, M failed` and exits 1 when anything failed."""
    passed, failed = RESULTS.count(True), RESULTS.count(False)
    print(f"{what}: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
