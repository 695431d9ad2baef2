"""End-to-end check of rearview's web console (/ui) in a real browser (Debian's chromium through
Selenium and chromedriver).

Starts `rearview serve` on a fresh database with an admin key made by `rearview keys create`, seeds
Chinese and English memories through the REST API, then drives the console:

- start-up: the key form unlocks it; it opens on a namespace that has data (not an empty
  `default`) and remembers the last one chosen;
- Browse: the seeded memories as text (never HTML), tier badges, counts, the total, the tier and
  text filters, clickable tags, the sessions list, paging; filters and page survive a reload;
- Search: a Chinese query puts the right memory first with <mark> and per-signal bars with help
  texts; the query survives a reload; the console's searches leave `access_count` unchanged while
  an API recall counts (checked through the API); switching the namespace clears the results;
- a memory: its fields and tags (links), edit (the old text shows as history), a refused save says
  so, a reload shows the same memory, a memory that does not exist shows only a not-found message,
  delete after a dialog;
- bulk archive with preview and undo, bulk delete with a confirmation listing the memories;
- Review: confirm and dismiss possible updates (checked through the API); a replaced memory says
  "Replaced by … on … — linked by …: …" and Unlink makes it current again; a recall answered in
  place of the older memory labels that row of bars, in the words "replaced"/"history" only; a
  namespace opened by a link shows its fresh count;
- Lifecycle (cleanup and ending a session, each after a preview), Charts (up to 366 days),
  Overview (namespaces, health, size), API keys (create, secret shown once, revoke; a key limited
  to a namespace is told 403);
- Lifecycle's suggestions say why not when the server is keyword-only (no refused request);
- no view shows the error banner, the browser logs no unexpected errors, no page shot scrolls
  sideways at desktop or phone width (Browse is also measured on its own); and with the server
  stopped, a save, a search, Browse and the header say so.

Prints one line per check and a closing "N passed, M failed" line; exits 1 on failure.

Usage: python console_e2e.py path/to/rearview [--console-dir DIR] [--model NAME] [--screenshots DIR]
  --console-dir DIR  serve the console's files from DIR (development copies) instead of the built-in ones
  --model NAME       passed to the server (e.g. `none`: keyword-only, starts at once)
  --screenshots DIR  save a screenshot of every page at desktop (1280x800) and phone (390x844) width
                     (also REARVIEW_SCREENSHOTS=DIR)
Needs: pip install selenium==4.51.0; /usr/bin/chromium and /usr/bin/chromedriver (apt-get install
chromium chromium-driver fonts-noto-cjk).
"""

import argparse
import json
import re
import os
import shutil
import signal
import subprocess
import tempfile
import time
import traceback
import urllib.error
import urllib.request
import uuid

os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must never reach the network

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import TimeoutException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from harness import RESULTS, check, finish, free_port


WAIT = 30  # seconds any one browser step may take

PORT_ZH = "服务端口从 8080 改成 8765"
TEAM_B = "Team B runs PostgreSQL 16"
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
FILLERS = 25  # memories in namespace `paging`: two pages
# Pairs whose newer text may change the older one (for Review). Keyword-only mode lists a pair
# as a possible update when the texts give another value for the same thing.
PAIRS = [
    ("The staging server runs Ubuntu 22.04.", "The staging server runs Ubuntu 24.04."),
    ("Alice keeps Python 3.11 on her laptop.", "Alice keeps Python 3.12 on her laptop."),
]
BERLIN, LISBON = "I live in Berlin.", "I moved to Lisbon last month."
PHONE, DESKTOP = (390, 844), (1280, 800)


class Api:
    """The REST API under a key."""

    def __init__(self, base, key):
        self.base, self.key = base, key

    def call(self, method, path, body=None, namespace="default", key=True):
        headers = {"X-Rearview-Namespace": namespace, "Content-Type": "application/json"}
        if key:
            headers["Authorization"] = f"Bearer {key if isinstance(key, str) else self.key}"
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=60) as r:
                text = r.read().decode()
                return r.status, json.loads(text) if text else None
        except urllib.error.HTTPError as e:
            text = e.read().decode()
            return e.code, json.loads(text) if text else None

    def store(self, content, namespace="default", **fields):
        status, stored = self.call("POST", "/v1/memories", {"content": content, **fields}, namespace)
        return stored["memory"]["id"] if status in (200, 201) else None

    def memory(self, id, namespace="default"):
        status, got = self.call("GET", f"/v1/memories/{id}", namespace=namespace)
        return got["memory"] if status == 200 else None


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


def settled_count(api, id, above):
    """The memory's access_count once it is above `above` and has not changed for a second.
    Recalls hand their counts to a background writer that commits within ~25 ms, so a count
    read at once may still miss some; one that stays put has them all."""
    end = time.monotonic() + 15
    last, since = None, time.monotonic()
    while time.monotonic() < end:
        count = api.memory(id)["access_count"]
        if count != last:
            last, since = count, time.monotonic()
        elif count > above and time.monotonic() - since >= 1:
            return count
        time.sleep(0.1)
    return last


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

class Page:
    """The console in the browser, and what every step does with it."""

    def __init__(self, driver, shots):
        self.driver, self.shots = driver, shots
        self.wait = WebDriverWait(driver, WAIT)
        self.overflow = {}  # "page (width)" → how far it scrolls sideways

    def size(self, width_height):
        width, height = width_height
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})
        time.sleep(0.4)  # the charts redraw on resize

    def shot(self, name):
        """The page as it is, at desktop and at phone width (saved with --screenshots); at each
        width, also how far it scrolls sideways."""
        for label, dims in (("desktop", DESKTOP), ("phone", PHONE)):
            self.size(dims)
            # Against the emulated width: with mobile emulation the layout viewport (and so
            # clientWidth) widens to fit content that is too wide.
            self.overflow[f"{name} ({label})"] = self.driver.execute_script(
                "return document.documentElement.scrollWidth - arguments[0]", dims[0])
            if self.shots:
                self.driver.save_screenshot(os.path.join(self.shots, f"{name}-{label}.png"))
        self.size(DESKTOP)

    def slow_network(self, latency_ms):
        """Every request of the page takes `latency_ms` longer (0: as usual)."""
        self.driver.execute_cdp_cmd("Network.enable", {})
        self.driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": False, "latency": latency_ms, "downloadThroughput": -1, "uploadThroughput": -1})

    def by_id(self, element_id):
        return self.driver.find_element(By.ID, element_id)

    def css(self, selector):
        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def banner(self):
        element = self.by_id("error-banner")
        return element.text if element.is_displayed() else ""

    def rows(self):
        return self.css("[data-testid=memory-row]")

    def row_ids(self):
        return [r.get_attribute("data-id") for r in self.rows()]

    def go(self, view):
        self.css(f"[data-testid=nav-{view}]")[0].click()
        self.wait.until(lambda d: self.by_id(f"view-{view}").is_displayed())

    def hash_(self):
        return self.driver.execute_script("return decodeURIComponent(location.hash)")

    def open_hash(self, h):
        self.driver.execute_script("location.hash = arguments[0]", h)

    def reload(self):
        self.driver.refresh()
        self.wait.until(lambda d: d.execute_script("return document.readyState") == "complete")

    def dialog(self):
        """The open dialog's text, once it is open."""
        return wait_for(lambda: self.by_id("dialog").is_displayed() and self.by_id("dialog").text)

    def answer(self, ok=True):
        self.by_id("dialog-ok" if ok else "dialog-cancel").click()
        self.wait.until(lambda d: not self.by_id("dialog").is_displayed())

    def status_of(self, element_id):
        element = self.by_id(element_id)
        return element.text, element.get_attribute("data-kind")


class Run:
    """What the steps share: the server and its database, the API, the page, the seeded ids."""

    def __init__(self, binary, model, tmp, env):
        self.binary, self.model, self.env = binary, model, env
        self.db = f"{tmp}/m.db"
        self.server = self.page = self.api = self.base = self.key = self.team_b_id = None
        self.ready = False  # the embedding model (else recall is keyword-only)
        self.ids = {}  # seed name → memory id
        self.berlin = self.lisbon = None  # the Review step's pair, replaced in the next step


def start_server(t, console_dir):
    """A key, the server on a fresh database, a first memory in team-b; True when /ui answers."""
    created = subprocess.run(
        # An admin key: the server shares its recall latency (the charts) with admin keys only.
        [t.binary, "--db", t.db, "--json", "keys", "create", "--admin", "--label", "console-e2e"],
        capture_output=True, text=True, timeout=120, env=t.env)
    t.key = json.loads(created.stdout)["key"] if created.returncode == 0 else None
    check("`rearview keys create` makes a key", t.key, created.stderr[-500:])
    port = free_port()
    t.base = f"http://127.0.0.1:{port}"
    command = [t.binary] + (["--model", t.model] if t.model else []) + ["--db", t.db, "serve", "--listen", f"127.0.0.1:{port}"]
    if console_dir:
        command += ["--console-dir", os.path.abspath(console_dir)]
    t.server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=t.env)
    health = wait_for(lambda: json.loads(urllib.request.urlopen(t.base + "/healthz", timeout=1).read()), 120)
    check("server: /healthz answers", health == {"status": "ok"}, health)
    # The embedding model loads in the background; recall is keyword-only until then.
    t.ready = bool(wait_for(lambda: json.loads(urllib.request.urlopen(t.base + "/readyz", timeout=2).read())
                            ["embedding"]["status"] == "ready", 5 if t.model == "none" else 90))
    print(f"note: embedding model {'ready' if t.ready else 'not ready: recall is keyword-only'}")
    t.api = Api(t.base, t.key)
    status, _ = t.api.call("GET", "/v1/stats", key=False)
    check("server: /v1/stats without the key is 401", status == 401, status)

    # Only team-b holds data at first: the console must open there, not on an empty default.
    status, stored = t.api.call("POST", "/v1/memories", {"content": TEAM_B}, namespace="team-b")
    check("seed: a memory in namespace team-b", status == 201, status)
    t.team_b_id = stored["memory"]["id"] if status == 201 else None
    status, ui = 0, None
    try:
        with urllib.request.urlopen(t.base + "/ui", timeout=5) as r:
            status, ui = r.status, r.headers.get("Content-Security-Policy", "")
    except urllib.error.HTTPError as e:
        status = e.code
    check("server: GET /ui serves the console with a CSP", status == 200 and "script-src 'self'" in ui, (status, ui))
    return status == 200


def step_start(t):
    """The key form; then the namespace that has data."""
    p = t.page
    p.driver.get(t.base + "/ui")
    asked = wait_for(lambda: p.by_id("key-input").is_displayed())
    check("console: a key-protected server shows the API key form", asked, p.driver.page_source[:500])
    p.shot("key-form")
    p.by_id("key-input").send_keys(t.key)
    p.by_id("key-submit").click()
    first = wait_for(lambda: p.rows() and [r.text for r in p.rows()])
    check("start: the key form is gone once the key is accepted", not p.by_id("key-view").is_displayed())
    check("start: with default empty, the console opens on team-b, which has data",
          Select(p.by_id("ns-select")).first_selected_option.get_attribute("value") == "team-b"
          and "ns=team-b" in p.hash_() and first and "PostgreSQL" in first[0], (p.hash_(), first))


def step_seed(t):
    """The rest of the data, through the REST API."""
    api, ids = t.api, t.ids
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
    ids["temp1"] = api.store("Scratch line one to delete in bulk", memory_type="episodic")
    ids["temp2"] = api.store("Scratch line two to delete in bulk", memory_type="episodic")
    fillers = [api.store(f"Filler note number {i:02d} about warehouse logistics", "paging") for i in range(FILLERS)]
    check("seed: scratch and filler memories stored", all(ids.values()) and all(fillers), ids)


def step_browse(t):
    """Choosing default: remembered, and the list shows it."""
    p, api, ids = t.page, t.api, t.ids
    Select(p.by_id("ns-select")).select_by_value("default")
    listed = wait_for(lambda: len(p.rows()) >= len(SEEDS) and p.rows())
    texts = [r.text for r in listed or []]
    check("browse: switching to default lists every seeded memory",
          all(any(content[:20] in text for text in texts) for _, content, *_ in SEEDS), texts)
    check("browse: rows carry tier badges",
          {b.text for b in p.css("[data-testid=memory-row] [data-testid=tier-badge]")}
          >= {"working", "episodic", "semantic"}, texts)
    xss = [r for r in listed or [] if r.get_attribute("data-id") == ids["xss"]]
    check("browse: markup in a memory is shown as text, never run",
          xss and "<img" in xss[0].text and not xss[0].find_elements(By.TAG_NAME, "img")
          and p.driver.execute_script("return window.__xss === undefined"), xss and xss[0].text)
    options = [o.get_attribute("value") for o in p.by_id("ns-select").find_elements(By.TAG_NAME, "option")]
    check("browse: the namespace picker lists default, team-b and paging", {"default", "team-b", "paging"} <= set(options), options)
    counts = p.by_id("tier-counts").text
    check("browse: per-tier counts are shown, history named as such", "semantic" in counts and "live" in counts
          and "history" in counts and "superseded" not in counts, counts)
    total = p.by_id("list-total").text
    check("browse: the total count is shown", total.startswith("9 memories"), total)  # 7 + 2 scratch
    # Expired long before Lifecycle's cleanup (stored only now: it would count above while it lives).
    ids["expired"] = api.store("A reminder that lives one second", memory_type="working", ttl=1)
    check("browse: ↻ explains itself", all(e.get_attribute("title") for e in
                                             p.driver.find_elements(By.XPATH, "//span[starts-with(., '↻')]")))
    check("browse: no error banner", not p.banner(), p.banner())
    p.reload()
    remembered = wait_for(lambda: len(p.rows()) >= len(SEEDS) and p.by_id("ns-select").get_attribute("value"))
    p.driver.execute_script("location.hash = ''")
    p.reload()
    bare = wait_for(lambda: p.rows() and p.by_id("ns-select").get_attribute("value"))
    check("start: the chosen namespace is remembered, also for a plain /ui",
          remembered == "default" and bare == "default"
          and p.driver.execute_script("return localStorage.getItem('rv.ns')") == "default", (remembered, bare))
    wait_for(lambda: len(p.rows()) >= len(SEEDS))
    p.shot("browse")


def step_filters(t):
    """Filters in the URL."""
    p, ids = t.page, t.ids
    Select(p.by_id("f-tier")).select_by_value("semantic")
    p.css("[data-testid=f-apply]")[0].click()
    semantic = wait_for(lambda: len(p.rows()) == 2 and set(p.row_ids()))
    check("browse: the tier filter narrows the list to semantic memories",
          semantic == {ids["port"], ids["deploy"]}, [r.text for r in p.rows()])
    check("url: the tier filter is in the URL", "tier=semantic" in p.hash_(), p.hash_())
    p.reload()
    again = wait_for(lambda: len(p.rows()) == 2 and set(p.row_ids()))
    check("url: a reload keeps the tier filter (form and list)",
          again == {ids["port"], ids["deploy"]} and Select(p.by_id("f-tier")).first_selected_option.text == "semantic",
          (p.hash_(), [r.text for r in p.rows()]))
    p.by_id("f-reset").click()
    wait_for(lambda: len(p.rows()) >= len(SEEDS))
    p.by_id("f-text").send_keys("coffee")
    p.css("[data-testid=f-apply]")[0].click()
    found = wait_for(lambda: p.row_ids() == [ids["tea"]])
    check("browse: the text filter finds the memory and counts it",
          found and p.by_id("list-total").text.startswith("1 memory"), (p.row_ids(), p.by_id("list-total").text))
    tag = wait_for(lambda: [c for c in p.css("[data-testid=tag-chip]") if c.text == "#food"])
    if tag:
        tag[0].click()
    tagged = wait_for(lambda: "tag=food" in p.hash_() and p.row_ids() == [ids["tea"]])
    check("browse: a tag is a link that filters by it", tagged, (p.hash_(), p.row_ids()))
    p.by_id("f-reset").click()
    wait_for(lambda: len(p.rows()) >= len(SEEDS))
    Select(p.by_id("f-sort")).select_by_value("oldest")
    oldest = wait_for(lambda: "sort=oldest" in p.hash_() and p.row_ids() and p.row_ids()[0] == ids["deploy"])
    check("browse: sorting oldest first puts the 12-day-old memory first", oldest, p.row_ids())
    p.by_id("f-reset").click()
    wait_for(lambda: len(p.rows()) >= len(SEEDS))
    p.by_id("sessions").find_element(By.TAG_NAME, "summary").click()
    session = wait_for(lambda: p.css("[data-testid=session-row][data-session=s1]"))
    check("browse: the sessions list shows session s1", session, p.by_id("sessions-body").text)
    p.shot("browse-sessions")
    if session:
        session[0].find_element(By.TAG_NAME, "a").click()
        in_session = wait_for(lambda: "session=s1" in p.hash_() and p.row_ids() == [ids["rotate"]])
        check("browse: a session is a link that filters by it", in_session, (p.hash_(), p.row_ids()))
    p.by_id("sessions").find_element(By.TAG_NAME, "summary").click()


def step_paging(t):
    """Paging in the URL."""
    p = t.page
    p.open_hash("#/memories?ns=paging")
    wait_for(lambda: len(p.rows()) == 20)
    check("browse: 25 memories in paging, 20 on the first page",
          p.by_id("list-total").text.startswith("25 memories") and len(p.rows()) == 20, p.by_id("list-total").text)
    p.by_id("next-page").click()
    second = wait_for(lambda: "page=2" in p.hash_() and len(p.rows()) == 5)
    p.reload()
    kept = wait_for(lambda: len(p.rows()) == 5 and p.by_id("page-info").text)
    check("url: the page is in the URL and a reload shows page 2 again",
          second and kept and "21–25 of 25" in kept, (p.hash_(), p.by_id("page-info").text))
    p.size(PHONE)
    sideways = p.driver.execute_script("return document.documentElement.scrollWidth - arguments[0]", PHONE[0])
    p.size(DESKTOP)
    check("browse: no sideways scrolling on a phone (390 px)", sideways <= 0, sideways)
    Select(p.by_id("ns-select")).select_by_value("default")
    wait_for(lambda: len(p.rows()) >= len(SEEDS))


def step_search(t):
    """Search in Chinese; looking does not count as a use."""
    p, api, ids = t.page, t.api, t.ids
    before = api.memory(ids["port"])["access_count"]
    p.go("search")
    p.by_id("q").send_keys("端口")
    p.css("[data-testid=search-submit]")[0].click()
    hits = wait_for(lambda: p.css("[data-testid=hit]"))
    first = hits[0] if hits else None
    content = first.find_element(By.CSS_SELECTOR, "[data-testid=hit-content]").text if first else None
    check("search: 端口 puts the port memory first", content == PORT_ZH, [h.text for h in hits or []])
    marks = [m.text for m in first.find_elements(By.TAG_NAME, "mark")] if first else []
    check("search: the query term is highlighted with <mark>", "端口" in marks, marks)
    kinds = [b.get_attribute("data-kind") for b in first.find_elements(By.CSS_SELECTOR, "[data-testid=bar]")] if first else []
    check("search: the hit shows bars for similarity, keywords, recency and heat",
          {"similarity", "keywords", "recency", "heat"} <= set(kinds), kinds)
    similarity = first.find_elements(By.CSS_SELECTOR, "[data-testid=bar][data-kind=similarity]") if first else []
    cosine = re.search(r"\bcos (\d\.\d+)", similarity[0].get_attribute("title")) if similarity else None
    shown = similarity[0].find_element(By.CSS_SELECTOR, ".bar-value").text if similarity else None
    check("search: the similarity bar shows the cosine, not its value scaled among the candidates",
          cosine is not None and shown == f"{float(cosine.group(1)):.3f}", (shown, cosine and cosine.group(0)))
    titles = [b.get_attribute("title") for b in first.find_elements(By.CSS_SELECTOR, "[data-testid=bar]")] if first else []
    check("search: each bar explains its signal in a tooltip", titles and all(titles)
          and any("Heat:" in title for title in titles) and any("Similarity:" in title for title in titles), titles)
    helps = {e.get_attribute("data-help") for e in p.css("#view-search details.help")}
    check("search: help popovers for the relevance floor, heat and each signal",
          {"floor", "heat", "similarity", "keywords", "recency"} <= helps, helps)
    floor_help = p.css("#view-search details.help[data-help=floor] summary")
    if floor_help:
        floor_help[0].click()
    popped = wait_for(lambda: p.css("details.help[data-help=floor][open] .help-pop")[0].is_displayed())
    check("search: a ? opens its help text", popped and "Relevance floor" in
          p.css("details.help[data-help=floor] .help-pop")[0].text)
    p.shot("search-help")
    p.driver.find_element(By.TAG_NAME, "main").click()
    meta = p.by_id("search-meta").text
    check("search: took_ms is shown", "ms" in meta and "took" in meta, meta)
    api.call("POST", "/v1/recall", {"query": "端口"})
    counted = settled_count(api, ids["port"], before)
    check("search: an API recall counts (+1), the console's search before it did not (count_access: false)",
          counted == before + 1, (before, counted))
    check("url: the query is in the URL", "q=端口" in p.hash_(), p.hash_())
    p.reload()
    restored = wait_for(lambda: p.css("[data-testid=hit]") and p.css("[data-testid=hit-content]")[0].text)
    check("url: a reload runs the same search again",
          restored == PORT_ZH and p.by_id("q").get_attribute("value") == "端口", (p.hash_(), restored))
    api.call("POST", "/v1/recall", {"query": "端口"})
    recounted = settled_count(api, ids["port"], counted or 0)
    check("search: the reloaded search did not count either (only the second API recall did)",
          recounted == before + 2, (before, recounted))
    check("search: no error banner", not p.banner(), p.banner())
    p.shot("search")


def step_namespace_switch(t):
    """Switching the namespace clears what the old one showed."""
    p = t.page
    Select(p.by_id("ns-select")).select_by_value("team-b")
    cleared = wait_for(lambda: "ns=team-b" in p.hash_() and not p.css("[data-testid=hit]") and p.by_id("view-search").is_displayed())
    check("namespace switch: the old namespace's hits and query are gone",
          cleared and p.by_id("q").get_attribute("value") == "" and p.by_id("search-meta").text == "",
          (p.hash_(), [h.text for h in p.css("[data-testid=hit]")], p.by_id("search-meta").text))
    # An answer for the old namespace that arrives after the switch is dropped, not drawn.
    Select(p.by_id("ns-select")).select_by_value("default")
    wait_for(lambda: "ns=default" in p.hash_())
    p.slow_network(1500)
    p.open_hash("#/search?ns=default&q=端口")
    wait_for(lambda: p.by_id("search-meta").text == "Searching…")
    Select(p.by_id("ns-select")).select_by_value("team-b")
    time.sleep(3)  # the default namespace's answer has come by now
    late = ([h.text for h in p.css("[data-testid=hit]")], p.by_id("search-meta").text)
    p.slow_network(0)
    check("namespace switch: a slow answer for the old namespace, come after the switch, is not drawn",
          late == ([], "") and "ns=team-b" in p.hash_(), (p.hash_(), late))
    # A namespace the picker does not list (nothing stored yet): "other…", named in a dialog.
    Select(p.by_id("ns-select")).select_by_value("")
    wait_for(lambda: p.by_id("dialog").is_displayed() and p.css("[data-testid=other-ns]"))
    p.css("[data-testid=other-ns]")[0].send_keys("fresh-ns\n")
    fresh = wait_for(lambda: "ns=fresh-ns" in p.hash_() and p.by_id("ns-select").get_attribute("value") == "fresh-ns"
                     and p.by_id("search-meta").text == "" and not p.css("[data-testid=hit]"))
    check("namespaces: 'other…' opens a namespace named in a dialog (Enter), empty", fresh, (p.hash_(), p.by_id("dialog").is_displayed()))
    Select(p.by_id("ns-select")).select_by_value("default")
    wait_for(lambda: "ns=default" in p.hash_())


def step_edit(t):
    """Open a memory from the list, edit it."""
    p, api, ids = t.page, t.api, t.ids
    p.go("memories")
    wait_for(lambda: len(p.rows()) >= len(SEEDS))
    p.css(f"[data-testid=memory-row][data-id='{ids['tea']}']")[0].click()
    p.wait.until(lambda d: p.by_id("edit-content").get_attribute("value") == SEEDS[4][1])
    fields = p.by_id("memory-fields").text
    check("memory: the view shows every field", all(f in fields for f in (
        "id", "namespace", "occurred_at", "access_count", "content_hash", "metadata", ids["tea"])), fields)
    check("memory: tags fill the tags input", p.by_id("edit-tags").get_attribute("value") == "people, food",
          p.by_id("edit-tags").get_attribute("value"))
    tag_links = [(a.text, a.get_attribute("href")) for a in p.css("#memory-fields [data-field=tags] a")]
    check("memory: its tags show as links to Browse filtered by each",
          [t for t, _ in tag_links] == ["#people", "#food"] and all("tag=" in href for _, href in tag_links)
          and "http" not in p.by_id("memory-fields").find_element(By.CSS_SELECTOR, "[data-field=tags]").text, tag_links)
    p.by_id("edit-content").clear()
    p.by_id("edit-content").send_keys(EDITED)
    p.by_id("save-btn").click()
    saved = wait_for(lambda: p.by_id("memory-status").text == "Saved.")
    status, got = api.call("GET", f"/v1/memories/{ids['tea']}")
    check("memory: saving an edit changes the content in the API",
          saved and status == 200 and got["memory"]["content"] == EDITED, (p.by_id("memory-status").text, p.banner(), got))
    check("memory: the edit kept the memory's tags", status == 200 and got["memory"]["metadata"].get("tags") == ["people", "food"], got)
    history = wait_for(lambda: [e.text for e in p.css("[data-testid=history-item]")])
    check("memory: the earlier text shows in the history, linked by update", history and any(
        SEEDS[4][1] in h and "linked by update" in h for h in history), p.by_id("memory-history").text)
    p.by_id("edit-ttl").clear()
    p.by_id("edit-ttl").send_keys("99999999999999")
    p.by_id("save-btn").click()
    refused = wait_for(lambda: p.status_of("memory-status")[1] == "error" and p.status_of("memory-status")[0])
    check("memory: a refused save ends in a visible error, not 'Saving…'",
          refused and refused.startswith("Not saved:") and "ttl" in refused, p.status_of("memory-status"))
    p.reload()
    same = wait_for(lambda: p.by_id("memory-body").is_displayed() and p.by_id("memory-content").text)
    check("url: a reload shows the same memory", same == EDITED and ids["tea"] in p.hash_(), (p.hash_(), same))
    check("memory: no error banner", not p.banner(), p.banner())
    p.shot("memory")


def step_missing(t):
    """A memory that is not there: the message only."""
    p = t.page
    p.open_hash(f"#/memory/{uuid.uuid4()}?ns=default")
    missing = wait_for(lambda: p.by_id("memory-missing").is_displayed() and p.by_id("memory-missing").text)
    check("memory: a missing memory shows a not-found message",
          missing and "not found" in missing.lower(), missing)
    check("memory: ...and no edit form, Save, Archive or Delete",
          not p.by_id("edit-form").is_displayed() and not p.by_id("save-btn").is_displayed()
          and not p.by_id("archive-btn").is_displayed() and not p.by_id("delete-btn").is_displayed())
    p.shot("memory-missing")


def step_delete(t):
    """Delete one memory, after a dialog that names it."""
    p, api, ids = t.page, t.api, t.ids
    p.open_hash(f"#/memory/{ids['note']}?ns=default")
    p.wait.until(lambda d: p.by_id("edit-content").get_attribute("value") == SEEDS[5][1])
    p.by_id("delete-btn").click()
    asked = p.dialog()
    p.answer(True)
    back = wait_for(lambda: p.hash_().startswith("#/memories"))
    check("memory: delete asks in a dialog that shows the memory, then returns to the list",
          asked and SEEDS[5][1] in asked and back, (asked, p.hash_()))
    status, _ = api.call("GET", f"/v1/memories/{ids['note']}")
    check("memory: the deleted memory answers 404", status == 404, status)
    gone = wait_for(lambda: len(p.rows()) >= 3 and ids["note"] not in p.row_ids())
    check("browse: the deleted memory left the list", gone, [r.text for r in p.rows()])


def step_bulk(t):
    """Bulk: archive with a preview and undo; delete with a confirmation."""
    p, api, ids = t.page, t.api, t.ids
    def pick(*names):
        for n in names:
            box = wait_for(lambda: p.css(f"[data-testid=row-select][data-id='{ids[n]}']"))
            box[0].click()

    pick("deploy", "hike")
    check("bulk: the bar counts the selection", wait_for(lambda: p.by_id("bulk-count").text == "2 selected"),
          p.by_id("bulk-count").text)
    p.by_id("bulk-archive").click()
    preview = p.dialog()
    check("bulk: archiving first previews the memories it will change",
          preview and SEEDS[2][1][:20] in preview and SEEDS[1][1] in preview and "will be archived" in preview, preview)
    p.answer(True)
    done = wait_for(lambda: "Archived 2 memories" in p.by_id("bulk-status").text)
    archived = [api.memory(ids[n])["archived"] for n in ("deploy", "hike")]
    check("bulk: both are archived (API) and left the list",
          done and archived == [True, True] and ids["deploy"] not in p.row_ids(), (p.by_id("bulk-status").text, archived))
    undo = p.css("[data-testid=bulk-undo]")
    if undo:
        undo[0].click()
    undone = wait_for(lambda: "Undone" in p.by_id("bulk-status").text)
    archived = [api.memory(ids[n])["archived"] for n in ("deploy", "hike")]
    check("bulk: Undo restores them", undone and archived == [False, False], (p.by_id("bulk-status").text, archived))
    wait_for(lambda: ids["deploy"] in p.row_ids())
    pick("temp1", "temp2")
    p.by_id("bulk-delete").click()
    preview = p.dialog()
    check("bulk: delete asks for confirmation listing the memories",
          preview and "Scratch line one" in preview and "Scratch line two" in preview and "cannot be undone" in preview, preview)
    p.shot("bulk-delete-dialog")
    p.answer(True)
    done = wait_for(lambda: "Deleted 2 memories" in p.by_id("bulk-status").text)
    statuses = [api.call("GET", f"/v1/memories/{ids[n]}")[0] for n in ("temp1", "temp2")]
    check("bulk: both are deleted (API answers 404)", done and statuses == [404, 404], (p.by_id("bulk-status").text, statuses))


def step_review(t):
    """Review: possible updates, confirmed and dismissed."""
    p, api = t.page, t.api
    ns = "review"  # a namespace of its own
    for older, newer in PAIRS:
        api.store(older, ns)
        api.store(newer, ns)
    berlin = api.store(BERLIN, ns)
    lisbon = api.store(LISBON, ns)
    status, review = api.call("GET", "/v1/possible-updates", namespace=ns)
    pairs = [(waiting["memory"]["id"], u["id"]) for waiting in review["pending"] for u in waiting["possible_updates"]]
    check("review: the stored pairs wait as possible updates (API)", len(pairs) >= 2, review)
    berlin_pending = any(old == berlin for _, old in pairs)
    print(f"note: Berlin → Lisbon {'is' if berlin_pending else 'is not'} listed as a possible update")
    p.open_hash(f"#/review?ns={ns}")
    picked = wait_for(lambda: "(0)" not in Select(p.by_id("ns-select")).first_selected_option.text
                      and Select(p.by_id("ns-select")).first_selected_option.text)
    live = sum(row["live"] for row in api.call("GET", "/v1/stats")[1]["tiers"] if row["namespace"] == ns)
    check("namespaces: opened by a link, a new namespace shows its fresh count in the picker",
          live and picked == f"{ns} ({live})", (picked, live))
    items = wait_for(lambda: len(p.css("[data-testid=possible-update]")) >= len(pairs) and p.css("[data-testid=possible-update]"))
    check("review: the Review page lists them, newer and older texts", items and all(
        any(o[:25] in i.text for i in items) for o, _ in PAIRS), [i.text for i in items or []])
    check("review: the nav shows how many wait", p.by_id("review-count").text == str(len(review["pending"])), p.by_id("review-count").text)
    p.shot("review")
    (new1, old1), (new2, old2) = pairs[0], pairs[1]
    p.css(f"[data-testid=possible-update][data-id='{old1}'][data-newer='{new1}'] [data-testid=pu-confirm]")[0].click()
    confirmed = wait_for(lambda: "Confirmed" in p.css(f"[data-testid=possible-update][data-id='{old1}'] [data-testid=pu-status]")[0].text)
    older = api.memory(old1, ns)
    check("review: Confirm links them (the older memory is replaced by the newer one, linked by caller)",
          confirmed and older["superseded_by"] == new1 and older["link"]["made_by"] == "caller", older)
    p.css(f"[data-testid=possible-update][data-id='{old2}'][data-newer='{new2}'] [data-testid=pu-dismiss]")[0].click()
    dismissed = wait_for(lambda: "Dismissed" in p.css(f"[data-testid=possible-update][data-id='{old2}'] [data-testid=pu-status]")[0].text)
    newer, older = api.memory(new2, ns), api.memory(old2, ns)
    check("review: Dismiss takes it off the list and links nothing",
          dismissed and old2 not in [u["id"] for u in newer.get("possible_updates", [])] and older["superseded_by"] is None,
          (newer, older))
    status, review = api.call("GET", "/v1/possible-updates", namespace=ns)
    left = [(waiting["memory"]["id"], u["id"]) for waiting in review["pending"] for u in waiting["possible_updates"]]
    check("review: neither pair waits any more (API)", (new1, old1) not in left and (new2, old2) not in left, left)
    t.berlin, t.lisbon = berlin, lisbon


def step_replaced(t):
    """A replaced memory says by what, when, who and why; Unlink undoes it."""
    p, api = t.page, t.api
    ns, berlin, lisbon = "review", t.berlin, t.lisbon
    berlin_memory = api.memory(berlin, ns)
    if berlin_memory["superseded_by"] != lisbon:
        status, _ = api.call("POST", "/v1/link", {"id": lisbon, "supersedes": [berlin], "reason": "moved to Lisbon"}, ns)
        check("link: Lisbon replaces Berlin through POST /v1/link", status == 200, status)
        berlin_memory = api.memory(berlin, ns)
    made_by, reason = berlin_memory["link"]["made_by"], berlin_memory["link"]["reason"]
    p.open_hash(f"#/memory/{berlin}?ns={ns}")
    line = wait_for(lambda: p.by_id("memory-replaced").is_displayed() and "Lisbon" in p.by_id("memory-replaced").text
                    and p.css("[data-testid=replaced-line]")[0].text)
    check("replaced: the page says 'Replaced by <newer> on <date> — linked by <made_by>: <reason>'",
          line and line.startswith("Replaced by") and lisbon[-8:] in line and " on 20" in line
          and f"— linked by {made_by}: {reason}" in line, line)
    check("replaced: one name for it (no 'superseded' on the page)",
          "superseded" not in p.by_id("view-memory").text.lower(), p.by_id("view-memory").text)
    p.shot("memory-replaced")
    p.open_hash(f"#/memory/{lisbon}?ns={ns}")
    replaced = wait_for(lambda: [e.text for e in p.css("[data-testid=history-item]")])
    check("replaced: the newer memory's page shows what it replaced", replaced and BERLIN in replaced[0], replaced)
    p.open_hash(f"#/search?ns={ns}&q=Berlin")
    labels = wait_for(lambda: [e.text for e in p.css("[data-testid=score-row-label]")])
    first_hit = p.css("[data-testid=hit]")
    check("search: a hit answered in place of an older memory labels that row of bars",
          labels and any("in place of the older memory it replaced" in label and berlin[-8:] in label for label in labels)
          and first_hit and first_hit[0].get_attribute("data-id") == lisbon, (labels, [h.text for h in first_hit]))
    words = " ".join([p.by_id("view-search").text] + [e.get_attribute("title") or "" for e in p.css("#hits [title]")])
    check("search: the replaced hit says 'replaced' (no 'superseded', not even in a tooltip)",
          "superseded" not in words.lower() and "replaced" in words, words[:400])
    p.shot("search-replaced")
    p.open_hash(f"#/memory/{berlin}?ns={ns}")
    wait_for(lambda: p.css("[data-testid=unlink-btn]") and p.css("[data-testid=unlink-btn]")[0].is_displayed())
    p.css("[data-testid=unlink-btn]")[0].click()
    p.dialog()
    p.answer(True)
    unlinked = wait_for(lambda: "Unlinked" in p.by_id("memory-status").text)
    check("replaced: Unlink makes the memory current again (API)",
          unlinked and api.memory(berlin, ns)["superseded_by"] is None and not p.by_id("memory-replaced").is_displayed(),
          (p.by_id("memory-status").text, api.memory(berlin, ns)))


def step_lifecycle(t):
    """Lifecycle: previews before cleanup and ending a session."""
    p, api, ids = t.page, t.api, t.ids
    p.open_hash("#/lifecycle?ns=default")
    p.wait.until(lambda d: p.by_id("view-lifecycle").is_displayed())
    p.by_id("cleanup-btn").click()
    preview = p.dialog()
    check("lifecycle: cleanup first says how many expired memories it will delete",
          preview and "1 expired" in preview, preview)
    p.answer(True)
    cleaned = wait_for(lambda: "Deleted" in p.by_id("cleanup-result").text and p.by_id("cleanup-result").text)
    check("lifecycle: cleanup reports what it deleted", cleaned and "Deleted 1 expired memory" in cleaned,
          p.by_id("cleanup-result").text or p.banner())
    status, _ = api.call("GET", f"/v1/memories/{ids['expired']}")
    check("lifecycle: the expired memory is gone (API)", status == 404, status)
    # Two more hikes: with the first, a group worth distilling (when the model is ready).
    for text in ["周六又去香山爬山了，风景很好", "周日和朋友一起去香山爬山"]:
        api.call("POST", "/v1/memories", {"content": text, "memory_type": "episodic", "dedup": False})
    p.by_id("suggest-btn").click()
    suggested = wait_for(lambda: p.css("[data-testid=suggestion], [data-testid=no-suggestions]")
                         or p.status_of("suggestions")[1] == "error")
    check("lifecycle: suggestions answer (groups, none, or why not)", suggested, p.by_id("suggestions").text or p.banner())
    distil = p.css("[data-testid=distil-btn]")
    if t.ready:
        check("lifecycle: the similar hikes are suggested as a group, cohesion explained",
              distil and p.css("[data-testid=suggestion] details.help[data-help=cohesion]"), p.by_id("suggestions").text)
    else:
        check("lifecycle: keyword-only, suggestions say they need the embedding model (without a refused request)",
              p.status_of("suggestions")[1] == "error" and "no embedding model ready" in p.by_id("suggestions").text,
              p.status_of("suggestions"))
    if distil:
        semantic = lambda: len(api.call("GET", "/v1/memories?memory_type=semantic&limit=100")[1]["memories"])
        before = semantic()
        distil[0].click()
        shown = p.dialog()
        written_meanwhile = semantic() != before
        p.answer(True)
        check("lifecycle: distilling first shows the text it would store, writing nothing yet",
              shown and len(shown) > 30 and not written_meanwhile, shown)
        done = wait_for(lambda: "Distilled into" in p.by_id("suggestions").text and p.by_id("suggestions").text)
        check("lifecycle: on a yes the distillation is stored", done and semantic() == before + 1,
              p.by_id("suggestions").text or p.banner())
    p.by_id("end-session-id").send_keys("s1")
    p.css("[data-testid=end-session-btn]")[0].click()
    preview = p.dialog()
    check("lifecycle: ending a session first lists its working memories", preview and SEEDS[3][1] in preview, preview)
    p.shot("lifecycle-end-session-dialog")
    p.answer(True)
    ended = wait_for(lambda: "working memor" in p.by_id("end-session-result").text and p.by_id("end-session-result").text)
    check("lifecycle: ending session s1 reports its working memories", ended and "1 working memory" in ended,
          p.by_id("end-session-result").text or p.banner())
    check("lifecycle: no error banner", not p.banner(), p.banner())
    p.shot("lifecycle")


def step_charts(t):
    """Charts, up to a year back."""
    p = t.page
    p.go("charts")
    bars = wait_for(lambda: p.css("#chart-tiers svg [data-testid=tier-bar]"))
    check("charts: memories per day are drawn", bars, p.by_id("chart-tiers").text or p.banner())
    points = wait_for(lambda: p.css("#chart-latency svg [data-testid=latency-point]"))
    check("charts: recall latency is drawn", points, p.by_id("chart-latency").text or p.banner())
    periods = [o.get_attribute("value") for o in p.by_id("chart-days").find_elements(By.TAG_NAME, "option")]
    Select(p.by_id("chart-days")).select_by_value("366")
    year = wait_for(lambda: "days=366" in p.hash_() and p.css("#chart-tiers svg [data-testid=tier-bar]"))
    check("charts: the period reaches 366 days, kept in the URL", "366" in periods and year, (periods, p.hash_()))
    check("charts: no error banner", not p.banner(), p.banner())
    p.shot("charts")


def step_overview(t):
    """Overview: every namespace with its counts, health, the store and its size, growth."""
    p = t.page
    p.go("overview")
    table = wait_for(lambda: len(p.css("[data-testid=ov-ns-row]")) >= 4 and p.by_id("ov-namespaces").text)
    paging = p.css("[data-testid=ov-ns-row][data-ns=paging] [data-col=total]")
    check("overview: every namespace with its counts per tier and state",
          table and all(n in table for n in ("default", "team-b", "paging", "review"))
          and "history" in table and paging and paging[0].text == str(FILLERS), table)
    health_text = p.by_id("ov-health").text
    check("overview: health from /healthz and /readyz, and pending vectors",
          "up" in health_text and "ready" in health_text and "pending vectors" in health_text, health_text)
    store_text = p.by_id("ov-store").text
    check("overview: the database and its size", "sqlite" in store_text.lower() and ("KiB" in store_text or "MiB" in store_text), store_text)
    growth = wait_for(lambda: p.css("#ov-growth svg [data-testid=tier-bar]"))
    check("overview: the namespace's growth is drawn", growth and "in the last 30 days" in p.by_id("ov-growth-summary").text,
          p.by_id("ov-growth-summary").text)
    check("overview: no error banner", not p.banner(), p.banner())
    p.shot("overview")


def step_keys(t):
    """API keys: create (the secret once), revoke."""
    p, api = t.page, t.api
    p.go("keys")
    wait_for(lambda: p.css("[data-testid=key-row]"))
    p.by_id("nk-label").send_keys("ci-bot")
    p.by_id("nk-namespaces").clear()
    p.by_id("nk-namespaces").send_keys("team-b")
    p.css("[data-testid=nk-create]")[0].click()
    secret = wait_for(lambda: p.by_id("new-secret").is_displayed() and p.by_id("new-secret-value").text)
    check("keys: creating a key shows its secret with a Copy button",
          secret and secret.startswith("rv_") and p.by_id("copy-secret").is_displayed(), secret)
    p.shot("keys-created")
    p.by_id("copy-secret").click()
    copied = wait_for(lambda: p.by_id("copy-status").text)
    check("keys: Copy says what it did", copied and ("Copied" in copied or "Selected" in copied), copied)
    status, _ = api.call("GET", "/v1/stats", key=secret or "none")
    check("keys: the new key works (API)", status == 200, status)
    status, listed_keys = api.call("GET", "/v1/keys")
    new_id = next((k["id"] for k in listed_keys["keys"] if k.get("label") == "ci-bot"), None)
    row = wait_for(lambda: p.css(f"[data-testid=key-row][data-id='{new_id}']"))
    check("keys: the list shows it, scoped to team-b", row and "team-b" in row[0].text, [r.text for r in p.css("[data-testid=key-row]")])
    p.go("overview")
    p.go("keys")
    wait_for(lambda: p.css("[data-testid=key-row]"))
    check("keys: the secret is shown only once", not p.by_id("new-secret").is_displayed()
          and secret not in p.driver.page_source)
    p.css(f"[data-testid=key-revoke][data-id='{new_id}']")[0].click()
    asked = p.dialog()
    p.answer(True)
    revoked = wait_for(lambda: p.css(f"[data-testid=key-row][data-id='{new_id}']")[0].get_attribute("data-state") == "revoked")
    status, _ = api.call("GET", "/v1/stats", key=secret or "none")
    check("keys: Revoke (after a dialog) revokes it; its next request is refused",
          asked and new_id in asked and revoked and status == 401, (asked, status))
    check("keys: no error banner", not p.banner(), p.banner())
    p.shot("keys")


def step_browser_log(t):
    """The browser logged no errors but the expected refusals."""
    p = t.page
    try:
        logs = p.driver.get_log("browser")
    except Exception:  # noqa: BLE001 - not every driver keeps a log
        logs = None
    if logs is not None:
        # Expected refusals: the first requests before the key (401), the refused save (400),
        # the missing memory (404).
        expected = ("status of 401", "status of 400", "status of 404")
        severe = [e for e in logs if e.get("level") == "SEVERE" and not any(x in e.get("message", "") for x in expected)]
        check("browser: no errors in the console log", not severe, severe)


def step_limited_key(t):
    """A key limited to one namespace: offered that namespace only, and told 403 on keys."""
    p = t.page
    made = subprocess.run(
        [t.binary, "--db", t.db, "--json", "keys", "create", "--namespace", "team-b", "--label", "team-b"],
        capture_output=True, text=True, timeout=120, env=t.env)
    team_key = json.loads(made.stdout)["key"] if made.returncode == 0 else None
    check("`rearview keys create --namespace team-b` makes a key", team_key, made.stderr[-300:])
    p.driver.execute_script("sessionStorage.clear(); localStorage.clear()")
    p.driver.get(t.base + "/ui")
    wait_for(lambda: p.by_id("key-input").is_displayed())
    p.by_id("key-input").send_keys(team_key or "")
    p.by_id("key-submit").click()
    team_rows = wait_for(lambda: [r.text for r in p.rows()] or None)
    options = [o.get_attribute("value") for o in p.by_id("ns-select").find_elements(By.TAG_NAME, "option")]
    check("namespaces: a key limited to team-b is offered team-b only", options == ["team-b"], options)
    check("namespaces: it lists team-b's memory and no other namespace's",
          team_rows and all(TEAM_B in row for row in team_rows), team_rows)
    p.go("keys")
    denied = wait_for(lambda: p.by_id("keys-denied").is_displayed() and p.by_id("keys-denied").text)
    check("keys: a non-admin key is told the page needs an admin key (403)",
          denied and "403" in denied and "admin key" in denied and not p.by_id("keys-body").is_displayed(), denied)
    p.shot("keys-denied")
    p.open_hash("#/overview?ns=team-b")
    limited = wait_for(lambda: "admin keys only" in p.by_id("ov-store").text and p.by_id("ov-store").text)
    check("overview: a limited key sees its namespace, not the database's location",
          limited and len(p.css("[data-testid=ov-ns-row]")) == 1, limited)


def step_server_down(t):
    """The server stops: a save, a search, Browse and the header say so."""
    p = t.page
    p.open_hash(f"#/memory/{t.team_b_id}?ns=team-b")
    p.wait.until(lambda d: p.by_id("edit-content").get_attribute("value") == TEAM_B)
    check("health: the header says the server is up", p.by_id("embedding-status").get_attribute("data-health") == "up",
          p.by_id("embedding-status").text)
    t.server.send_signal(signal.SIGTERM)
    t.server.wait(timeout=15)
    t.server = None
    p.by_id("edit-content").send_keys(" and Redis 7")
    p.by_id("save-btn").click()
    unsaved = wait_for(lambda: p.status_of("memory-status")[1] == "error" and p.by_id("memory-status").text)
    check("server down: a save ends in a visible error, not 'Saving…'",
          unsaved and unsaved.startswith("Not saved: Cannot reach the server"), p.status_of("memory-status"))
    header = p.by_id("embedding-status")
    check("server down: by then the header says the server is unreachable (no wait for the next health check)",
          header.get_attribute("data-health") == "down" and "unreachable" in header.text, header.text)
    p.open_hash("#/search?ns=team-b")
    p.wait.until(lambda d: p.by_id("view-search").is_displayed())
    p.by_id("q").send_keys("PostgreSQL")
    p.css("[data-testid=search-submit]")[0].click()
    failed = wait_for(lambda: p.status_of("search-meta")[1] == "error" and p.by_id("search-meta").text)
    check("server down: the search ends in a visible error, not 'Searching…'",
          failed and failed.startswith("Search failed"), p.status_of("search-meta"))
    down = wait_for(lambda: p.by_id("embedding-status").get_attribute("data-health") == "down" and p.by_id("embedding-status").text)
    check("server down: the header no longer says ready", down and "unreachable" in down and "ready" not in down,
          p.by_id("embedding-status").text)
    p.go("memories")
    browse_failed = wait_for(lambda: p.status_of("list-total")[1] == "error" and p.by_id("list-total").text)
    check("server down: Browse says it could not load", browse_failed and "Could not load" in browse_failed,
          p.status_of("list-total"))
    p.shot("server-down")


def step_layout(t):
    """No page shot scrolls sideways, at desktop or at phone width."""
    p = t.page
    wide = {name: px for name, px in p.overflow.items() if px > 0}
    check(f"layout: none of the {len(p.overflow) // 2} pages shot scrolls sideways, at 1280 px or at 390 px",
          p.overflow and not wide, wide)


STEPS = [step_start, step_seed, step_browse, step_filters, step_paging, step_search, step_namespace_switch,
         step_edit, step_missing, step_delete, step_bulk, step_review, step_replaced, step_lifecycle, step_charts,
         step_overview, step_keys, step_browser_log, step_limited_key, step_server_down, step_layout]


def main(binary, console_dir=None, model=None, shots=None):
    tmp = tempfile.mkdtemp(prefix="rearview-console-")
    # No background sweep: the test's expired memory waits for the console's cleanup.
    env = dict(os.environ, REARVIEW_LOG="warn", REARVIEW_SWEEP_INTERVAL="0")
    models = os.path.expanduser("~/.cache/rearview/models")
    if "REARVIEW_MODELS_DIR" not in env and os.path.isdir(models):
        env["REARVIEW_MODELS_DIR"] = models
    if shots:
        os.makedirs(shots, exist_ok=True)
    t = Run(binary, model, tmp, env)
    try:
        if not start_server(t, console_dir):
            return  # no console to drive
        t.page = Page(start_browser(f"{tmp}/chromium-profile"), shots)
        for step in STEPS:  # in this order: each goes on from where the one before left the data
            step(t)
    finally:
        if t.page is not None:
            try:
                t.page.driver.quit()
            except Exception:  # noqa: BLE001
                traceback.print_exc()
        if t.server is not None:
            t.server.send_signal(signal.SIGTERM)
            try:
                t.server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                t.server.kill()
                t.server.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="End-to-end test of rearview's web console")
    parser.add_argument("binary", help="the rearview binary")
    parser.add_argument("--console-dir", help="serve the console's files from this folder (development)")
    parser.add_argument("--model", help="the server's --model (e.g. none: keyword-only)")
    parser.add_argument("--screenshots", default=os.environ.get("REARVIEW_SCREENSHOTS"),
                        help="save screenshots of every page here (desktop and phone width)")
    args = parser.parse_args()
    try:
        main(args.binary, args.console_dir, args.model, args.screenshots)
    except TimeoutException:
        traceback.print_exc()
        RESULTS.append(False)
    except Exception:  # noqa: BLE001 - any crash is a failed check
        traceback.print_exc()
        RESULTS.append(False)
    finish("console e2e")
