"""End-to-end check of rearview's web console (/ui) in a real browser (Debian's chromium through
Selenium and chromedriver).

Starts `rearview serve` on a fresh database with an admin key made by `rearview keys create`, seeds
Chinese and English memories of several tiers through the REST API, then drives the console:
the key form appears and the key unlocks it; the list shows the seeded memories (untrusted content
as text, never HTML), the namespace picker and counts; the tier filter narrows the list; a Chinese
search puts the right memory first with the query term in <mark> and the score's bars; a memory is
edited in its view (the API then returns the new text; the old text shows as history); another is
deleted after the confirm (the API then answers 404); the lifecycle view runs cleanup, suggestions
and ending a session; the charts view draws both charts; no view shows the error banner and the
browser logs no errors. Prints one line per check and a closing "N passed, M failed" line; exits 1
on failure.

Usage: python tests/e2e/console_e2e.py path/to/rearview
Needs: pip install selenium==4.51.0; /usr/bin/chromium and /usr/bin/chromedriver (apt-get install
chromium chromium-driver). REARVIEW_SCREENSHOTS=DIR saves screenshots of the main views there.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.request

os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must never reach the network

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import TimeoutException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from harness import RESULTS, check, finish, free_port


WAIT = 30  # seconds any one browser step may take

PORT_ZH = "服务端口从 8080 改成 8765"
SEEDS = [
    ("port", PORT_ZH, "semantic", {"tags": ["ops"]}, None),
    ("hike", "我喜欢在周末去香山爬山", "episodic", {"tags": ["hobby"]}, None),
    ("deploy", "The deploy pipeline runs every night at 02:00 UTC", "semantic", {}, None),
    ("rotate", "Remember to rotate the staging database password", "working", {}, "s1"),
    ("tea", "Alice prefers tea over coffee in the morning", "episodic", {"tags": ["people", "food"]}, None),
    ("note", "临时笔记：明天下午三点开会", "working", {}, None),
    ("xss", '<img src=x onerror="window.__xss=1"><b>bold</b> markup stays text', "episodic", {}, None),
]
BACKDATED = {"hike": 3, "deploy": 12}  # days ago the event happened (the charts span several days)
EDITED = "Alice prefers green tea over coffee in the morning"


class Api:
    """The REST API under a key."""

    def __init__(self, base, key):
        self.base, self.key = base, key

    def call(self, method, path, body=None, namespace="default", key=True):
        headers = {"X-Rearview-Namespace": namespace, "Content-Type": "application/json"}
        if key:
            headers["Authorization"] = f"Bearer {self.key}"
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=60) as r:
                text = r.read().decode()
                return r.status, json.loads(text) if text else None
        except urllib.error.HTTPError as e:
            text = e.read().decode()
            return e.code, json.loads(text) if text else None


def wait_for(fn, timeout=WAIT):
    """Polls fn until it returns something truthy; that value, or None on timeout."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            value = fn()
            if value:
                return value
        except Exception:  # noqa: BLE001 - the page is changing under us; try again
            pass
        time.sleep(0.1)
    return None


def start_browser(profile):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--window-size=1280,900",
                "--lang=en-US"]:
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)


def main(binary):
    tmp = tempfile.mkdtemp(prefix="rearview-console-")
    server = driver = None
    env = dict(os.environ, REARVIEW_LOG="warn")
    models = os.path.expanduser("~/.cache/rearview/models")
    if "REARVIEW_MODELS_DIR" not in env and os.path.isdir(models):
        env["REARVIEW_MODELS_DIR"] = models
    shots = os.environ.get("REARVIEW_SCREENSHOTS")
    if shots:
        os.makedirs(shots, exist_ok=True)
    try:
        db = f"{tmp}/m.db"
        created = subprocess.run(
            # An admin key: the server shares its recall latency (the charts) with admin keys only.
            [binary, "--db", db, "--json", "keys", "create", "--admin", "--label", "console-e2e"],
            capture_output=True, text=True, timeout=120, env=env)
        key = json.loads(created.stdout)["key"] if created.returncode == 0 else None
        check("`rearview keys create` makes a key", key, created.stderr[-500:])
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        server = subprocess.Popen([binary, "--db", db, "serve", "--listen", f"127.0.0.1:{port}"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        health = wait_for(lambda: json.loads(urllib.request.urlopen(base + "/healthz", timeout=1).read()), 120)
        check("server: /healthz answers", health == {"status": "ok"}, health)
        # The embedding model loads in the background; recall is keyword-only until then.
        ready = wait_for(lambda: json.loads(urllib.request.urlopen(base + "/readyz", timeout=2).read())
                         ["embedding"]["status"] == "ready", 90)
        print(f"note: embedding model {'ready' if ready else 'not ready: recall is keyword-only'}")
        api = Api(base, key)
        status, _ = api.call("GET", "/v1/stats", key=False)
        check("server: /v1/stats without the key is 401", status == 401, status)

        ids = {}
        for name, content, tier, metadata, session in SEEDS:
            body = {"content": content, "memory_type": tier, "metadata": metadata}
            if session:
                body["session_id"] = session
            if name in BACKDATED:
                when = time.time() - BACKDATED[name] * 86400
                body["occurred_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(when))
            status, stored = api.call("POST", "/v1/memories", body)
            ids[name] = stored["memory"]["id"] if status == 201 else None
        check("seed: 7 memories stored through REST", all(ids.values()), ids)
        status, _ = api.call("POST", "/v1/memories", {"content": "Team B runs PostgreSQL 16"}, namespace="team-b")
        check("seed: a memory in namespace team-b", status == 201, status)
        status, ui = 0, None
        try:
            with urllib.request.urlopen(base + "/ui", timeout=5) as r:
                status, ui = r.status, r.headers.get("Content-Security-Policy", "")
        except urllib.error.HTTPError as e:
            status = e.code
        check("server: GET /ui serves the console with a CSP", status == 200 and "script-src 'self'" in ui, (status, ui))
        if status != 200:
            return  # no console to drive

        driver = start_browser(f"{tmp}/chromium-profile")
        wait = WebDriverWait(driver, WAIT)

        def shot(name):
            if shots:
                driver.save_screenshot(os.path.join(shots, f"{name}.png"))

        def by_id(element_id):
            return driver.find_element(By.ID, element_id)

        def banner():
            element = by_id("error-banner")
            return element.text if element.is_displayed() else ""

        def rows():
            return driver.find_elements(By.CSS_SELECTOR, "[data-testid=memory-row]")

        def go(view):
            driver.find_element(By.CSS_SELECTOR, f"[data-testid=nav-{view}]").click()
            wait.until(lambda d: by_id(f"view-{view}").is_displayed())

        # --- the key form, then the list.
        driver.get(base + "/ui")
        asked = wait_for(lambda: by_id("key-input").is_displayed())
        check("console: a key-protected server shows the API key form", asked, driver.page_source[:500])
        by_id("key-input").send_keys(key)
        by_id("key-submit").click()
        listed = wait_for(lambda: len(rows()) >= len(SEEDS) and rows())
        texts = [r.text for r in listed or []]
        check("browse: the list shows every seeded memory",
              all(any(content[:20] in t for t in texts) for _, content, *_ in SEEDS), texts)
        check("browse: rows carry tier badges",
              {b.text for b in driver.find_elements(By.CSS_SELECTOR, "[data-testid=memory-row] .badge")}
              >= {"working", "episodic", "semantic"}, texts)
        check("browse: the key form is gone once the key is accepted", not by_id("key-view").is_displayed())
        xss = [r for r in listed or [] if r.get_attribute("data-id") == ids["xss"]]
        check("browse: markup in a memory is shown as text, never run",
              xss and "<img" in xss[0].text and not xss[0].find_elements(By.TAG_NAME, "img")
              and driver.execute_script("return window.__xss === undefined"), xss and xss[0].text)
        options = [o.get_attribute("value") for o in by_id("ns-select").find_elements(By.TAG_NAME, "option")]
        check("browse: the namespace picker lists default and team-b", {"default", "team-b"} <= set(options), options)
        counts = by_id("tier-counts").text
        check("browse: per-tier counts are shown", "semantic" in counts and "live" in counts, counts)
        check("browse: no error banner", not banner(), banner())
        shot("browse")

        Select(by_id("f-tier")).select_by_value("semantic")
        driver.find_element(By.CSS_SELECTOR, "[data-testid=f-apply]").click()
        semantic = wait_for(lambda: len(rows()) == 2 and rows())
        check("browse: the tier filter narrows the list to semantic memories",
              semantic and {r.get_attribute("data-id") for r in semantic} == {ids["port"], ids["deploy"]},
              [r.text for r in rows()])
        by_id("f-reset").click()
        wait_for(lambda: len(rows()) >= len(SEEDS))

        # --- search in Chinese.
        go("search")
        by_id("q").send_keys("端口")
        driver.find_element(By.CSS_SELECTOR, "[data-testid=search-submit]").click()
        hits = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "[data-testid=hit]"))
        first = hits[0] if hits else None
        content = first.find_element(By.CSS_SELECTOR, "[data-testid=hit-content]").text if first else None
        check("search: 端口 puts the port memory first", content == PORT_ZH, [h.text for h in hits or []])
        marks = [m.text for m in first.find_elements(By.TAG_NAME, "mark")] if first else []
        check("search: the query term is highlighted with <mark>", "端口" in marks, marks)
        kinds = [b.get_attribute("data-kind") for b in first.find_elements(By.CSS_SELECTOR, "[data-testid=bar]")] if first else []
        check("search: the hit shows bars for similarity, keywords, recency and heat",
              {"similarity", "keywords", "recency", "heat"} <= set(kinds), kinds)
        titles = [b.get_attribute("title") for b in first.find_elements(By.CSS_SELECTOR, "[data-testid=bar]")] if first else []
        check("search: each bar has its description as a tooltip", titles and all(titles), titles)
        meta = by_id("search-meta").text
        check("search: took_ms is shown", "ms" in meta and "took" in meta, meta)
        check("search: no error banner", not banner(), banner())
        shot("search")

        # --- open a memory from the list, edit it.
        go("memories")
        wait_for(lambda: len(rows()) >= len(SEEDS))
        driver.find_element(By.CSS_SELECTOR, f"[data-testid=memory-row][data-id='{ids['tea']}']").click()
        wait.until(lambda d: by_id("edit-content").get_attribute("value") == SEEDS[4][1])
        fields = by_id("memory-fields").text
        check("memory: the view shows every field", all(f in fields for f in (
            "id", "namespace", "occurred_at", "access_count", "content_hash", "metadata", ids["tea"])), fields)
        check("memory: tags fill the tags input", by_id("edit-tags").get_attribute("value") == "people, food",
              by_id("edit-tags").get_attribute("value"))
        by_id("edit-content").clear()
        by_id("edit-content").send_keys(EDITED)
        by_id("save-btn").click()
        saved = wait_for(lambda: by_id("memory-status").text == "Saved.")
        status, got = api.call("GET", f"/v1/memories/{ids['tea']}")
        check("memory: saving an edit changes the content in the API",
              saved and status == 200 and got["memory"]["content"] == EDITED, (by_id("memory-status").text, banner(), got))
        check("memory: the edit kept the memory's tags", status == 200 and got["memory"]["metadata"].get("tags") == ["people", "food"], got)
        history = wait_for(lambda: [e.text for e in driver.find_elements(By.CSS_SELECTOR, "[data-testid=history-item]")])
        check("memory: the earlier text shows in the history", history and any(SEEDS[4][1] in h for h in history),
              by_id("memory-history").text)
        check("memory: no error banner", not banner(), banner())
        shot("memory")

        # --- delete another memory through the console.
        driver.get(f"{base}/ui#/memory/{ids['note']}")
        wait.until(lambda d: by_id("edit-content").get_attribute("value") == SEEDS[5][1])
        by_id("delete-btn").click()
        alert = wait.until(EC.alert_is_present())
        asked = "Delete" in alert.text
        alert.accept()
        back = wait_for(lambda: driver.execute_script("return location.hash") == "#/memories")
        check("memory: delete asks for confirmation and returns to the list", asked and back,
              driver.execute_script("return location.hash"))
        status, _ = api.call("GET", f"/v1/memories/{ids['note']}")
        check("memory: the deleted memory answers 404", status == 404, status)
        gone = wait_for(lambda: len(rows()) >= len(SEEDS) - 1 and all(r.get_attribute("data-id") != ids["note"] for r in rows()))
        check("browse: the deleted memory left the list", gone, [r.text for r in rows()])

        # --- lifecycle.
        go("lifecycle")
        by_id("cleanup-btn").click()
        cleaned = wait_for(lambda: "Deleted" in by_id("cleanup-result").text and by_id("cleanup-result").text)
        check("lifecycle: cleanup reports how many it deleted", cleaned, by_id("cleanup-result").text or banner())
        # Two more hikes: with the first, a group worth distilling (when the model is ready).
        for text in ["周六又去香山爬山了，风景很好", "周日和朋友一起去香山爬山"]:
            api.call("POST", "/v1/memories", {"content": text, "memory_type": "episodic", "dedup": False})
        by_id("suggest-btn").click()
        suggested = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "[data-testid=suggestion], [data-testid=no-suggestions]"))
        check("lifecycle: suggestions answer (groups or none)", suggested, by_id("suggestions").text or banner())
        distil = driver.find_elements(By.CSS_SELECTOR, "[data-testid=distil-btn]")
        if ready:
            check("lifecycle: the similar hikes are suggested as a group", distil, by_id("suggestions").text)
        if distil:
            semantic = lambda: len(api.call("GET", "/v1/memories?memory_type=semantic&limit=100")[1]["memories"])
            before = semantic()
            distil[0].click()
            alert = wait.until(EC.alert_is_present())
            shown = alert.text
            written_meanwhile = semantic() != before
            alert.accept()
            check("lifecycle: distilling first shows the text it would store, writing nothing yet",
                  "Store this as one semantic memory" in shown and len(shown) > 60 and not written_meanwhile, shown)
            done = wait_for(lambda: "Distilled into" in by_id("suggestions").text and by_id("suggestions").text)
            check("lifecycle: on a yes the distillation is stored", done and semantic() == before + 1,
                  by_id("suggestions").text or banner())
        by_id("end-session-id").send_keys("s1")
        driver.find_element(By.CSS_SELECTOR, "[data-testid=end-session-btn]").click()
        ended = wait_for(lambda: "working memor" in by_id("end-session-result").text and by_id("end-session-result").text)
        check("lifecycle: ending session s1 reports its working memories", ended and "1 working memory" in ended,
              by_id("end-session-result").text or banner())
        check("lifecycle: no error banner", not banner(), banner())
        shot("lifecycle")

        # --- charts.
        go("charts")
        bars = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "#chart-tiers svg [data-testid=tier-bar]"))
        check("charts: memories per day are drawn", bars, by_id("chart-tiers").text or banner())
        points = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "#chart-latency svg [data-testid=latency-point]"))
        check("charts: recall latency is drawn", points, by_id("chart-latency").text or banner())
        check("charts: no error banner", not banner(), banner())
        shot("charts")

        # --- a key limited to one namespace is offered exactly that namespace, and sees only it.
        made = subprocess.run(
            [binary, "--db", db, "--json", "keys", "create", "--namespace", "team-b", "--label", "team-b"],
            capture_output=True, text=True, timeout=120, env=env)
        team_key = json.loads(made.stdout)["key"] if made.returncode == 0 else None
        check("`rearview keys create --namespace team-b` makes a key", team_key, made.stderr[-300:])
        driver.execute_script("sessionStorage.clear()")
        driver.get(base + "/ui")
        wait_for(lambda: by_id("key-input").is_displayed())
        by_id("key-input").send_keys(team_key or "")
        by_id("key-submit").click()
        team_rows = wait_for(lambda: [r.text for r in rows()] or None)
        options = [o.get_attribute("value") for o in by_id("ns-select").find_elements(By.TAG_NAME, "option")]
        check("namespaces: a key limited to team-b is offered team-b only", options == ["team-b"], options)
        check("namespaces: it lists team-b's memory and no other namespace's",
              team_rows and all("Team B runs PostgreSQL 16" in t for t in team_rows), team_rows)
        check("namespaces: no error banner", not banner(), banner())

        try:
            logs = driver.get_log("browser")
        except Exception:  # noqa: BLE001 - not every driver keeps a log
            logs = None
        if logs is not None:
            # The first requests are refused until the key is entered: those 401s are expected.
            severe = [e for e in logs if e.get("level") == "SEVERE" and "status of 401" not in e.get("message", "")]
            check("browser: no errors in the console log", not severe, severe)
    finally:
        if driver is not None:
            try:
                driver.quit()
            except Exception:  # noqa: BLE001
                traceback.print_exc()
        if server is not None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    try:
        main(sys.argv[1])
    except TimeoutException:
        traceback.print_exc()
        RESULTS.append(False)
    except Exception:  # noqa: BLE001 - any crash is a failed check
        traceback.print_exc()
        RESULTS.append(False)
    finish("console e2e")
