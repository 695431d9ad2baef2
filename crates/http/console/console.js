// rearview console: one page over the REST API (/v1). Plain ES2020, no dependencies, served under
// a strict CSP (no inline scripts, handlers or style attributes). Every piece of stored data is put
// into the page with textContent / createElement, never as HTML.
//
// Sections: 1 DOM helpers · 2 help texts · 3 API and server health · 4 URL state · 5 dialog ·
// 6 namespace and stats · 7 views (overview, browse, search, memory, review, lifecycle, charts,
// keys) · 8 charts drawing · 9 routing and start-up.
//
// The URL is the state: every view reads its namespace, filters, query and page from the hash
// (`#/memories?ns=a&tag=x&page=2`), and forms only navigate; so a reload or a shared link shows
// the same view. Each navigation gets a ticket: an answer that arrives after the user moved on
// (another namespace, another memory) is dropped, never drawn over the new view.
'use strict';

(() => {
  // ==== 1. DOM helpers =========================================================================

  const $ = (id) => document.getElementById(id);
  const TIERS = ['working', 'episodic', 'semantic'];
  const PAGE = 20; // memories per Browse page
  const REVIEW_PAGE = 20;
  const SCAN_PAGE = 1000; // the API's largest page
  const SCAN_CAP = 2000; // memories a text filter, a sort or a count looks through at most
  const DAY_OPTIONS = [7, 30, 90, 180, 366];
  const SVGNS = 'http://www.w3.org/2000/svg';

  /** An element: attrs (class, text, dataset, on<event>, other attributes), then children. */
  function h(tag, attrs, ...children) {
    return build(document.createElement(tag), attrs, children);
  }

  /** An SVG element, same conventions. */
  function s(tag, attrs, ...children) {
    return build(document.createElementNS(SVGNS, tag), attrs, children);
  }

  function build(el, attrs, children) {
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'class') el.setAttribute('class', v);
      else if (k === 'text') el.textContent = v;
      else if (k === 'dataset') Object.assign(el.dataset, v);
      else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
      else if (k === 'checked' || k === 'disabled') el[k] = Boolean(v);
      else el.setAttribute(k, v === true ? '' : String(v));
    }
    for (const c of children.flat(Infinity)) {
      if (c === null || c === undefined || c === false) continue;
      el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return el;
  }

  function clear(el, ...children) {
    el.replaceChildren();
    for (const c of children.flat(Infinity)) if (c) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return el;
  }

  /** A status line's text and kind: pending (muted), ok (green) or error (red). */
  function setStatus(el, text, kind = 'pending', ...extra) {
    if (typeof el === 'string') el = $(el);
    clear(el, text, ...extra);
    el.dataset.kind = kind;
  }

  // Ids are UUIDv7: their first digits are the time they were made, alike for memories stored
  // together; the last ones are random, so they tell memories apart.
  const short = (id) => '…' + String(id || '').slice(-8);
  const plural = (n, one, many) => `${Number(n || 0).toLocaleString('en-US')} ${n === 1 ? one : many}`;
  const badge = (tier) => h('span', { class: 'badge ' + tier, dataset: { testid: 'tier-badge' } }, tier);

  /** Local "YYYY-MM-DD HH:MM" of an RFC 3339 time, or "—". */
  function when(t) {
    if (!t) return '—';
    const d = new Date(t);
    if (Number.isNaN(d.getTime())) return t;
    const p = (n) => String(n).padStart(2, '0');
    return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
  }
  const timeEl = (t) => h('time', { datetime: t || null, title: t || null }, when(t));

  function snippet(text, n) {
    const chars = Array.from(text || '');
    return chars.length > n ? chars.slice(0, n).join('') + '…' : chars.join('');
  }

  function num(v, digits = 3) {
    return typeof v === 'number' && Number.isFinite(v) ? v.toFixed(digits) : String(v);
  }

  function bytes(n) {
    if (!n) return '0 B';
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    const i = Math.min(units.length - 1, Math.floor(Math.log(n) / Math.log(1024)));
    return `${(n / 1024 ** i).toFixed(i ? 1 : 0)} ${units[i]}`;
  }

  const tagsOf = (m) => {
    const tags = m.metadata && m.metadata.tags;
    return Array.isArray(tags) ? tags.map(String) : [];
  };

  // ==== 2. Help texts ==========================================================================
  // Shown as a tooltip (title) and, on click, as a small "?" popover: <details>, no script needed.

  const HELP = {
    floor: 'Relevance floor: a memory less similar to the query than this (cosine, 0 to 1) is left out ' +
      'before ranking, unless it holds the query\'s rarer words. Empty = the server\'s default. ' +
      'The answer says how many memories it left out.',
    heat: 'Heat: how often recalls returned the memory (↻, its access count), as a small bonus ' +
      '(1 = never used). Searches made here do not count, so looking does not change ranking.',
    access: '↻ access count: how many recalls returned this memory. It feeds heat. ' +
      'Searches from this console do not count.',
    cohesion: 'Cohesion: how alike the group\'s episodes are (their cosine similarity, 0 to 1). ' +
      'The higher, the safer to distil them into one memory.',
    similarity: 'Similarity: how close the memory\'s meaning is to the query (cosine of their embedding ' +
      'vectors, scaled against this query\'s candidates). 0 without vectors (keyword-only).',
    keywords: 'Keywords: how well the memory\'s words match the query\'s (BM25, scaled against the best ' +
      'match among this query\'s candidates).',
    recency: 'Recency: a factor for the age of the event (1 = neutral, above 1 favours recent events). ' +
      'Semantic memories do not age.',
    score: 'Score = relevance × recency × heat; higher is better.',
    replacedRow: 'This memory answers in place of an older memory it replaced: the older one matched the ' +
      'query, and recall shows the current statement instead, with the older one\'s score. ' +
      'The first row, if any, is the memory\'s own match.',
    ownRow: 'How this memory matched the query on its own words.',
    history: 'History: memories replaced by a newer one (a moved city, a changed port, an earlier text ' +
      'of an edited memory). Recall and Browse leave them out unless "history" is ticked; they stay ' +
      'readable, and Unlink makes one current again.',
    madeBy: 'Linked by: caller (an API client or a person confirmed it), llm (the LLM read the newer ' +
      'memory as an update), rule (the newer memory\'s own words state the change), update (an earlier ' +
      'text kept when the memory was edited).',
    possible: 'Possible update: when it was stored, this memory looked like it may change an older one, ' +
      'but its words did not say so plainly, so nothing was linked. Confirm makes the older memory ' +
      'history (replaced by this one); Dismiss says it is not an update.',
    pending: 'Pending vectors: memories still waiting for their embedding. Until embedded they are found ' +
      'by keywords only.',
    archived: 'Archived: moved to the cold tier, out of recall unless asked for; Restore brings it back.',
    expired: 'Expired: past its TTL. Out of recall already; cleanup (or the server\'s sweep) deletes it.',
  };

  function help(key) {
    const text = HELP[key] || key;
    return h('details', { class: 'help', dataset: { help: key, testid: 'help-' + key } },
      h('summary', { title: text, 'aria-label': 'Help' }, '?'),
      h('span', { class: 'help-pop', role: 'note' }, text));
  }

  /** Fills the static page's `<span class="help-slot" data-help="…">` placeholders. */
  function fillHelpSlots() {
    for (const slot of document.querySelectorAll('.help-slot[data-help]')) {
      if (!slot.firstChild) slot.append(help(slot.dataset.help));
    }
  }

  const POP_WIDTH = 320; // the popover's widest, as in the CSS

  /** One popover open at a time, kept inside the window; a click elsewhere closes it. */
  function bindHelp() {
    document.addEventListener('toggle', (ev) => {
      const d = ev.target;
      if (!(d instanceof HTMLDetailsElement) || !d.classList.contains('help') || !d.open) return;
      for (const other of document.querySelectorAll('details.help[open]')) if (other !== d) other.open = false;
      // Near the right edge it opens leftwards (the phone layout pins it to the bottom instead).
      const at = d.querySelector('summary').getBoundingClientRect();
      d.classList.toggle('pop-end', at.left + POP_WIDTH + 16 > document.documentElement.clientWidth);
    }, true);
    document.addEventListener('click', (ev) => {
      if (ev.target.closest('details.help')) return;
      for (const d of document.querySelectorAll('details.help[open]')) d.open = false;
    });
  }

  // ==== 3. API and server health ===============================================================

  class ApiError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }

  let keyPrompt = null; // one pending "enter a key" promise shared by concurrent 401s
  let keyResolve = null;

  function askKey(message) {
    if (!keyPrompt) {
      keyPrompt = new Promise((resolve) => { keyResolve = resolve; });
      $('key-message').textContent = message || '';
      $('key-input').value = '';
      $('key-view').hidden = false;
      $('key-input').focus();
    }
    return keyPrompt;
  }

  function submitKey(ev) {
    ev.preventDefault();
    const key = $('key-input').value.trim();
    if (key) sessionStorage.setItem('rv.key', key);
    else sessionStorage.removeItem('rv.key');
    $('key-view').hidden = true;
    const resolve = keyResolve;
    keyPrompt = keyResolve = null;
    if (resolve) resolve();
    else boot(); // opened from the header: reload with the new key
  }

  async function readJson(res) {
    const text = await res.text();
    if (!text) return null;
    try { return JSON.parse(text); } catch (_) { return { message: text.slice(0, 300) }; }
  }

  /** One REST call in the current namespace (or `ns`); a 401 asks for a key and retries.
   *  Errors throw ApiError with the server's message; an unreachable server marks the header. */
  async function api(method, path, body, ns) {
    for (;;) {
      const headers = { 'X-Rearview-Namespace': ns || state.ns, Accept: 'application/json' };
      const key = sessionStorage.getItem('rv.key');
      if (key) headers.Authorization = 'Bearer ' + key;
      if (body !== undefined) headers['Content-Type'] = 'application/json';
      let res;
      try {
        res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      } catch (e) {
        setHealth('down', 'server unreachable');
        throw new ApiError(0, 'network', `Cannot reach the server (${method} ${path.split('?')[0]}): ${e.message}`);
      }
      if (state.health !== 'up' && state.health !== 'unknown') checkHealth();
      if (res.status === 401) {
        const data = await readJson(res);
        await askKey(key ? `The key was refused: ${(data && data.message) || 'unauthorized'}` : 'This server needs an API key.');
        continue;
      }
      if (res.status >= 500) checkHealth();
      if (res.status === 204) return null;
      const data = await readJson(res);
      if (!res.ok) {
        throw new ApiError(res.status, (data && data.code) || 'http_' + res.status,
          (data && data.message) || `${method} ${path}: HTTP ${res.status}`);
      }
      return data;
    }
  }

  /** A public endpoint (/healthz, /readyz): `{ok, status, data}`; throws when unreachable. */
  async function probe(path) {
    const res = await fetch(path, { cache: 'no-store' });
    return { ok: res.ok, status: res.status, data: await readJson(res) };
  }

  /** The header's health: up (with the embedding's state), not ready, or unreachable; `detail`
   *  (the tooltip) when the text is shortened. */
  function setHealth(status, text, detail = text) {
    const was = state.health;
    state.health = status;
    const el = $('embedding-status');
    el.dataset.health = status;
    el.textContent = text;
    el.title = status === 'up' ? `Server up; ${detail}` : `Server ${status === 'down' ? 'unreachable' : 'not ready'}: ${detail}`;
    if (was === 'down' && status === 'up') refreshStats();
  }

  /** Up, with the embedding's state: "ready", or "keyword-only: <why>" (shortened in the header). */
  function setUp(embedding) {
    const status = (embedding && embedding.status) || 'unknown';
    setHealth('up', status.startsWith('keyword-only') ? 'keyword-only' : `embedding: ${status}`, `embedding: ${status}`);
  }

  let healthCheck = null;
  function checkHealth() {
    if (!healthCheck) {
      healthCheck = probe('/readyz').then((r) => {
        if (r.ok) {
          setUp(r.data && r.data.embedding);
        } else {
          setHealth('notready', `not ready: ${(r.data && r.data.message) || 'HTTP ' + r.status}`);
        }
      }, () => setHealth('down', 'server unreachable')).finally(() => { healthCheck = null; });
    }
    return healthCheck;
  }

  function showError(e) {
    $('error-text').textContent = e && e.message ? e.message : String(e);
    $('error-banner').hidden = false;
  }
  function clearError() { $('error-banner').hidden = true; }

  /** Wraps an event handler: a form is not sent; an error the handler did not catch goes to the banner. */
  const guard = (fn) => async (...args) => {
    if (args[0] && args[0].preventDefault) args[0].preventDefault();
    try { await fn(...args); } catch (e) { showError(e); }
  };

  // ==== 4. URL state ===========================================================================

  /** `#/view/arg?ns=…&…` → {view, arg, params}. */
  function parseHash(hash = location.hash) {
    const m = /^#\/([a-z]+)(?:\/([^?]*))?(?:\?(.*))?$/.exec(hash);
    if (!m) return { view: '', arg: '', params: new URLSearchParams() };
    let arg = '';
    try { arg = m[2] ? decodeURIComponent(m[2]) : ''; } catch (_) { arg = m[2]; }
    return { view: m[1], arg, params: new URLSearchParams(m[3] || '') };
  }

  /** The hash of a view: the namespace first, then the non-empty params. */
  function link(view, arg, params = {}) {
    const q = new URLSearchParams();
    q.set('ns', params.ns || state.ns);
    for (const [k, v] of Object.entries(params)) {
      if (k === 'ns' || v === '' || v === null || v === undefined || v === false) continue;
      q.set(k, v === true ? '1' : String(v));
    }
    return `#/${view}${arg ? '/' + encodeURIComponent(arg) : ''}?${q}`;
  }

  /** Navigates (a history entry); routes again when the hash is already that one. */
  function go(view, arg, params) {
    const before = location.hash;
    location.hash = link(view, arg, params);
    if (location.hash === before) route();
  }

  const memoryHref = (id) => link('memory', id);
  const memoryLink = (id, text) => h('a', { href: memoryHref(id), class: 'mono', title: id, dataset: { id } }, text || id);

  // Tickets: route() starts a new one; an answer for an older one is not drawn.
  let generation = 0;
  const ticket = () => {
    const mine = generation;
    return () => mine === generation;
  };

  // ==== 5. Dialog ==============================================================================

  /** A modal question: resolves true on OK. `ok: null` shows only a Close button. */
  function ask({ title, body, ok = 'OK', cancel = 'Cancel', danger = false }) {
    const dlg = $('dialog');
    if (dlg.open) dlg.close('cancel');
    $('dialog-title').textContent = title;
    clear($('dialog-body'), body);
    $('dialog-ok').hidden = !ok;
    $('dialog-ok').textContent = ok || '';
    $('dialog-ok').className = danger ? 'danger-solid' : 'primary';
    $('dialog-cancel').textContent = ok ? cancel : 'Close';
    dlg.returnValue = '';
    return new Promise((resolve) => {
      dlg.addEventListener('close', () => resolve(dlg.returnValue === 'ok'), { once: true });
      dlg.showModal();
      (ok && !danger ? $('dialog-ok') : $('dialog-cancel')).focus();
    });
  }

  /** A list of memories for a dialog: tier, text, and an optional note per memory. */
  function memoryList(memories, note) {
    return h('ul', { class: 'dialog-list', dataset: { testid: 'dialog-list' } }, memories.map((m) =>
      h('li', { dataset: { id: m.id } }, badge(m.memory_type), ' ', snippet(m.content, 140),
        note ? h('span', { class: 'muted small' }, ` — ${note(m)}`) : null)));
  }

  // ==== 6. Namespace and stats =================================================================

  const state = {
    ns: 'default',
    granted: null, // the namespaces a limited key may use; null: any
    stats: null,
    health: 'unknown',
    view: '',
    memory: null, // the memory shown in the memory view
    scan: null, // {key, at, items, capped}: the last Browse scan, reused while paging
    page: [], // the memories on the Browse page shown
    selected: new Map(), // id → memory, Browse's selection
    charts: null, // the Charts view's /v1/timeline answer, redrawn on resize
    growth: null, // the Overview's
    last: {}, // the last hash of Browse and Search, for the nav links
  };

  const allowed = (ns) => !state.granted || state.granted.includes(ns);
  const tiersOf = (ns) => ((state.stats && state.stats.tiers) || []).filter((t) => t.namespace === ns);
  const sumOf = (rows, col) => rows.reduce((n, t) => n + (Number(t[col]) || 0), 0);

  async function loadStats() {
    const stats = await api('GET', '/v1/stats');
    state.stats = stats;
    // A key limited to some namespaces names them (`granted`); others may use any namespace.
    state.granted = Array.isArray(stats.granted) ? stats.granted : null;
    if (stats.embedding && stats.embedding.status) setUp(stats.embedding);
    renderNamespaces();
    renderCounts();
    return stats;
  }

  function refreshStats() {
    loadStats().catch(() => {}); // counts are a convenience; the action itself succeeded or said why
    loadReviewCount();
  }

  /** The namespace to open on: the URL's, else the last one chosen, else the one with the most
   *  memories (not an empty `default`), else the key's first. */
  function firstNamespace(fromUrl) {
    if (fromUrl && allowed(fromUrl)) return fromUrl;
    const saved = localStorage.getItem('rv.ns');
    if (saved && allowed(saved)) return saved;
    const live = {};
    for (const t of (state.stats && state.stats.tiers) || []) {
      if (allowed(t.namespace)) live[t.namespace] = (live[t.namespace] || 0) + (t.live || 0) + (t.archived || 0);
    }
    const busiest = Object.entries(live).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0];
    if (busiest && busiest[1] > 0) return busiest[0];
    return (state.granted && state.granted[0]) || 'default';
  }

  function renderNamespaces() {
    const names = new Set(state.granted || ['default']);
    names.add(state.ns);
    const live = {};
    for (const t of (state.stats && state.stats.tiers) || []) {
      names.add(t.namespace);
      live[t.namespace] = (live[t.namespace] || 0) + (t.live || 0);
    }
    clear($('ns-select'), [...names].sort().map((n) =>
      h('option', { value: n, selected: n === state.ns }, `${n} (${live[n] || 0})`)),
    // Stats list only namespaces that hold memories: any other is named by hand (not for a
    // key limited to its namespaces, which are all listed).
    state.granted ? null : h('option', { value: '' }, 'other…'));
    $('ns-select').value = state.ns;
  }

  /** Browse's table of the namespace's memories per tier and state. */
  function renderCounts() {
    const rows = tiersOf(state.ns);
    const cols = [['live', 'live'], ['archived', 'archived'], ['superseded', 'history'], ['expired', 'expired']];
    const byTier = Object.fromEntries(rows.map((t) => [t.memory_type, t]));
    clear($('tier-counts'),
      h('thead', null, h('tr', null, h('th', null, state.ns), cols.map(([, name]) => h('th', null, name)))),
      h('tbody', null, TIERS.map((tier) => h('tr', { dataset: { tier } },
        h('td', null, badge(tier)),
        cols.map(([c, name]) => h('td', { dataset: { col: name } }, String((byTier[tier] && byTier[tier][c]) || 0)))))));
  }

  /** Switches to `ns`: everything shown of the previous namespace goes, and the choice is kept. */
  function setNamespace(ns) {
    if (ns === state.ns) return;
    state.ns = ns;
    localStorage.setItem('rv.ns', ns);
    state.scan = null;
    state.memory = null;
    state.page = [];
    state.selected.clear();
    state.charts = state.growth = null;
    state.last = {};
    for (const id of ['hits', 'memory-list', 'review-list', 'suggestions', 'sessions-body', 'session-ids', 'memory-history',
      'memory-fields', 'ov-growth', 'chart-tiers']) clear($(id));
    for (const id of ['search-meta', 'list-total', 'list-note', 'page-info', 'bulk-status', 'cleanup-result',
      'end-session-result', 'memory-status', 'ov-growth-summary']) setStatus(id, '');
    $('q').value = '';
    $('end-session-id').value = '';
    $('memory-body').hidden = true;
    $('memory-missing').hidden = true;
    $('sessions').open = false;
    renderBulkBar();
    renderNamespaces();
    renderCounts();
    refreshStats(); // the picker's and the tables' counts, and the Review badge, of this namespace
  }

  /** "other…": asks for a namespace the stats do not list (one without memories yet). */
  async function askNamespace() {
    const input = h('input', { class: 'wide-input', maxlength: 128, 'aria-label': 'Namespace', dataset: { testid: 'other-ns' } });
    // Enter opens it (the form's first button, which Enter would press, is Cancel).
    input.addEventListener('keydown', (ev) => {
      if (ev.key !== 'Enter') return;
      ev.preventDefault();
      $('dialog').close('ok');
    });
    const answer = ask({ title: 'Open another namespace', ok: 'Open', body: [
      h('p', { class: 'muted small' }, 'The picker lists the namespaces that hold memories; name any other here ' +
        '(a new one is empty until something is stored in it).'), input] });
    input.focus();
    return (await answer) ? input.value.trim() : '';
  }

  async function changeNamespace() {
    let ns = $('ns-select').value;
    if (!ns) {
      ns = await askNamespace();
      if (!ns) {
        $('ns-select').value = state.ns;
        return;
      }
    }
    // The same view in the other namespace, without the filters, query or memory of this one.
    const view = state.view === 'memory' ? 'memories' : state.view || 'memories';
    setNamespace(ns);
    go(view, '', { ns });
  }

  /** The nav's Review badge: how many memories wait for a review (up to 100). */
  async function loadReviewCount() {
    const ns = state.ns;
    try {
      const data = await api('GET', '/v1/possible-updates?limit=100', undefined, ns);
      if (ns !== state.ns) return;
      const n = (data.pending || []).length;
      $('review-count').hidden = !n;
      $('review-count').textContent = n >= 100 ? '100+' : String(n);
    } catch (_) {
      $('review-count').hidden = true;
    }
  }

  // ==== 7a. Overview ===========================================================================

  async function loadOverview(params, ok) {
    const days = dayOption(params.get('days'), 30);
    fillDays($('ov-days'), days);
    $('ov-growth-ns').textContent = state.ns;
    const [stats, healthz, readyz, timeline] = await Promise.allSettled([
      loadStats(), probe('/healthz'), probe('/readyz'), api('GET', '/v1/timeline?days=' + days)]);
    if (!ok()) return;
    renderHealthCard(healthz, readyz, stats);
    renderStoreCard(stats);
    renderNamespaceTable();
    if (timeline.status === 'fulfilled') {
      state.growth = timeline.value;
      renderGrowth();
    } else {
      noData($('ov-growth'), `Growth unavailable: ${timeline.reason.message}`);
    }
    if (stats.status === 'rejected') throw stats.reason;
  }

  function fields(box, pairs) {
    clear(box, pairs.flatMap(([name, value, helpKey]) => [
      h('dt', null, name, helpKey ? help(helpKey) : null),
      h('dd', { dataset: { field: name } }, value)]));
  }

  function renderHealthCard(healthz, readyz, stats) {
    const up = healthz.status === 'fulfilled' && healthz.value.ok;
    const ready = readyz.status === 'fulfilled' && readyz.value.ok;
    const emb = (stats.status === 'fulfilled' && stats.value.embedding) ||
      (ready && readyz.value.data && readyz.value.data.embedding) || {};
    const good = (yes, text) => h('span', { class: yes ? 'ok' : 'bad' }, text);
    fields($('ov-health'), [
      ['server (/healthz)', good(up, up ? 'up' : healthz.status === 'fulfilled' ? `HTTP ${healthz.value.status}` : 'unreachable')],
      ['ready (/readyz)', good(ready, ready ? 'ready' : readyz.status === 'fulfilled'
        ? `not ready: ${(readyz.value.data && readyz.value.data.message) || 'HTTP ' + readyz.value.status}` : 'unreachable')],
      ['embedding', good(emb.status === 'ready', emb.status || '—')],
      ['model', emb.model ? `${emb.model}${emb.dimensions ? ` (${emb.dimensions} dimensions)` : ''}` : '—'],
      ['pending vectors', String(emb.pending ?? '—'), 'pending'],
      ['indexed vectors', String(emb.indexed_vectors ?? '—')],
    ]);
  }

  function renderStoreCard(stats) {
    const st = stats.status === 'fulfilled' ? stats.value : null;
    if (!st) return clear($('ov-store'), h('p', { class: 'bad' }, `Statistics unavailable: ${stats.reason.message}`));
    const hidden = String(st.store || '').startsWith('hidden');
    const tiers = st.tiers || [];
    fields($('ov-store'), [
      ['database', hidden ? h('span', { class: 'muted' }, 'shown to admin keys only') : st.store],
      ['size', hidden ? h('span', { class: 'muted' }, 'shown to admin keys only') : bytes(st.size_bytes)],
      ['namespaces', String(new Set(tiers.map((t) => t.namespace)).size)],
      ['memories', `${sumOf(tiers, 'live').toLocaleString('en-US')} live, ${sumOf(tiers, 'archived')} archived, ` +
        `${sumOf(tiers, 'superseded')} history, ${sumOf(tiers, 'expired')} expired`],
      ['vectors per model', (st.vectors_per_model || []).length
        ? st.vectors_per_model.map((v) => `${v.model}: ${v.vectors}`).join(', ') : '—'],
    ]);
  }

  function renderNamespaceTable() {
    const byNs = new Map();
    for (const t of (state.stats && state.stats.tiers) || []) {
      if (!byNs.has(t.namespace)) byNs.set(t.namespace, []);
      byNs.get(t.namespace).push(t);
    }
    if (state.granted) for (const n of state.granted) if (!byNs.has(n)) byNs.set(n, []);
    const live = (rows, tier) => sumOf(rows.filter((t) => t.memory_type === tier), 'live');
    const states = [['archived', 'archived', 'archived'], ['superseded', 'history', 'history'], ['expired', 'expired', 'expired']];
    clear($('ov-namespaces'),
      h('thead', null, h('tr', null, h('th', null, 'namespace'),
        TIERS.map((t) => h('th', { title: `live ${t} memories` }, t)),
        states.map(([, name, key]) => h('th', null, name, help(key))),
        h('th', null, 'total'))),
      h('tbody', null, [...byNs.keys()].sort().map((ns) => {
        const rows = byNs.get(ns);
        const total = ['live', 'archived', 'superseded', 'expired'].reduce((n, c) => n + sumOf(rows, c), 0);
        return h('tr', { class: ns === state.ns ? 'current' : null, dataset: { testid: 'ov-ns-row', ns } },
          h('td', null, h('a', { href: link('memories', '', { ns }) }, ns)),
          TIERS.map((t) => h('td', { dataset: { col: t } }, String(live(rows, t)))),
          states.map(([c, name]) => h('td', { dataset: { col: name } }, String(sumOf(rows, c)))),
          h('td', { dataset: { col: 'total' } }, String(total)));
      })));
  }

  function renderGrowth() {
    const data = state.growth;
    if (!data || $('view-overview').hidden) return;
    const days = Number(data.days) || 30;
    const rows = data.tiers || [];
    const per = Object.fromEntries(TIERS.map((t) => [t, rows.reduce((n, r) => n + (Number(r[t]) || 0), 0)]));
    const total = TIERS.reduce((n, t) => n + per[t], 0);
    const today = new Date().toISOString().slice(0, 10);
    const todays = rows.find((r) => r.day === today);
    setStatus('ov-growth-summary',
      `${plural(total, 'memory', 'memories')} in the last ${days} days (` +
      TIERS.map((t) => `${per[t]} ${t}`).join(', ') + `); ` +
      `${todays ? TIERS.reduce((n, t) => n + (Number(todays[t]) || 0), 0) : 0} today.`, 'plain');
    tierChart($('ov-growth'), everyDay(rows, days));
  }

  function dayOption(value, fallback) {
    const n = Number(value);
    return DAY_OPTIONS.includes(n) ? n : fallback;
  }

  function fillDays(select, days) {
    if (!select.options.length) {
      for (const d of DAY_OPTIONS) select.append(h('option', { value: d }, d === 366 ? '366 days (a year)' : `${d} days`));
    }
    select.value = String(days);
  }

  // ==== 7b. Browse =============================================================================

  /** Browse's filters from the URL. */
  function browseFilters(p) {
    return {
      text: p.get('text') || '', tier: p.get('tier') || '', session: p.get('session') || '',
      tag: p.get('tag') || '', from: p.get('from') || '', to: p.get('to') || '', sort: p.get('sort') || '',
      archived: p.get('archived') === '1', history: p.get('history') === '1',
      page: Math.max(1, parseInt(p.get('page'), 10) || 1),
    };
  }

  function fillBrowseForm(f) {
    $('f-text').value = f.text;
    $('f-tier').value = f.tier;
    $('f-session').value = f.session;
    $('f-tag').value = f.tag;
    $('f-from').value = f.from;
    $('f-to').value = f.to;
    $('f-sort').value = f.sort;
    $('f-archived').checked = f.archived;
    $('f-superseded').checked = f.history;
  }

  function readBrowseForm() {
    return {
      text: $('f-text').value.trim(), tier: $('f-tier').value, session: $('f-session').value.trim(),
      tag: $('f-tag').value.trim(), from: $('f-from').value, to: $('f-to').value, sort: $('f-sort').value,
      archived: $('f-archived').checked, history: $('f-superseded').checked,
    };
  }

  /** Local midnight of a yyyy-mm-dd input, plus `days`, as RFC 3339. */
  function dayStart(value, days = 0) {
    const [y, m, d] = value.split('-').map(Number);
    return new Date(y, m - 1, d + days).toISOString();
  }

  /** The filters the server applies, as a /v1/memories query. */
  function serverQuery(f) {
    const q = new URLSearchParams();
    if (f.tier) q.set('memory_type', f.tier);
    if (f.session) q.set('session_id', f.session);
    if (f.tag) q.set('tags', f.tag);
    if (f.archived) q.set('include_archived', 'true');
    if (f.history) q.set('include_superseded', 'true');
    if (f.from) q.set('occurred_after', dayStart(f.from));
    if (f.to) q.set('occurred_before', dayStart(f.to, 1));
    return q;
  }

  /** How many memories the filters match, from the stats, when the stats can tell. */
  function statsTotal(f) {
    if (f.session || f.tag || f.from || f.to || f.text) return null;
    if (f.history && !f.archived) return null; // history that is also archived is counted once, as history
    const rows = tiersOf(state.ns).filter((t) => !f.tier || t.memory_type === f.tier);
    return sumOf(rows, 'live') + (f.archived ? sumOf(rows, 'archived') : 0) + (f.history ? sumOf(rows, 'superseded') : 0);
  }

  /** Every memory the server's filters match (the newest SCAN_CAP at most), kept briefly for paging. */
  async function scanMemories(q) {
    const key = `${state.ns}?${q}`;
    if (state.scan && state.scan.key === key && Date.now() - state.scan.at < 30000) return state.scan;
    const items = [];
    let capped = false;
    for (let offset = 0; ; offset += SCAN_PAGE) {
      const page = new URLSearchParams(q);
      page.set('limit', String(SCAN_PAGE));
      page.set('offset', String(offset));
      const got = (await api('GET', '/v1/memories?' + page)).memories || [];
      items.push(...got);
      if (got.length < SCAN_PAGE) break;
      if (items.length >= SCAN_CAP) { capped = true; break; }
    }
    state.scan = { key, at: Date.now(), items, capped };
    return state.scan;
  }

  const SORTS = {
    oldest: (a, b) => a.occurred_at.localeCompare(b.occurred_at),
    stored: (a, b) => b.timestamp.localeCompare(a.timestamp),
    updated: (a, b) => b.updated_at.localeCompare(a.updated_at),
    recalled: (a, b) => b.access_count - a.access_count || b.occurred_at.localeCompare(a.occurred_at),
  };

  function matchesText(m, text) {
    const needle = text.toLowerCase();
    return [m.content, m.id, m.session_id || '', ...tagsOf(m)].some((v) => String(v).toLowerCase().includes(needle));
  }

  async function loadList(params, ok) {
    const f = browseFilters(params);
    fillBrowseForm(f);
    state.last.memories = location.hash;
    setStatus('list-total', 'Loading…');
    const q = serverQuery(f);
    const statsAnswer = loadStats().catch(() => null); // fresh counts for the total
    let memories, total, note = '';
    const known = f.text || SORTS[f.sort] ? null : (await statsAnswer, statsTotal(f));
    if (known !== null) {
      // The server pages; the stats count.
      q.set('limit', String(PAGE));
      q.set('offset', String((f.page - 1) * PAGE));
      let data;
      try { data = await api('GET', '/v1/memories?' + q); } catch (e) { return listFailed(e, ok); }
      memories = data.memories || [];
      total = Math.max(known, (f.page - 1) * PAGE + memories.length);
    } else {
      // A text filter, a sort or filters the stats cannot count: look through the matches here.
      let scan;
      try { scan = await scanMemories(q); } catch (e) { return listFailed(e, ok); }
      let items = f.text ? scan.items.filter((m) => matchesText(m, f.text)) : scan.items.slice();
      if (SORTS[f.sort]) items.sort(SORTS[f.sort]);
      total = items.length;
      memories = items.slice((f.page - 1) * PAGE, f.page * PAGE);
      if (scan.capped) note = `Text filter, sort and count cover the newest ${SCAN_CAP.toLocaleString('en-US')} memories that match the other filters.`;
    }
    if (!ok()) return;
    state.page = memories;
    const filtered = f.text || f.tier || f.session || f.tag || f.from || f.to;
    setStatus('list-total', `${total.toLocaleString('en-US')}${note ? '+' : ''} ${total === 1 ? 'memory' : 'memories'}` +
      `${filtered ? ' match' : ''}${f.archived ? ', archived included' : ''}${f.history ? ', history included' : ''}`, 'plain');
    setStatus('list-note', note, 'plain');
    clear($('memory-list'), memories.length ? memories.map(row)
      : h('div', { class: 'empty' }, total ? 'No memories on this page.' : 'No memories match.'));
    const pages = Math.max(1, Math.ceil(total / PAGE));
    $('prev-page').disabled = f.page <= 1;
    $('next-page').disabled = f.page >= pages;
    $('page-info').textContent = memories.length
      ? `${(f.page - 1) * PAGE + 1}–${(f.page - 1) * PAGE + memories.length} of ${total.toLocaleString('en-US')} · page ${f.page} of ${pages}` : '';
    renderBulkBar();
    if ($('sessions').open) loadSessions();
  }

  function listFailed(e, ok) {
    if (!ok()) return;
    setStatus('list-total', `Could not load the memories: ${e.message}`, 'error');
    clear($('memory-list'), h('div', { class: 'empty' }, 'Not loaded.'));
    $('page-info').textContent = '';
  }

  function browsePage(delta) {
    const f = browseFilters(parseHash().params);
    const page = f.page + delta;
    go('memories', '', { ...f, page: page > 1 ? page : '' });
  }

  function row(m) {
    const picked = state.selected.has(m.id);
    const box = h('input', { type: 'checkbox', class: 'pick', checked: picked, 'aria-label': 'Select',
      dataset: { testid: 'row-select', id: m.id } });
    box.addEventListener('change', () => select(m, box.checked));
    const el = h('div', { class: 'row' + (picked ? ' selected' : ''), dataset: { testid: 'memory-row', id: m.id } },
      box,
      badge(m.memory_type),
      h('div', { class: 'body' },
        h('a', { class: 'text', href: memoryHref(m.id), title: snippet(m.content, 600) }, snippet(m.content, 160)),
        chips(m)),
      h('span', { class: 'meta' },
        timeEl(m.occurred_at),
        h('span', { title: HELP.access }, `↻ ${m.access_count}`),
        m.archived && h('span', { class: 'badge flag', dataset: { testid: 'archived-flag' } }, 'archived'),
        m.superseded_by && h('span', { class: 'badge flag', title: 'Replaced by a newer memory' }, 'history'),
        (m.possible_updates || []).length
          ? h('a', { class: 'badge flag review', href: link('review'), title: HELP.possible }, 'review') : null));
    // The whole row opens the memory, except its own controls and links.
    el.addEventListener('click', (ev) => {
      if (ev.target.closest('a, button, input, label, details')) return;
      location.hash = memoryHref(m.id);
    });
    return el;
  }

  /** The memory's tags and session, each a link to Browse filtered by it. */
  function chips(m) {
    const tags = tagsOf(m);
    if (!tags.length && !m.session_id) return null;
    return h('span', { class: 'chips' },
      tags.map((t) => h('a', { class: 'chip', href: link('memories', '', { tag: t }), dataset: { testid: 'tag-chip' },
        title: `Memories tagged ${t}` }, '#' + t)),
      m.session_id ? h('a', { class: 'chip session', href: link('memories', '', { session: m.session_id }),
        dataset: { testid: 'session-chip' }, title: `Memories of session ${m.session_id}` }, 'session ' + m.session_id) : null);
  }

  // ---- Bulk actions on the selection ----

  function select(m, on) {
    if (on) state.selected.set(m.id, m);
    else state.selected.delete(m.id);
    const r = document.querySelector(`.row[data-id="${CSS.escape(m.id)}"]`);
    if (r) r.classList.toggle('selected', on);
    renderBulkBar();
  }

  function renderBulkBar() {
    const n = state.selected.size;
    $('bulk-bar').hidden = !n;
    $('bulk-count').textContent = `${n} selected`;
    const page = state.page;
    $('select-page').checked = page.length > 0 && page.every((m) => state.selected.has(m.id));
  }

  function selectPage(on) {
    for (const m of state.page) {
      state.selected[on ? 'set' : 'delete'](m.id, m);
      const box = document.querySelector(`[data-testid=row-select][data-id="${CSS.escape(m.id)}"]`);
      if (box) box.checked = on;
    }
    for (const r of document.querySelectorAll('#memory-list .row')) r.classList.toggle('selected', state.selected.has(r.dataset.id));
    renderBulkBar();
  }

  const BULK = {
    archive: { verb: 'Archive', done: 'Archived', path: '/v1/archive', changes: (m) => !m.archived,
      same: 'already archived', undo: 'restore', after: 'They leave recall; Restore (or Undo) brings them back.' },
    restore: { verb: 'Restore', done: 'Restored', path: '/v1/restore', changes: (m) => m.archived,
      same: 'not archived', undo: 'archive', after: 'They return to recall; Archive (or Undo) moves them back.' },
    delete: { verb: 'Delete', done: 'Deleted', changes: () => true,
      after: 'Deleting cannot be undone.' },
  };

  /** Previews what a bulk action will change, asks, does it, and offers Undo where there is one. */
  async function bulk(action) {
    const spec = BULK[action];
    const items = [...state.selected.values()];
    const changing = items.filter(spec.changes);
    const status = $('bulk-status');
    if (!changing.length) {
      await ask({ title: `Nothing to ${action}`, ok: null,
        body: h('p', null, `All ${plural(items.length, 'selected memory is', 'selected memories are')} ${spec.same}.`) });
      return;
    }
    const body = [
      h('p', null, `${spec.verb} ${plural(changing.length, 'memory', 'memories')} in namespace ${state.ns}` +
        (items.length > changing.length ? ` (${items.length - changing.length} ${spec.same}, left as they are)` : '') + ':'),
      memoryList(items, (m) => (spec.changes(m) ? `will be ${spec.done.toLowerCase()}` : `${spec.same}, unchanged`)),
      h('p', { class: action === 'delete' ? 'bad' : 'muted small' }, spec.after),
    ];
    const yes = await ask({ title: `${spec.verb} ${plural(changing.length, 'memory', 'memories')}?`, body,
      ok: `${spec.verb} ${changing.length}`, danger: action === 'delete' });
    if (!yes) return setStatus(status, 'Cancelled: nothing changed.');
    const ids = changing.map((m) => m.id);
    setStatus(status, `${spec.verb.replace(/e$/, '')}ing ${plural(ids.length, 'memory', 'memories')}…`);
    const { done, failed } = await applyBulk(action, ids);
    state.selected.clear();
    state.scan = null;
    refreshStats();
    const undoSpec = spec.undo && BULK[spec.undo];
    const undo = undoSpec && done.length ? h('button', { type: 'button', class: 'link', dataset: { testid: 'bulk-undo' } }, 'Undo') : null;
    if (undo) {
      undo.addEventListener('click', guard(async () => {
        undo.disabled = true;
        setStatus(status, `Undoing…`);
        const back = await applyBulk(spec.undo, done);
        state.scan = null;
        refreshStats();
        setStatus(status, back.failed.length ? `Undo failed for ${back.failed.length}: ${back.failed[0]}` : `Undone: ${undoSpec.done.toLowerCase()} ${plural(back.done.length, 'memory', 'memories')} again.`,
          back.failed.length ? 'error' : 'ok');
        route();
      }));
    }
    setStatus(status, `${spec.done} ${plural(done.length, 'memory', 'memories')}.` +
      (failed.length ? ` ${failed.length} failed: ${failed[0]}` : '') + ' ', failed.length ? 'error' : 'ok', undo);
    route();
  }

  /** Archive or restore in batches of 200 (the API's limit), or delete one by one. */
  async function applyBulk(action, ids) {
    const done = [], failed = [];
    if (action === 'delete') {
      for (const id of ids) {
        try {
          await api('DELETE', '/v1/memories/' + encodeURIComponent(id));
          done.push(id);
        } catch (e) { failed.push(`${short(id)}: ${e.message}`); }
      }
      return { done, failed };
    }
    for (let i = 0; i < ids.length; i += 200) {
      const batch = ids.slice(i, i + 200);
      try {
        await api('POST', BULK[action].path, { ids: batch });
        done.push(...batch);
      } catch (e) { failed.push(e.message); }
    }
    return { done, failed };
  }

  // ---- Sessions ----

  /** The namespace's sessions (from the newest SCAN_CAP memories), latest first; they also
   *  become the Lifecycle's suggestions for a session id. */
  async function sessionsOf() {
    const ns = state.ns;
    const scan = await scanMemories(new URLSearchParams({ include_archived: 'true' }));
    const sessions = new Map();
    for (const m of scan.items) {
      if (!m.session_id) continue;
      const x = sessions.get(m.session_id) || { id: m.session_id, count: 0, working: 0, last: '' };
      x.count += 1;
      if (m.memory_type === 'working') x.working += 1;
      if (m.occurred_at > x.last) x.last = m.occurred_at;
      sessions.set(m.session_id, x);
    }
    const list = [...sessions.values()].sort((a, b) => b.last.localeCompare(a.last));
    if (ns === state.ns) clear($('session-ids'), list.map((x) => h('option', { value: x.id })));
    return { ns, list, capped: scan.capped };
  }

  async function loadSessions() {
    const box = $('sessions-body');
    setStatus(box, 'Loading sessions…');
    let ns, list, capped;
    try {
      ({ ns, list, capped } = await sessionsOf());
    } catch (e) {
      return setStatus(box, `Could not load sessions: ${e.message}`, 'error');
    }
    if (ns !== state.ns) return;
    if (!list.length) {
      return setStatus(box, `No memory in ${ns} belongs to a session${capped ? ` (among the newest ${SCAN_CAP})` : ''}.`, 'plain');
    }
    box.dataset.kind = 'plain';
    const rows = list.map((x) => h('tr', { dataset: { testid: 'session-row', session: x.id } },
      h('td', null, h('a', { href: link('memories', '', { session: x.id }), class: 'mono' }, x.id)),
      h('td', null, String(x.count)),
      h('td', null, String(x.working)),
      h('td', null, when(x.last)),
      h('td', null, x.working ? h('a', { href: link('lifecycle', '', { session: x.id }) }, 'End…') : '')));
    clear(box,
      h('div', { class: 'scroll-x' }, h('table', { class: 'counts sessions-table' },
        h('thead', null, h('tr', null, ['session', 'memories', 'working', 'latest event', ''].map((c) => h('th', null, c)))),
        h('tbody', null, rows))),
      capped ? h('p', { class: 'muted small' }, `From the newest ${SCAN_CAP} memories.`) : null);
  }

  // ==== 7c. Search =============================================================================

  function searchFilters(p) {
    return {
      q: p.get('q') || '', tier: p.get('tier') || '', asof: p.get('asof') || '',
      top: p.get('top') || '10', floor: p.get('floor') || '',
      archived: p.get('archived') === '1', history: p.get('history') === '1',
    };
  }

  function fillSearchForm(f) {
    $('q').value = f.q;
    $('s-tier').value = f.tier;
    $('s-asof').value = f.asof;
    $('s-topk').value = f.top;
    $('s-floor').value = f.floor;
    $('s-archived').checked = f.archived;
    $('s-history').checked = f.history;
  }

  function readSearchForm() {
    return {
      q: $('q').value.trim(), tier: $('s-tier').value, asof: $('s-asof').value,
      top: $('s-topk').value === '10' ? '' : $('s-topk').value, floor: $('s-floor').value,
      archived: $('s-archived').checked, history: $('s-history').checked,
    };
  }

  async function enterSearch(params, ok) {
    const f = searchFilters(params);
    fillSearchForm(f);
    if (!f.q) {
      clear($('hits'));
      setStatus('search-meta', '');
      $('q').focus();
      return;
    }
    state.last.search = location.hash;
    await runSearch(f, ok);
  }

  async function runSearch(f, ok) {
    // count_access: false: looking from the console must not change heat (ranking).
    const body = { query: f.q, explain: true, top_k: Number(f.top) || 10, count_access: false };
    if (f.tier) body.memory_type = f.tier;
    if (f.asof && !Number.isNaN(new Date(f.asof).getTime())) body.as_of = new Date(f.asof).toISOString();
    if (f.floor !== '' && Number.isFinite(Number(f.floor))) body.min_relevance = Number(f.floor);
    if (f.archived) body.include_archived = true;
    if (f.history) body.include_superseded = true;
    clear($('hits'));
    setStatus('search-meta', 'Searching…');
    let data;
    try {
      data = await api('POST', '/v1/recall', body);
    } catch (e) {
      if (ok()) setStatus('search-meta', `Search failed: ${e.message}`, 'error');
      return;
    }
    if (!ok()) return;
    const hits = data.hits || [];
    const took = data.took_ms || {};
    const parts = [
      `${plural(hits.length, 'hit', 'hits')}`,
      `took ${num(took.embed, 1)} ms embed + ${num(took.search, 1)} ms search`,
      data.vector_search,
      data.as_of ? `as of ${when(data.as_of)}` : null,
      (data.query_terms || []).length ? `terms: ${data.query_terms.join(' ')}` : null,
    ].filter(Boolean).join(' · ');
    setStatus('search-meta', parts, 'plain',
      data.below_floor ? h('span', null, ` · ${data.below_floor} below the relevance floor `, help('floor')) : null);
    const scales = leafScales(hits);
    clear($('hits'), hits.length
      ? hits.map((hit, i) => renderHit(hit, i + 1, data.query_terms || [], scales))
      : h('li', { class: 'empty' }, 'Nothing relevant found.'));
  }

  function renderHit(hit, rank, terms, scales) {
    const m = hit.memory || {};
    const rows = scoreRows(hit.explanation);
    const replaced = rows.find((r) => r.older);
    const scoreHelp = replaced ? `${HELP.score}\n\nThis memory answers with the score of the older memory ` +
      `${replaced.older} it replaced${replaced.by ? ` (linked by ${replaced.by})` : ''}.` : HELP.score;
    return h('li', { class: 'hit', dataset: { testid: 'hit', id: m.id } },
      h('div', { class: 'hit-head' },
        h('span', null, `#${rank}`),
        h('span', { class: 'score', title: scoreHelp, dataset: { testid: 'hit-score' } }, num(hit.score, 4)),
        badge(m.memory_type),
        timeEl(m.occurred_at),
        m.archived && h('span', { class: 'badge flag' }, 'archived'),
        m.superseded_by && h('span', { class: 'badge flag' }, 'history'),
        replaced && h('span', { class: 'badge flag', title: HELP.replacedRow }, 'replaced an older memory'),
        hit.summarized && h('span', { class: 'badge flag' }, 'summary'),
        h('a', { href: memoryHref(m.id), class: 'open' }, 'open →')),
      h('p', { class: 'hit-content', dataset: { testid: 'hit-content' } }, highlight(m.content || '', terms)),
      rows.map((r) => h('div', { class: 'score-row', dataset: { testid: 'score-row', kind: r.older ? 'replaced' : 'own' } },
        r.label ? h('div', { class: 'row-label', dataset: { testid: 'score-row-label' } }, r.label,
          r.older ? [' ', memoryLink(r.older, short(r.older)), r.by ? ` · linked by ${r.by}` : ''] : null,
          ' ', help(r.older ? 'replacedRow' : 'ownRow')) : null,
        h('div', { class: 'bars', dataset: { testid: 'bars' } }, leaves(r.node).map((n) => bar(n, scales))))));
  }

  /** The rows of score bars of a hit: its own; or, for a memory answering in place of an older
   *  one it replaced, its own match (when it had one) and then the older memory's. The server
   *  says so in the explanation's root ("score of the superseded statement <id>, which this
   *  current one replaced (linked by <who: why>)"); the page words it as "replaced". */
  function scoreRows(root) {
    if (!root) return [];
    const m = /^score of the superseded statement ([0-9a-f-]{36})[^(]*(?:\(linked by (.*)\))?$/is.exec(root.description || '');
    if (!m) return [{ node: root }];
    const details = root.details || [];
    const older = { label: 'in place of the older memory it replaced', older: m[1], by: m[2] || '',
      node: details[details.length - 1] || root };
    return details.length > 1 ? [{ label: 'its own match', node: details[0] }, older] : [older];
  }

  /** The leaves of an explanation tree, depth first (the signals the score was made of). */
  function leaves(node, out = []) {
    if (!node) return out;
    if (!Array.isArray(node.details) || !node.details.length) out.push(node);
    else node.details.forEach((d) => leaves(d, out));
    return out;
  }

  /** A short name for a node, from the start of its description ("v = …", "heat = …", "cos: …"). */
  function label(node) {
    const word = String(node.description || '').trim().split(/[\s=:(]/)[0].toLowerCase();
    const names = { v: 'similarity', cos: 'similarity', vector: 'similarity', k: 'keywords', bm25: 'keywords',
      keyword: 'keywords', recency: 'recency', decay: 'recency', heat: 'heat' };
    return names[word] || word || 'value';
  }
  const FACTORS = new Set(['recency', 'heat']);

  /** What a leaf's bar shows: for similarity, the cosine itself (`cos 0.7647` in its
   * description), not its value scaled against the query's candidates, which is 1.000 for the
   * best vector match however unrelated; for the others, the value. */
  function shown(node, name) {
    if (name === 'similarity') {
      const cosine = /\bcos (-?\d+(?:\.\d+)?)/.exec(String(node.description || ''));
      if (cosine) return Number(cosine[1]);
    }
    return typeof node.value === 'number' ? node.value : 0;
  }

  /** Per leaf name, the largest value among the hits (to scale signals that are not 0..1). */
  function leafScales(hits) {
    const max = {};
    for (const hit of hits) {
      for (const n of leaves(hit.explanation)) {
        const name = label(n);
        max[name] = Math.max(max[name] || 0, shown(n, name));
      }
    }
    return max;
  }

  function bar(node, scales) {
    const name = label(node);
    const v = shown(node, name);
    let share;
    if (FACTORS.has(name)) {
      // A factor around 1: 1.0 sits at the middle tick, 1.3 fills the bar, below 1 shrinks to 0.
      share = v >= 1 ? 0.5 + (v - 1) / 0.6 : 0.5 * v;
    } else {
      const max = scales[name] || 0;
      // 0..1 signals as they are; others (rank fusions, raw bm25) against the best hit's value.
      share = max > 1 || (max > 0 && max < 0.1) ? v / max : v;
    }
    share = Math.max(0, Math.min(1, share || 0));
    const fill = h('span', { class: 'bar-fill' });
    fill.style.width = (share * 100).toFixed(1) + '%';
    return h('div', {
      class: 'bar' + (FACTORS.has(name) ? ' factor' : ''),
      title: `${HELP[name] ? HELP[name] + '\n\n' : ''}${node.description || name}`,
      dataset: { testid: 'bar', kind: name },
    },
    h('span', { class: 'bar-label' }, name),
    h('span', { class: 'bar-track' }, fill),
    h('span', { class: 'bar-value' }, num(v, 3)));
  }

  function escapeRegExp(text) {
    return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }

  /** `text` as nodes with every case-insensitive occurrence of `terms` in <mark> (overlaps merged). */
  function highlight(text, terms) {
    const spans = [];
    for (const term of new Set(terms.map((t) => String(t).trim()).filter(Boolean))) {
      const re = new RegExp(escapeRegExp(term), 'giu');
      let m;
      while ((m = re.exec(text))) {
        spans.push([m.index, m.index + m[0].length]);
        re.lastIndex = m.index + 1; // overlapping occurrences too
      }
    }
    spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
    const merged = [];
    for (const [a, b] of spans) {
      const last = merged[merged.length - 1];
      if (last && a <= last[1]) last[1] = Math.max(last[1], b);
      else merged.push([a, b]);
    }
    const frag = document.createDocumentFragment();
    let at = 0;
    for (const [a, b] of merged) {
      if (a > at) frag.append(document.createTextNode(text.slice(at, a)));
      frag.append(h('mark', null, text.slice(a, b)));
      at = b;
    }
    if (at < text.length) frag.append(document.createTextNode(text.slice(at)));
    return frag;
  }

  // ==== 7d. One memory =========================================================================

  // Shown elsewhere on the page (what replaced it, its possible updates), not as raw fields.
  const FIELDS = ['id', 'namespace', 'memory_type', 'session_id', 'occurred_at', 'timestamp', 'updated_at',
    'last_accessed_at', 'expires_at', 'ttl', 'access_count', 'archived', 'content_hash', 'summary', 'metadata'];
  const TIMES = new Set(['occurred_at', 'timestamp', 'updated_at', 'last_accessed_at', 'expires_at']);

  async function loadMemory(params, id, ok) {
    state.memory = null;
    $('memory-body').hidden = true;
    $('memory-missing').hidden = true;
    $('memory-loading').hidden = false;
    setStatus('memory-status', '');
    $('back-link').href = state.last.memories || link('memories');
    let memory;
    try {
      ({ memory } = await api('GET', '/v1/memories/' + encodeURIComponent(id)));
    } catch (e) {
      if (!ok()) return;
      $('memory-loading').hidden = true;
      // Only the message: no form or buttons of a memory that is not there.
      const missing = e.status === 404 || e.status === 400;
      clear($('memory-missing'),
        h('h2', null, missing ? 'Memory not found' : 'Memory not loaded'),
        h('p', { dataset: { testid: 'memory-missing-text' } }, missing
          ? `There is no memory ${id} in namespace ${state.ns}. It may have been deleted, or belong to another namespace.`
          : `Could not load memory ${id}: ${e.message}`),
        h('p', null, h('a', { href: state.last.memories || link('memories') }, '← Browse ' + state.ns)));
      $('memory-missing').hidden = false;
      return;
    }
    if (!ok()) return;
    $('memory-loading').hidden = true;
    renderMemory(memory);
    $('memory-body').hidden = false;
    await Promise.all([loadHistory(memory.id, ok), renderReplaced(memory, ok), renderPossible(memory, ok)]);
  }

  function fieldValue(m, key) {
    const v = m[key];
    if (v === null || v === undefined) return h('span', { class: 'muted' }, '—');
    if (key === 'memory_type') return badge(v);
    if (key === 'session_id') return h('a', { href: link('memories', '', { session: v }), class: 'mono' }, v);
    if (key === 'metadata') return h('pre', null, JSON.stringify(v, null, 2));
    if (key === 'ttl') return v === 0 ? '0 (never expires)' : `${v} s`;
    if (key === 'access_count') return h('span', { title: HELP.access }, `↻ ${v}`);
    if (TIMES.has(key)) return h('span', null, when(v), h('span', { class: 'muted' }, `  ${v}`));
    return String(v);
  }

  function renderMemory(m) {
    state.memory = m;
    $('memory-title').textContent = `Memory ${short(m.id)}`;
    $('memory-content').textContent = m.content;
    clear($('memory-fields'), FIELDS.flatMap((key) => [
      h('dt', null, key), h('dd', { dataset: { field: key } }, fieldValue(m, key))]));
    const tags = tagsOf(m);
    if (tags.length) {
      $('memory-fields').append(h('dt', null, 'tags'), h('dd', { dataset: { field: 'tags' } },
        tags.map((t) => [h('a', { class: 'chip', href: link('memories', '', { tag: t }) }, '#' + t), ' '])));
    }
    const sources = m.source_ids || [];
    clear($('memory-provenance'), sources.length
      ? h('ul', { dataset: { testid: 'source-ids' } }, sources.map((sid) => h('li', null, memoryLink(sid))))
      : h('p', { class: 'muted small' }, 'Not derived from other memories.'));
    $('edit-content').value = m.content;
    $('edit-tier').value = m.memory_type;
    $('edit-ttl').value = String(m.ttl);
    $('edit-tags').value = tags.join(', ');
    $('archive-btn').disabled = m.archived;
    $('restore-btn').disabled = !m.archived;
  }

  /** "Replaced by <newer> on <date> — linked by <made_by>: <reason>", and Unlink. */
  async function renderReplaced(m, ok) {
    const box = $('memory-replaced');
    if (!m.superseded_by) {
      box.hidden = true;
      return clear(box);
    }
    const newerLink = memoryLink(m.superseded_by, short(m.superseded_by));
    const quote = h('span', { class: 'quote' });
    const status = h('span', { class: 'small status', dataset: { testid: 'unlink-status' } });
    const unlink = h('button', { type: 'button', dataset: { testid: 'unlink-btn' } }, 'Unlink');
    unlink.addEventListener('click', guard(async () => {
      const yes = await ask({ title: 'Unlink: make this memory current again?', ok: 'Unlink',
        body: [h('p', null, 'It returns to recall and Browse, and the newer memory no longer replaces it:'),
          h('p', { class: 'quote-block' }, snippet(m.content, 200))] });
      if (!yes) return;
      unlink.disabled = true;
      setStatus(status, 'Unlinking…');
      try {
        const { memory } = await api('POST', '/v1/unlink', { id: m.id });
        state.scan = null;
        refreshStats();
        renderMemory(memory);
        await renderReplaced(memory, ok);
        setStatus('memory-status', 'Unlinked: this memory is current again.', 'ok');
      } catch (e) {
        unlink.disabled = false;
        setStatus(status, `Not unlinked: ${e.message}`, 'error');
      }
    }));
    const by = m.link ? `linked by ${m.link.made_by}: ${m.link.reason}` : 'linked by: not recorded';
    clear(box,
      h('p', { class: 'replaced-line', dataset: { testid: 'replaced-line' } },
        'Replaced by ', newerLink, ' ', quote, ` on ${when(m.invalid_at)} — ${by} `, help('madeBy')),
      h('p', { class: 'small muted' }, 'This memory is history: recall and Browse leave it out, and a recall that ' +
        'matches it answers with the newer memory instead.'),
      h('div', { class: 'actions' }, unlink, status));
    box.hidden = false;
    try {
      const { memory: newer } = await api('GET', '/v1/memories/' + encodeURIComponent(m.superseded_by));
      if (ok()) quote.textContent = `“${snippet(newer.content, 100)}”`;
    } catch (_) { /* the id alone says enough */ }
  }

  /** The memory's own possible updates, each to confirm or dismiss right here. */
  async function renderPossible(m, ok) {
    const box = $('memory-possible');
    const list = m.possible_updates || [];
    if (!list.length) {
      box.hidden = true;
      return clear(box);
    }
    const items = list.map((pu) => possibleItem(m, pu));
    clear(box, h('p', null, `This memory may replace ${plural(list.length, 'older memory', 'older memories')} `,
      '(not linked: its words do not say so plainly) ', help('possible')), items);
    box.hidden = false;
    // The record keeps only ids: fetch the older texts.
    await Promise.all(list.map(async (pu, i) => {
      try {
        const { memory } = await api('GET', '/v1/memories/' + encodeURIComponent(pu.id));
        if (ok()) items[i].querySelector('.old-text').textContent = memory.content;
      } catch (e) {
        if (ok()) items[i].querySelector('.old-text').textContent = `(not loaded: ${e.message})`;
      }
    }));
  }

  async function loadHistory(id, ok) {
    const box = $('memory-history');
    setStatus(box, 'Loading…');
    try {
      const { history } = await api('GET', `/v1/memories/${encodeURIComponent(id)}/history`);
      if (!ok()) return;
      box.dataset.kind = 'plain';
      clear(box, (history || []).length
        ? h('ol', { class: 'history', dataset: { testid: 'history-list' } }, history.map((old) =>
          h('li', { dataset: { testid: 'history-item', id: old.id } },
            h('div', { class: 'when' }, `${when(old.occurred_at)} → replaced ${when(old.invalid_at)} · `,
              memoryLink(old.id, short(old.id)),
              old.link ? ` · linked by ${old.link.made_by}: ${old.link.reason}` : ''),
            h('div', null, old.content))))
        : h('p', { class: 'muted small' }, 'It replaced no earlier memory or text.'));
    } catch (e) {
      if (ok()) setStatus(box, `History unavailable: ${e.message}`, 'error');
    }
  }

  async function saveMemory() {
    const m = state.memory;
    if (!m) return;
    const body = {};
    const content = $('edit-content').value;
    if (content !== m.content) body.content = content;
    if ($('edit-tier').value !== m.memory_type) body.memory_type = $('edit-tier').value;
    const ttl = $('edit-ttl').value.trim();
    if (ttl !== '' && Number(ttl) !== m.ttl) body.ttl = Number(ttl);
    const tags = $('edit-tags').value.split(/[,，]/).map((t) => t.trim()).filter(Boolean);
    if (tags.join('\n') !== tagsOf(m).join('\n')) {
      const metadata = { ...(m.metadata || {}) }; // other keys kept: PATCH replaces the whole object
      if (tags.length) metadata.tags = tags;
      else delete metadata.tags;
      body.metadata = metadata;
    }
    if (!Object.keys(body).length) return setStatus('memory-status', 'Nothing changed.');
    const ok = ticket();
    setStatus('memory-status', 'Saving…');
    $('save-btn').disabled = true;
    try {
      const { memory } = await api('PATCH', '/v1/memories/' + encodeURIComponent(m.id), body);
      if (!ok()) return;
      state.scan = null;
      renderMemory(memory);
      setStatus('memory-status', 'Saved.', 'ok');
      refreshStats();
      await loadHistory(memory.id, ok);
    } catch (e) {
      if (ok()) setStatus('memory-status', `Not saved: ${e.message}`, 'error');
    } finally {
      $('save-btn').disabled = false;
    }
  }

  async function archiveOrRestore(action) {
    const m = state.memory;
    if (!m) return;
    const ok = ticket();
    setStatus('memory-status', action === 'archive' ? 'Archiving…' : 'Restoring…');
    try {
      const { memories } = await api('POST', '/v1/' + action, { ids: [m.id] });
      if (!ok()) return;
      if (memories && memories[0]) renderMemory(memories[0]);
      state.scan = null;
      setStatus('memory-status', action === 'archive' ? 'Archived: out of recall until restored.' : 'Restored: back in recall.', 'ok');
      refreshStats();
    } catch (e) {
      if (ok()) setStatus('memory-status', `${action === 'archive' ? 'Not archived' : 'Not restored'}: ${e.message}`, 'error');
    }
  }

  async function deleteMemory() {
    const m = state.memory;
    if (!m) return;
    const yes = await ask({ title: 'Delete this memory for good?', ok: 'Delete', danger: true,
      body: [memoryList([m]), h('p', { class: 'bad' }, 'Deleting cannot be undone (Archive can).')] });
    if (!yes) return;
    setStatus('memory-status', 'Deleting…');
    try {
      await api('DELETE', '/v1/memories/' + encodeURIComponent(m.id));
    } catch (e) {
      return setStatus('memory-status', `Not deleted: ${e.message}`, 'error');
    }
    state.memory = null;
    state.scan = null;
    refreshStats();
    location.hash = state.last.memories || link('memories');
  }

  // ==== 7e. Review: possible updates ===========================================================

  async function loadReview(params, ok) {
    const page = Math.max(1, parseInt(params.get('page'), 10) || 1);
    setStatus('review-list', 'Loading…');
    let data;
    try {
      data = await api('GET', `/v1/possible-updates?limit=${REVIEW_PAGE + 1}&offset=${(page - 1) * REVIEW_PAGE}`);
    } catch (e) {
      if (ok()) setStatus('review-list', `Could not load the possible updates: ${e.message}`, 'error');
      return;
    }
    if (!ok()) return;
    const pending = (data.pending || []).slice(0, REVIEW_PAGE);
    $('review-list').dataset.kind = 'plain';
    clear($('review-list'), pending.length ? pending.map(reviewItem)
      : h('p', { class: 'empty', dataset: { testid: 'review-empty' } },
        page > 1 ? 'No more on this page.' : `Nothing to review in ${state.ns}: no memory lists a possible update.`));
    $('review-prev').disabled = page <= 1;
    $('review-next').disabled = (data.pending || []).length <= REVIEW_PAGE;
    $('review-page').textContent = pending.length || page > 1 ? `page ${page}` : '';
    if (page === 1) loadReviewCount();
  }

  function reviewItem(p) {
    const m = p.memory;
    return h('div', { class: 'card review-item', dataset: { testid: 'review-item', id: m.id } },
      h('div', { class: 'pair-new' },
        h('div', { class: 'pair-label' }, 'Newer ', badge(m.memory_type), ' ', timeEl(m.occurred_at), ' · ', memoryLink(m.id, short(m.id))),
        h('p', { class: 'pair-text', dataset: { testid: 'review-newer' } }, m.content)),
      (p.possible_updates || []).map((pu) => possibleItem(m, pu)));
  }

  /** One older memory the newer one may replace, with Confirm and Dismiss. */
  function possibleItem(newer, pu) {
    const status = h('span', { class: 'small status', dataset: { testid: 'pu-status' } });
    const confirm = h('button', { type: 'button', class: 'primary', dataset: { testid: 'pu-confirm' },
      title: 'The older memory becomes history, replaced by the newer one' }, 'Confirm: replaced');
    const dismiss = h('button', { type: 'button', dataset: { testid: 'pu-dismiss' },
      title: 'Not an update: take it off the list' }, 'Dismiss');
    const el = h('div', { class: 'pair-old', dataset: { testid: 'possible-update', id: pu.id, newer: newer.id } },
      h('div', { class: 'pair-label' }, 'May replace ', memoryLink(pu.id, short(pu.id)), ' · ',
        pu.similarity === null || pu.similarity === undefined ? 'keyword match (no vectors)' : `similarity ${num(pu.similarity, 2)}`,
        ' ', help('possible')),
      h('p', { class: 'pair-text old-text', dataset: { testid: 'review-older' } }, pu.content === undefined ? '…' : pu.content),
      h('p', { class: 'small muted' }, `Why: ${pu.why}`),
      h('div', { class: 'actions' }, confirm, dismiss, status));
    const act = async (body, pending, done, undoable) => {
      confirm.disabled = dismiss.disabled = true;
      setStatus(status, pending);
      try {
        await api('POST', '/v1/link', { id: newer.id, ...body });
      } catch (e) {
        confirm.disabled = dismiss.disabled = false;
        return setStatus(status, `Failed: ${e.message}`, 'error');
      }
      el.classList.add('done');
      state.scan = null;
      refreshStats();
      let undo = null;
      if (undoable) {
        undo = h('button', { type: 'button', class: 'link', dataset: { testid: 'pu-undo' } }, 'Undo');
        undo.addEventListener('click', async () => {
          undo.disabled = true;
          setStatus(status, 'Unlinking…');
          try {
            await api('POST', '/v1/unlink', { id: pu.id });
            refreshStats();
            setStatus(status, 'Undone: the older memory is current again.', 'ok');
          } catch (e) {
            undo.disabled = false;
            setStatus(status, `Undo failed: ${e.message}`, 'error', ' ', undo);
          }
        });
      }
      setStatus(status, done, 'ok', ' ', undo);
    };
    confirm.addEventListener('click', () => act({ supersedes: [pu.id] }, 'Linking…',
      'Confirmed: the older memory is now history, replaced by the newer one.', true));
    dismiss.addEventListener('click', () => act({ dismiss: [pu.id] }, 'Dismissing…',
      'Dismissed: not an update; both stay current.', false));
    return el;
  }

  // ==== 7f. Lifecycle ==========================================================================

  function enterLifecycle(params) {
    const sid = params.get('session');
    if (sid) $('end-session-id').value = sid;
    sessionsOf().catch(() => {}); // only suggestions for the session id: typing one works without them
  }

  async function cleanupPreview() {
    const el = $('cleanup-result');
    setStatus(el, 'Counting expired memories…');
    try { await loadStats(); } catch (e) { return setStatus(el, `Could not count: ${e.message}`, 'error'); }
    const rows = tiersOf(state.ns);
    const n = sumOf(rows, 'expired');
    if (!n) return setStatus(el, `Nothing to clean up: no expired memories in ${state.ns}.`, 'ok');
    const yes = await ask({ title: `Delete ${plural(n, 'expired memory', 'expired memories')}?`, danger: true, ok: `Delete ${n}`,
      body: [h('p', null, `Cleanup deletes for good the memories of namespace ${state.ns} that are past their TTL ` +
        '(already out of recall):'),
      h('ul', { dataset: { testid: 'cleanup-preview' } }, rows.filter((t) => t.expired).map((t) =>
        h('li', null, badge(t.memory_type), ` ${t.expired} expired`)))] });
    if (!yes) return setStatus(el, 'Cancelled: nothing deleted.');
    setStatus(el, 'Cleaning up…');
    try {
      const data = await api('POST', '/v1/cleanup', { namespace: state.ns });
      setStatus(el, `Deleted ${plural(data.cleaned, 'expired memory', 'expired memories')} in ${data.namespace || state.ns}.`, 'ok');
      state.scan = null;
      refreshStats();
    } catch (e) {
      setStatus(el, `Cleanup failed: ${e.message}`, 'error');
    }
  }

  async function endSessionPreview() {
    const sid = $('end-session-id').value.trim();
    const el = $('end-session-result');
    if (!sid) return;
    setStatus(el, `Looking up session ${sid}…`);
    let working;
    try {
      const q = new URLSearchParams({ session_id: sid, memory_type: 'working', limit: '1000' });
      working = (await api('GET', '/v1/memories?' + q)).memories || [];
    } catch (e) {
      return setStatus(el, `Could not look up the session: ${e.message}`, 'error');
    }
    if (!working.length) return setStatus(el, `Session ${sid} has no working memories in ${state.ns}: nothing to end.`);
    const yes = await ask({ title: `End session ${sid}?`, ok: 'End session',
      body: [h('p', null, `Its ${working.length === 1 ? 'working memory becomes an episode'
        : `${working.length} working memories become episodes`} (greetings and acknowledgements are skipped), ` +
        `and then ${working.length === 1 ? 'expires' : 'expire'}:`), memoryList(working)] });
    if (!yes) return setStatus(el, 'Cancelled: the session goes on.');
    setStatus(el, 'Ending the session…');
    let data;
    try {
      data = await api('POST', '/v1/sessions/end', { session_id: sid, namespace: state.ns });
    } catch (e) {
      return setStatus(el, `Session not ended: ${e.message}`, 'error');
    }
    const episodes = data.episodes || [];
    setStatus(el, `${plural(data.working_memories, 'working memory', 'working memories')}, ` +
      `${data.small_talk} small talk, ${plural(episodes.length, 'episode', 'episodes')} ` +
      `(${data.method}${data.model ? ', ' + data.model : ''}).`, 'ok',
    episodes.length ? h('ul', null, episodes.map((e) => h('li', null,
      memoryLink(e.memory.id, short(e.memory.id)), ' ', snippet(e.memory.content, 160)))) : null);
    state.scan = null;
    refreshStats();
  }

  async function suggest() {
    const body = {
      min_size: Number($('sg-min').value) || 3,
      limit: Number($('sg-limit').value) || 10,
    };
    if ($('sg-threshold').value !== '') body.threshold = Number($('sg-threshold').value);
    const box = $('suggestions');
    setStatus(box, 'Looking for groups…');
    let data;
    try {
      // Grouping compares vectors: without an embedding model the server can only refuse.
      const emb = (await loadStats()).embedding || {};
      if (emb.status !== 'ready') {
        return setStatus(box, `No suggestions: grouping compares the episodes' vectors, and this server has ` +
          `no embedding model ready (${emb.status || 'status unknown'}).`, 'error');
      }
      data = await api('POST', '/v1/suggest-distillations', body);
    } catch (e) {
      return setStatus(box, `No suggestions: ${e.message}`, 'error');
    }
    const groups = data.suggestions || [];
    box.dataset.kind = 'plain';
    clear(box, groups.length ? groups.map(group)
      : h('p', { class: 'muted small', dataset: { testid: 'no-suggestions' } },
        'No groups of similar episodes (try a lower threshold or min size).'));
  }

  function group(g, i) {
    const ids = g.episode_ids || [];
    const previews = g.previews || [];
    const instruction = h('input', { placeholder: 'instruction (optional)', dataset: { testid: 'distil-instruction' } });
    const originals = h('select', { dataset: { testid: 'distil-originals' } },
      h('option', { value: 'archive' }, 'archive originals'),
      h('option', { value: 'keep' }, 'keep originals'),
      h('option', { value: 'delete' }, 'delete originals'));
    const result = h('div', { class: 'small status', dataset: { testid: 'distil-result' } });
    const button = h('button', { type: 'button', class: 'primary', dataset: { testid: 'distil-btn' } }, 'Distil…');
    button.addEventListener('click', async () => {
      const body = { episode_ids: ids, originals: originals.value };
      if (instruction.value.trim()) body.instruction = instruction.value.trim();
      button.disabled = true;
      try {
        // First the dry run: the text that would be stored (by the LLM, or extracted), shown
        // before anything is written; then the real run only on a yes.
        setStatus(result, 'Preparing a preview…');
        const p = (await api('POST', '/v1/summarize', { ...body, dry_run: true })).preview;
        setStatus(result, '');
        const ok = await ask({ title: 'Store this as one semantic memory?', ok: 'Distil',
          body: [h('p', { class: 'muted small' }, `Written by ${p.method}${p.model ? ', ' + p.model : ''}; ` +
            `then ${originals.value} the ${ids.length} originals.`),
          h('p', { class: 'quote-block', dataset: { testid: 'distil-preview' } }, p.content)] });
        if (!ok) return setStatus(result, 'Cancelled: nothing stored.');
        setStatus(result, 'Distilling…');
        const d = await api('POST', '/v1/summarize', body);
        setStatus(result, d.already_existed ? 'Already distilled: ' : 'Distilled into ', 'ok', memoryLink(d.memory.id),
          ` (${d.method}${d.model ? ', ' + d.model : ''}; ${d.originals_changed} originals changed).`);
        state.scan = null;
        refreshStats();
      } catch (e) {
        setStatus(result, `Not distilled: ${e.message}`, 'error');
      } finally { button.disabled = false; }
    });
    return h('div', { class: 'group', dataset: { testid: 'suggestion', index: i } },
      h('div', { class: 'small muted' }, `Group ${i + 1} · ${ids.length} episodes · cohesion ${num(g.cohesion, 3)} `, help('cohesion')),
      h('ul', null, previews.map((p, j) => h('li', null, p, ' ', ids[j] ? memoryLink(ids[j], '↗') : null))),
      h('div', { class: 'toolbar' }, instruction, originals, button),
      result);
  }

  // ==== 7g. Charts =============================================================================

  async function loadCharts(params, ok) {
    const days = dayOption(params.get('days'), 30);
    fillDays($('chart-days'), days);
    const data = await api('GET', '/v1/timeline?days=' + days);
    if (!ok()) return;
    state.charts = data;
    drawCharts();
  }

  function drawCharts() {
    const data = state.charts;
    if (data && !$('view-charts').hidden) {
      tierChart($('chart-tiers'), everyDay(data.tiers || [], Number(data.days) || 30));
      latencyChart($('chart-latency'), data.recall_latency || []);
    }
    renderGrowth();
  }

  // ==== 7h. API keys ===========================================================================

  async function loadKeys(params, ok) {
    $('keys-denied').hidden = true;
    let data;
    try {
      data = await api('GET', '/v1/keys');
    } catch (e) {
      if (!ok()) return;
      if (e.status !== 403) throw e;
      $('keys-body').hidden = true;
      const change = h('button', { type: 'button', dataset: { testid: 'keys-use-other' } }, 'Use another key');
      change.addEventListener('click', () => $('key-button').click());
      clear($('keys-denied'),
        h('h3', null, 'This page needs an admin key'),
        h('p', { dataset: { testid: 'keys-denied-text' } },
          `The server refused to list API keys (403 Forbidden: ${e.message}). ` +
          (state.granted ? `The key in use is limited to ${state.granted.join(', ')}.` : '')),
        h('p', null, change));
      $('keys-denied').hidden = false;
      return;
    }
    if (!ok()) return;
    $('keys-body').hidden = false;
    if (!$('nk-namespaces').value) $('nk-namespaces').value = state.ns;
    renderKeys(data.keys || []);
  }

  function keyState(k) {
    if (k.revoked_at) return ['revoked', `revoked ${when(k.revoked_at)}`];
    if (!k.active) return ['expired', `expired ${when(k.expires_at)}`];
    return ['active', 'active'];
  }

  function renderKeys(keys) {
    clear($('keys-list'), keys.length ? h('div', { class: 'key-rows' }, keys.map((k) => {
      const [kind, text] = keyState(k);
      const revoke = kind === 'active'
        ? h('button', { type: 'button', class: 'danger', dataset: { testid: 'key-revoke', id: k.id } }, 'Revoke…') : null;
      if (revoke) revoke.addEventListener('click', guard(() => revokeKey(k)));
      return h('div', { class: 'key-row ' + kind, dataset: { testid: 'key-row', id: k.id, state: kind } },
        h('div', null, h('code', null, k.id), ' ', h('b', null, k.label || ''), h('div', { class: 'small muted' },
          `created ${when(k.created_at)} · ${k.expires_at ? 'expires ' + when(k.expires_at) : 'never expires'}`)),
        h('div', { class: 'small' }, k.admin ? h('span', { class: 'badge flag admin' }, 'admin: every namespace')
          : (k.namespaces || []).map((n) => h('span', { class: 'chip' }, n))),
        h('div', { class: 'small key-state' }, h('span', { class: 'badge flag ' + kind }, text)),
        h('div', null, revoke));
    })) : h('p', { class: 'muted' }, 'No API keys yet.'));
  }

  async function createKey() {
    const namespaces = $('nk-namespaces').value.split(/[,，\s]+/).map((n) => n.trim()).filter(Boolean);
    const admin = $('nk-admin').checked;
    const label = $('nk-label').value.trim();
    const days = $('nk-days').value.trim();
    if (!admin && !namespaces.length) return setStatus('nk-status', 'Name at least one namespace, or tick admin.', 'error');
    const body = { namespaces: admin ? [] : namespaces, admin };
    if (label) body.label = label;
    if (days) body.expires_in_days = Number(days);
    setStatus('nk-status', 'Creating…');
    let key;
    try {
      key = await api('POST', '/v1/keys', body);
    } catch (e) {
      return setStatus('nk-status', `Not created: ${e.message}`, 'error');
    }
    setStatus('nk-status', `Created ${key.id}${key.label ? ' (' + key.label + ')' : ''}.`, 'ok');
    $('new-secret-value').textContent = key.key;
    setStatus('copy-status', '');
    $('new-secret').hidden = false;
    $('nk-label').value = '';
    $('nk-days').value = '';
    const ok = ticket();
    const { keys } = await api('GET', '/v1/keys');
    if (ok()) renderKeys(keys || []);
  }

  function hideSecret() {
    $('new-secret-value').textContent = '';
    $('new-secret').hidden = true;
  }

  async function copySecret() {
    const text = $('new-secret-value').textContent;
    try {
      await navigator.clipboard.writeText(text);
      setStatus('copy-status', 'Copied to the clipboard.', 'ok');
    } catch (_) {
      // No clipboard access (an insecure origin, a denied permission): select it for Ctrl+C.
      const range = document.createRange();
      range.selectNodeContents($('new-secret-value'));
      const sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      const copied = document.execCommand && document.execCommand('copy');
      setStatus('copy-status', copied ? 'Copied to the clipboard.' : 'Selected: press Ctrl+C (⌘C) to copy.', copied ? 'ok' : 'pending');
    }
  }

  async function revokeKey(k) {
    const yes = await ask({ title: `Revoke key ${k.id}?`, ok: 'Revoke', danger: true,
      body: [h('p', null, `${k.label ? `“${k.label}”, ` : ''}${k.admin ? 'an admin key' : 'for ' + (k.namespaces || []).join(', ')}.`),
        h('p', { class: 'bad' }, 'Every program using it is refused from its next request. This cannot be undone.')] });
    if (!yes) return;
    setStatus('keys-status', `Revoking ${k.id}…`);
    try {
      await api('POST', `/v1/keys/${encodeURIComponent(k.id)}/revoke`);
    } catch (e) {
      return setStatus('keys-status', `Not revoked: ${e.message}`, 'error');
    }
    setStatus('keys-status', `Revoked ${k.id}.`, 'ok');
    const { keys } = await api('GET', '/v1/keys');
    renderKeys(keys || []);
  }

  // ==== 8. Charts drawing ======================================================================

  /** The timeline lists only days with memories: fill in the empty ones (UTC days up to today). */
  function everyDay(rows, days) {
    const byDay = new Map(rows.map((r) => [String(r.day), r]));
    const DAY = 86400000;
    const today = Math.floor(Date.now() / DAY) * DAY;
    const parsed = rows.map((r) => Date.parse(r.day + 'T00:00:00Z')).filter((t) => !Number.isNaN(t));
    const start = Math.min(today - (days - 1) * DAY, ...parsed);
    const end = Math.max(today, ...parsed);
    const out = [];
    for (let t = start; t <= end && out.length < 1000; t += DAY) {
      const day = new Date(t).toISOString().slice(0, 10);
      out.push(byDay.get(day) || { day });
    }
    return out;
  }

  // The drawing is as wide as its box (so text keeps its size); redrawn when the window resizes.
  const H = 180, PAD = { l: 44, r: 12, t: 10, b: 22 };

  /** The axis' top: the first of 1, 2, 4, 6, 8, 10 (× a power of ten) at or above `v`, so that
   *  the middle grid line is a round number too. */
  function niceTop(v) {
    const power = 10 ** Math.floor(Math.log10(v));
    return [1, 2, 4, 6, 8, 10].map((m) => m * power).find((top) => top >= v - 1e-9);
  }

  function frame(box, maxY, unit) {
    const W = Math.max(280, Math.round(box.clientWidth || 640));
    const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img' });
    for (const f of [0, 0.5, 1]) {
      const y = PAD.t + (1 - f) * (H - PAD.t - PAD.b);
      svg.append(s('line', { class: 'grid', x1: PAD.l, x2: W - PAD.r, y1: y, y2: y }),
        s('text', { class: 'axis', x: PAD.l - 4, y: y + 3, 'text-anchor': 'end' },
          `${+(maxY * f).toPrecision(3)}${unit}`));
    }
    clear(box, svg);
    return { svg, W };
  }

  function noData(box, text) {
    clear(box, h('p', { class: 'empty', dataset: { testid: 'chart-empty' } }, text));
  }

  function tierChart(box, days) {
    const total = (d) => TIERS.reduce((n, t) => n + (Number(d[t]) || 0), 0);
    if (!days.some(total)) return noData(box, 'No memories in this period.');
    const maxY = niceTop(Math.max(2, ...days.map(total)));
    const { svg, W } = frame(box, maxY, '');
    svg.setAttribute('aria-label', 'Memories per day of their event, by tier');
    const plotH = H - PAD.t - PAD.b;
    const step = (W - PAD.l - PAD.r) / days.length;
    const long = days.length > 60; // a long period: dates with their year
    days.forEach((d, i) => {
      let y = PAD.t + plotH;
      const x = PAD.l + i * step + step * 0.15;
      const tip = `${d.day}: ` + TIERS.map((t) => `${t} ${d[t] || 0}`).join(', ');
      for (const t of TIERS) {
        const hgt = ((Number(d[t]) || 0) / maxY) * plotH;
        if (hgt <= 0) continue;
        y -= hgt;
        svg.append(s('rect', { class: 'tier-' + t, x, y, width: Math.max(1, step * 0.7), height: hgt,
          'data-testid': 'tier-bar' }, s('title', null, tip)));
      }
      if (i === 0 || i === days.length - 1 || (days.length > 8 && i === Math.floor(days.length / 2))) {
        const anchor = i === 0 ? 'start' : i === days.length - 1 ? 'end' : 'middle';
        svg.append(s('text', { class: 'axis', x: i === 0 ? PAD.l : i === days.length - 1 ? W - PAD.r : PAD.l + (i + 0.5) * step,
          y: H - 6, 'text-anchor': anchor }, long ? String(d.day) : String(d.day).slice(5)));
      }
    });
  }

  function latencyChart(box, points) {
    const pts = points.filter((p) => !Number.isNaN(Date.parse(p.minute)));
    if (!pts.length) return noData(box, 'No recalls in the last hour (the server shares its latency with admin keys only).');
    const maxY = niceTop(Math.max(0.1, ...pts.map((p) => Number(p.p99_ms) || 0), ...pts.map((p) => Number(p.p50_ms) || 0)));
    const { svg, W } = frame(box, maxY, ' ms');
    svg.setAttribute('aria-label', 'Recall latency per minute, p50 and p99');
    const t0 = Date.parse(pts[0].minute), t1 = Date.parse(pts[pts.length - 1].minute);
    const x = (p) => PAD.l + 6 + (t1 > t0 ? (Date.parse(p.minute) - t0) / (t1 - t0) : 0.5) * (W - PAD.l - PAD.r - 12);
    const y = (v) => PAD.t + (1 - (Number(v) || 0) / maxY) * (H - PAD.t - PAD.b);
    for (const key of ['p99_ms', 'p50_ms']) {
      const cls = key === 'p50_ms' ? 'lat-p50' : 'lat-p99';
      if (pts.length > 1) {
        svg.append(s('polyline', { class: 'line ' + cls, points: pts.map((p) => `${x(p)},${y(p[key])}`).join(' ') }));
      }
      for (const p of pts) {
        svg.append(s('circle', { class: cls, cx: x(p), cy: y(p[key]), r: 2.5, 'data-testid': 'latency-point' },
          s('title', null, `${when(p.minute)}: ${p.count} recalls, p50 ${num(p.p50_ms, 1)} ms, p99 ${num(p.p99_ms, 1)} ms`)));
      }
    }
    const ends = pts.length > 1 ? [pts[0], pts[pts.length - 1]] : [pts[0]];
    ends.forEach((p, i) => {
      const anchor = pts.length === 1 ? 'middle' : i === 0 ? 'start' : 'end';
      svg.append(s('text', { class: 'axis', x: x(p), y: H - 6, 'text-anchor': anchor }, when(p.minute).slice(11)));
    });
  }

  // ==== 9. Routing and start-up ================================================================

  const VIEWS = {
    overview: loadOverview,
    memories: loadList,
    search: enterSearch,
    memory: (params, ok, arg) => loadMemory(params, arg, ok),
    review: loadReview,
    lifecycle: enterLifecycle,
    charts: loadCharts,
    keys: loadKeys,
  };

  function route() {
    generation += 1;
    const ok = ticket();
    clearError();
    let { view, arg, params } = parseHash();
    if (!VIEWS[view] || (view === 'memory' && !arg)) {
      view = 'memories';
      arg = '';
    }
    // The namespace is part of the URL: a shared link opens in its namespace.
    const urlNs = params.get('ns');
    if (urlNs && urlNs !== state.ns) {
      if (allowed(urlNs)) setNamespace(urlNs);
      else showError(new Error(`This key may not use namespace ${urlNs} (it may use ${state.granted.join(', ')}); showing ${state.ns}.`));
    }
    if (urlNs !== state.ns) {
      params.set('ns', state.ns);
      history.replaceState(null, '', link(view, arg, Object.fromEntries(params)));
    }
    if (view !== state.view) {
      setStatus('bulk-status', '');
      hideSecret();
      for (const d of document.querySelectorAll('details.help[open]')) d.open = false;
    }
    state.view = view;
    for (const section of document.querySelectorAll('main > section')) {
      section.hidden = section.id !== 'view-' + view;
    }
    for (const a of document.querySelectorAll('#nav a')) {
      const v = a.dataset.view;
      a.href = (v === 'memories' || v === 'search') && state.last[v] && v !== view ? state.last[v] : link(v);
      if (v === view || (view === 'memory' && v === 'memories')) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
    document.querySelector('.brand').href = link('memories');
    document.body.dataset.view = view;
    Promise.resolve()
      .then(() => VIEWS[view](params, ok, arg))
      .catch((e) => { if (ok()) showError(e); });
  }

  let booted = false;

  async function boot() {
    const { view, params } = parseHash();
    checkHealth();
    try {
      await loadStats();
    } catch (e) {
      showError(e);
    }
    const ns = firstNamespace(view ? params.get('ns') : null);
    if (ns !== state.ns) setNamespace(ns);
    else { renderNamespaces(); renderCounts(); loadReviewCount(); }
    if (!booted) {
      booted = true;
      window.addEventListener('hashchange', route);
      setInterval(() => { if (!document.hidden) checkHealth(); }, 15000);
    }
    route();
  }

  function bind() {
    fillHelpSlots();
    bindHelp();
    $('key-form').addEventListener('submit', submitKey);
    $('key-forget').addEventListener('click', () => {
      sessionStorage.removeItem('rv.key');
      $('key-input').value = '';
      if (!keyPrompt) { // opened from the header: carry on without a key (a loopback server without keys)
        $('key-view').hidden = true;
        boot();
      }
    });
    $('key-button').addEventListener('click', () => {
      $('key-message').textContent = 'Enter the key to use for this tab.';
      $('key-view').hidden = false;
      $('key-input').focus();
    });
    $('error-close').addEventListener('click', clearError);
    $('ns-select').addEventListener('change', changeNamespace);

    // Forms navigate; the view then reads its state from the URL.
    $('filters').addEventListener('submit', guard(() => go('memories', '', readBrowseForm())));
    $('f-reset').addEventListener('click', () => go('memories', '', {}));
    $('f-sort').addEventListener('change', () => go('memories', '', readBrowseForm()));
    $('prev-page').addEventListener('click', () => browsePage(-1));
    $('next-page').addEventListener('click', () => browsePage(1));
    $('select-page').addEventListener('change', () => selectPage($('select-page').checked));
    $('bulk-archive').addEventListener('click', guard(() => bulk('archive')));
    $('bulk-restore').addEventListener('click', guard(() => bulk('restore')));
    $('bulk-delete').addEventListener('click', guard(() => bulk('delete')));
    $('bulk-clear').addEventListener('click', () => { state.selected.clear(); selectPage(false); });
    $('sessions').addEventListener('toggle', () => { if ($('sessions').open) loadSessions(); });

    $('search-form').addEventListener('submit', guard(() => go('search', '', readSearchForm())));

    $('edit-form').addEventListener('submit', guard(saveMemory));
    $('archive-btn').addEventListener('click', guard(() => archiveOrRestore('archive')));
    $('restore-btn').addEventListener('click', guard(() => archiveOrRestore('restore')));
    $('delete-btn').addEventListener('click', guard(deleteMemory));

    const reviewPage = (delta) => {
      const page = Math.max(1, (parseInt(parseHash().params.get('page'), 10) || 1) + delta);
      go('review', '', { page: page > 1 ? page : '' });
    };
    $('review-prev').addEventListener('click', () => reviewPage(-1));
    $('review-next').addEventListener('click', () => reviewPage(1));

    $('cleanup-btn').addEventListener('click', guard(cleanupPreview));
    $('end-session-form').addEventListener('submit', guard(endSessionPreview));
    $('suggest-form').addEventListener('submit', guard(suggest));

    $('chart-days').addEventListener('change', () => go('charts', '', { days: $('chart-days').value }));
    $('chart-refresh').addEventListener('click', () => route());
    $('ov-days').addEventListener('change', () => go('overview', '', { days: $('ov-days').value }));

    $('key-create-form').addEventListener('submit', guard(createKey));
    $('copy-secret').addEventListener('click', copySecret);
    $('hide-secret').addEventListener('click', hideSecret);

    let resize = null;
    window.addEventListener('resize', () => {
      clearTimeout(resize);
      resize = setTimeout(drawCharts, 150);
    });
  }

  document.addEventListener('DOMContentLoaded', () => {
    bind();
    boot();
  });
})();
