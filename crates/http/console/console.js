// rearview console: one page over the REST API (/v1). Plain ES2020, no dependencies, served under
// a strict CSP (no inline scripts, handlers or style attributes). Every piece of stored data is put
// into the page with textContent / createElement, never as HTML.
'use strict';

(() => {
  const $ = (id) => document.getElementById(id);
  const TIERS = ['working', 'episodic', 'semantic'];
  const PAGE = 20;
  const SVGNS = 'http://www.w3.org/2000/svg';
  const state = {
    ns: sessionStorage.getItem('rv.ns') || 'default',
    offset: 0,
    memory: null, // the memory shown in the memory view
    stats: null,
    timeline: null, // the last /v1/timeline answer, redrawn on resize
  };

  // ---- DOM helpers ----------------------------------------------------------------------------

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
      else el.setAttribute(k, v === true ? '' : String(v));
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return el;
  }

  function clear(el, ...children) {
    el.replaceChildren();
    for (const c of children.flat()) if (c) el.append(c);
    return el;
  }

  const memoryHref = (id) => '#/memory/' + encodeURIComponent(id);
  const memoryLink = (id, text) => h('a', { href: memoryHref(id), class: 'mono', dataset: { id } }, text || id);
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

  // ---- API ------------------------------------------------------------------------------------

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

  /** One REST call; a 401 asks for a key and retries. Errors throw ApiError with the server's message. */
  async function api(method, path, body) {
    for (;;) {
      const headers = { 'X-Rearview-Namespace': state.ns, Accept: 'application/json' };
      const key = sessionStorage.getItem('rv.key');
      if (key) headers.Authorization = 'Bearer ' + key;
      if (body !== undefined) headers['Content-Type'] = 'application/json';
      let res;
      try {
        res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      } catch (e) {
        throw new ApiError(0, 'network', `${method} ${path}: ${e.message}`);
      }
      if (res.status === 401) {
        const data = await readJson(res);
        await askKey(key ? `The key was refused: ${(data && data.message) || 'unauthorized'}` : 'This server needs an API key.');
        continue;
      }
      if (res.status === 204) return null;
      const data = await readJson(res);
      if (!res.ok) {
        throw new ApiError(res.status, (data && data.code) || 'http_' + res.status,
          (data && data.message) || `${method} ${path}: HTTP ${res.status}`);
      }
      return data;
    }
  }

  function showError(e) {
    $('error-text').textContent = e && e.message ? e.message : String(e);
    $('error-banner').hidden = false;
  }
  function clearError() { $('error-banner').hidden = true; }

  /** Wraps a handler: errors go to the banner; a form's submit is not sent. */
  const guard = (fn) => async (...args) => {
    if (args[0] && args[0].preventDefault) args[0].preventDefault();
    try { await fn(...args); } catch (e) { showError(e); }
  };

  // ---- Namespace and stats --------------------------------------------------------------------

  async function loadStats() {
    const stats = await api('GET', '/v1/stats');
    state.stats = stats;
    // A key limited to some namespaces names them (`granted`); others may use any namespace.
    const granted = Array.isArray(stats.granted) ? stats.granted : null;
    if (granted && granted.length && !granted.includes(state.ns)) {
      state.ns = granted[0];
      sessionStorage.setItem('rv.ns', state.ns);
    }
    const names = new Set(granted || ['default']);
    names.add(state.ns);
    const live = {};
    for (const t of stats.tiers || []) {
      names.add(t.namespace);
      live[t.namespace] = (live[t.namespace] || 0) + (t.live || 0);
    }
    const select = $('ns-select');
    clear(select, [...names].sort().map((n) =>
      h('option', { value: n, selected: n === state.ns }, `${n} (${live[n] || 0})`)),
    // Stats list only namespaces that hold memories: any other is named by hand (not for a
    // key limited to its namespaces, which are all listed).
    granted ? null : h('option', { value: '' }, 'other…'));
    const emb = stats.embedding || {};
    $('embedding-status').textContent = emb.status ? `embedding: ${emb.status}` : '';
    $('embedding-status').title = emb.model || '';
    renderCounts();
  }

  function renderCounts() {
    const table = $('tier-counts');
    const rows = ((state.stats && state.stats.tiers) || []).filter((t) => t.namespace === state.ns);
    const cols = ['live', 'archived', 'superseded', 'expired'];
    const byTier = Object.fromEntries(rows.map((t) => [t.memory_type, t]));
    clear(table,
      h('thead', null, h('tr', null, h('th', null, state.ns), cols.map((c) => h('th', null, c)))),
      h('tbody', null, TIERS.map((tier) => h('tr', { dataset: { tier } },
        h('td', null, badge(tier)),
        cols.map((c) => h('td', { dataset: { col: c } }, String((byTier[tier] && byTier[tier][c]) || 0)))))));
  }

  function changeNamespace() {
    let ns = $('ns-select').value;
    if (!ns) {
      ns = (window.prompt('Namespace') || '').trim();
      if (!ns) {
        $('ns-select').value = state.ns;
        return;
      }
      $('ns-select').prepend(h('option', { value: ns }, ns));
      $('ns-select').value = ns;
    }
    state.ns = ns;
    sessionStorage.setItem('rv.ns', state.ns);
    state.offset = 0;
    renderCounts();
    if (location.hash.startsWith('#/memory/')) location.hash = '#/memories';
    else route();
  }

  // ---- Browse ---------------------------------------------------------------------------------

  /** Local midnight of a yyyy-mm-dd input, plus `days`, as RFC 3339. */
  function dayStart(value, days = 0) {
    const [y, m, d] = value.split('-').map(Number);
    return new Date(y, m - 1, d + days).toISOString();
  }

  async function loadList() {
    const q = new URLSearchParams();
    const set = (k, v) => { if (v) q.set(k, v); };
    set('memory_type', $('f-tier').value);
    set('session_id', $('f-session').value.trim());
    set('tag', $('f-tag').value.trim());
    if ($('f-archived').checked) q.set('include_archived', 'true');
    if ($('f-superseded').checked) q.set('include_superseded', 'true');
    if ($('f-from').value) q.set('occurred_after', dayStart($('f-from').value));
    if ($('f-to').value) q.set('occurred_before', dayStart($('f-to').value, 1));
    q.set('limit', String(PAGE + 1)); // one more than shown: is there a next page?
    q.set('offset', String(state.offset));
    const list = $('memory-list');
    const data = await api('GET', '/v1/memories?' + q);
    const memories = (data.memories || []).slice(0, PAGE);
    clear(list, memories.length ? memories.map(row) : h('div', { class: 'empty' }, 'No memories match.'));
    $('prev-page').disabled = state.offset === 0;
    $('next-page').disabled = (data.memories || []).length <= PAGE;
    $('page-info').textContent = memories.length
      ? `${state.offset + 1}–${state.offset + memories.length}` : '';
  }

  function row(m) {
    return h('a', { class: 'row', href: memoryHref(m.id), dataset: { testid: 'memory-row', id: m.id } },
      h('span', null, badge(m.memory_type)),
      h('span', { class: 'text', title: snippet(m.content, 600) }, snippet(m.content, 160)),
      h('span', { class: 'meta' },
        timeEl(m.occurred_at),
        h('span', { title: 'recalls that returned it' }, `↻ ${m.access_count}`),
        m.archived && h('span', { class: 'badge flag', dataset: { testid: 'archived-flag' } }, 'archived'),
        m.superseded_by && h('span', { class: 'badge flag' }, 'history')));
  }

  // ---- Search ---------------------------------------------------------------------------------

  async function runSearch() {
    const query = $('q').value.trim();
    if (!query) return;
    const body = { query, explain: true, top_k: Number($('s-topk').value) || 10 };
    if ($('s-tier').value) body.memory_type = $('s-tier').value;
    if ($('s-asof').value) body.as_of = new Date($('s-asof').value).toISOString();
    if ($('s-archived').checked) body.include_archived = true;
    clear($('hits'));
    $('search-meta').textContent = 'Searching…';
    const data = await api('POST', '/v1/recall', body);
    const hits = data.hits || [];
    const took = data.took_ms || {};
    $('search-meta').textContent = [
      `${hits.length} hit${hits.length === 1 ? '' : 's'}`,
      `took ${num(took.embed, 1)} ms embed + ${num(took.search, 1)} ms search`,
      data.vector_search,
      data.below_floor ? `${data.below_floor} below the relevance floor` : null,
      data.as_of ? `as of ${data.as_of}` : null,
      (data.query_terms || []).length ? `terms: ${data.query_terms.join(' ')}` : null,
    ].filter(Boolean).join(' · ');
    const scales = leafScales(hits);
    clear($('hits'), hits.length
      ? hits.map((hit, i) => renderHit(hit, i + 1, data.query_terms || [], scales))
      : h('li', { class: 'empty' }, 'Nothing relevant found.'));
  }

  function renderHit(hit, rank, terms, scales) {
    const m = hit.memory || {};
    const root = hit.explanation;
    return h('li', { class: 'hit', dataset: { testid: 'hit', id: m.id } },
      h('div', { class: 'hit-head' },
        h('span', null, `#${rank}`),
        h('span', { class: 'score', title: root ? root.description : null, dataset: { testid: 'hit-score' } },
          num(hit.score, 4)),
        badge(m.memory_type),
        timeEl(m.occurred_at),
        m.archived && h('span', { class: 'badge flag' }, 'archived'),
        hit.summarized && h('span', { class: 'badge flag' }, 'summary'),
        memoryLink(m.id, 'open →')),
      h('p', { class: 'hit-content', dataset: { testid: 'hit-content' } }, highlight(m.content || '', terms)),
      root ? h('div', { class: 'bars', dataset: { testid: 'bars' } }, leaves(root).map((n) => bar(n, scales))) : null);
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

  /** Per leaf name, the largest value among the hits (to scale signals that are not 0..1). */
  function leafScales(hits) {
    const max = {};
    for (const hit of hits) {
      for (const n of leaves(hit.explanation)) {
        const name = label(n);
        if (typeof n.value === 'number') max[name] = Math.max(max[name] || 0, n.value);
      }
    }
    return max;
  }

  function bar(node, scales) {
    const name = label(node);
    const v = typeof node.value === 'number' ? node.value : 0;
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
      class: 'bar' + (FACTORS.has(name) ? ' factor' : ''), title: node.description || name,
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

  // ---- Memory ---------------------------------------------------------------------------------

  const FIELDS = ['id', 'namespace', 'memory_type', 'session_id', 'occurred_at', 'timestamp', 'updated_at',
    'last_accessed_at', 'expires_at', 'invalid_at', 'ttl', 'access_count', 'archived', 'superseded_by',
    'content_hash', 'summary', 'metadata'];
  const TIMES = new Set(['occurred_at', 'timestamp', 'updated_at', 'last_accessed_at', 'expires_at', 'invalid_at']);

  async function loadMemory(id) {
    clear($('memory-fields'));
    clear($('memory-history'));
    clear($('memory-provenance'));
    $('memory-content').textContent = '';
    $('memory-status').textContent = '';
    const { memory } = await api('GET', '/v1/memories/' + encodeURIComponent(id));
    renderMemory(memory);
    await loadHistory(memory.id);
  }

  function fieldValue(m, key) {
    const v = m[key];
    if (v === null || v === undefined) return h('span', { class: 'muted' }, '—');
    if (key === 'superseded_by') return memoryLink(v);
    if (key === 'memory_type') return badge(v);
    if (key === 'metadata') return h('pre', null, JSON.stringify(v, null, 2));
    if (key === 'ttl') return v === 0 ? '0 (never expires)' : `${v} s`;
    if (TIMES.has(key)) return h('span', null, when(v), h('span', { class: 'muted' }, `  ${v}`));
    return String(v);
  }

  function renderMemory(m) {
    state.memory = m;
    $('memory-title').textContent = `Memory ${m.id.slice(0, 8)}…`;
    $('memory-content').textContent = m.content;
    clear($('memory-fields'), FIELDS.flatMap((key) => [
      h('dt', null, key), h('dd', { dataset: { field: key } }, fieldValue(m, key))]));
    const sources = m.source_ids || [];
    clear($('memory-provenance'), sources.length
      ? h('ul', { dataset: { testid: 'source-ids' } }, sources.map((sid) => h('li', null, memoryLink(sid))))
      : h('p', { class: 'muted small' }, 'Not derived from other memories.'));
    $('edit-content').value = m.content;
    $('edit-tier').value = m.memory_type;
    $('edit-ttl').value = String(m.ttl);
    $('edit-tags').value = tagsOf(m).join(', ');
    $('archive-btn').disabled = m.archived;
    $('restore-btn').disabled = !m.archived;
  }

  async function loadHistory(id) {
    const box = $('memory-history');
    const m = state.memory;
    const next = m && m.superseded_by
      ? h('p', { class: 'small' }, 'Replaced by ', memoryLink(m.superseded_by), m.invalid_at ? ` on ${when(m.invalid_at)}` : '')
      : null;
    try {
      const { history } = await api('GET', `/v1/memories/${encodeURIComponent(id)}/history`);
      clear(box, next, (history || []).length
        ? h('ol', { class: 'history', dataset: { testid: 'history-list' } }, history.map((old) =>
          h('li', { dataset: { testid: 'history-item', id: old.id } },
            h('div', { class: 'when' }, `${when(old.occurred_at)} → ${when(old.invalid_at)} · `, memoryLink(old.id, old.id.slice(0, 8))),
            h('div', null, old.content))))
        : h('p', { class: 'muted small' }, 'No earlier versions.'));
    } catch (e) {
      clear(box, next, h('p', { class: 'muted small' }, `History unavailable: ${e.message}`));
    }
  }

  function tagsOf(m) {
    const tags = m.metadata && m.metadata.tags;
    return Array.isArray(tags) ? tags.map(String) : [];
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
    if (!Object.keys(body).length) {
      $('memory-status').textContent = 'Nothing changed.';
      return;
    }
    $('memory-status').textContent = 'Saving…';
    const { memory } = await api('PATCH', '/v1/memories/' + encodeURIComponent(m.id), body);
    renderMemory(memory);
    $('memory-status').textContent = 'Saved.';
    await loadHistory(memory.id);
    refreshStats();
  }

  async function archiveOrRestore(action) {
    const m = state.memory;
    if (!m) return;
    const { memories } = await api('POST', '/v1/' + action, { ids: [m.id] });
    if (memories && memories[0]) renderMemory(memories[0]);
    $('memory-status').textContent = action === 'archive' ? 'Archived.' : 'Restored.';
    refreshStats();
  }

  async function deleteMemory() {
    const m = state.memory;
    if (!m) return;
    if (!window.confirm(`Delete this memory for good?\n\n${snippet(m.content, 200)}`)) return;
    await api('DELETE', '/v1/memories/' + encodeURIComponent(m.id));
    state.memory = null;
    location.hash = '#/memories';
    refreshStats();
  }

  function refreshStats() {
    loadStats().catch(() => {}); // counts are a convenience; the action itself succeeded
  }

  // ---- Lifecycle ------------------------------------------------------------------------------

  async function runCleanup() {
    $('cleanup-result').textContent = 'Running…';
    const data = await api('POST', '/v1/cleanup');
    $('cleanup-result').textContent =
      `Deleted ${data.cleaned} expired memor${data.cleaned === 1 ? 'y' : 'ies'} in ${data.namespace || state.ns}.`;
    refreshStats();
  }

  async function endSession() {
    const sessionId = $('end-session-id').value.trim();
    if (!sessionId) return;
    const data = await api('POST', '/v1/sessions/end', { session_id: sessionId });
    const episodes = data.episodes || [];
    clear($('end-session-result'),
      h('p', { class: 'small' },
        `${data.working_memories} working memor${data.working_memories === 1 ? 'y' : 'ies'}, `,
        `${data.small_talk} small talk, ${episodes.length} episode${episodes.length === 1 ? '' : 's'} `,
        `(${data.method}${data.model ? ', ' + data.model : ''}).`),
      episodes.length ? h('ul', null, episodes.map((e) => h('li', null,
        memoryLink(e.memory.id, e.memory.id.slice(0, 8)), ' ', snippet(e.memory.content, 160)))) : null);
    refreshStats();
  }

  async function suggest() {
    const body = {
      min_size: Number($('sg-min').value) || 3,
      limit: Number($('sg-limit').value) || 10,
    };
    if ($('sg-threshold').value !== '') body.threshold = Number($('sg-threshold').value);
    const box = $('suggestions');
    clear(box, h('p', { class: 'muted small' }, 'Looking for groups…'));
    const data = await api('POST', '/v1/suggest-distillations', body);
    const groups = data.suggestions || [];
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
    const result = h('div', { class: 'small', dataset: { testid: 'distil-result' } });
    const button = h('button', { type: 'button', class: 'primary', dataset: { testid: 'distil-btn' } }, 'Distil');
    button.addEventListener('click', guard(async () => {
      const body = { episode_ids: ids, originals: originals.value };
      if (instruction.value.trim()) body.instruction = instruction.value.trim();
      button.disabled = true;
      try {
        // First the dry run: the text that would be stored (by the LLM, or extracted), shown
        // before anything is written; then the real run only on a yes.
        const p = (await api('POST', '/v1/summarize', { ...body, dry_run: true })).preview;
        clear(result, h('div', { class: 'muted' }, `Preview (${p.method}${p.model ? ', ' + p.model : ''}):`),
          h('div', { dataset: { testid: 'distil-preview' } }, p.content));
        const ok = window.confirm(`Store this as one semantic memory and ${originals.value} the ` +
          `${ids.length} originals?\n\n${p.content}`);
        if (!ok) return;
        const d = await api('POST', '/v1/summarize', body);
        clear(result, d.already_existed ? 'Already distilled: ' : 'Distilled into ', memoryLink(d.memory.id),
          ` (${d.method}${d.model ? ', ' + d.model : ''}; ${d.originals_changed} originals changed).`);
        refreshStats();
      } finally { button.disabled = false; }
    }));
    return h('div', { class: 'group', dataset: { testid: 'suggestion', index: i } },
      h('div', { class: 'small muted' }, `Group ${i + 1} · ${ids.length} episodes · cohesion ${num(g.cohesion, 3)}`),
      h('ul', null, previews.map((p, j) => h('li', null, p, ' ', ids[j] ? memoryLink(ids[j], '↗') : null))),
      h('div', { class: 'toolbar' }, instruction, originals, button),
      result);
  }

  // ---- Charts ---------------------------------------------------------------------------------

  async function loadCharts() {
    state.timeline = await api('GET', '/v1/timeline?days=' + encodeURIComponent($('chart-days').value));
    drawCharts();
  }

  function drawCharts() {
    const data = state.timeline;
    if (!data || $('view-charts').hidden) return;
    tierChart($('chart-tiers'), everyDay(data.tiers || [], Number(data.days) || Number($('chart-days').value)));
    latencyChart($('chart-latency'), data.recall_latency || []);
  }

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
  let W = 640;
  const H = 180, PAD = { l: 44, r: 12, t: 10, b: 22 };

  function frame(box, maxY, unit) {
    W = Math.max(320, Math.round(box.clientWidth || 640));
    const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img' });
    for (const f of [0, 0.5, 1]) {
      const y = PAD.t + (1 - f) * (H - PAD.t - PAD.b);
      svg.append(s('line', { class: 'grid', x1: PAD.l, x2: W - PAD.r, y1: y, y2: y }),
        s('text', { class: 'axis', x: PAD.l - 4, y: y + 3, 'text-anchor': 'end' },
          `${+(maxY * f).toFixed(maxY * f < 10 ? 1 : 0)}${unit}`));
    }
    clear(box, svg);
    return svg;
  }

  function noData(box, text) {
    clear(box, h('p', { class: 'empty', dataset: { testid: 'chart-empty' } }, text));
  }

  function tierChart(box, days) {
    const total = (d) => TIERS.reduce((n, t) => n + (Number(d[t]) || 0), 0);
    if (!days.some(total)) return noData(box, 'No memories in this period.');
    const maxY = Math.max(1, ...days.map(total));
    const svg = frame(box, maxY, '');
    svg.setAttribute('aria-label', 'Memories per day of their event, by tier');
    const plotH = H - PAD.t - PAD.b;
    const step = (W - PAD.l - PAD.r) / days.length;
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
        svg.append(s('text', { class: 'axis', x: PAD.l + (i + 0.5) * step, y: H - 6, 'text-anchor': 'middle' },
          String(d.day).slice(5)));
      }
    });
  }

  function latencyChart(box, points) {
    const pts = points.filter((p) => !Number.isNaN(Date.parse(p.minute)));
    if (!pts.length) return noData(box, 'No recalls in the last hour (the server shares its latency with admin keys only).');
    const maxY = Math.max(1, ...pts.map((p) => Number(p.p99_ms) || 0), ...pts.map((p) => Number(p.p50_ms) || 0));
    const svg = frame(box, maxY * 1.1, ' ms');
    svg.setAttribute('aria-label', 'Recall latency per minute, p50 and p99');
    const t0 = Date.parse(pts[0].minute), t1 = Date.parse(pts[pts.length - 1].minute);
    const x = (p) => PAD.l + (t1 > t0 ? (Date.parse(p.minute) - t0) / (t1 - t0) : 0.5) * (W - PAD.l - PAD.r);
    const y = (v) => PAD.t + (1 - (Number(v) || 0) / (maxY * 1.1)) * (H - PAD.t - PAD.b);
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
    for (const p of ends) {
      svg.append(s('text', { class: 'axis', x: x(p), y: H - 6, 'text-anchor': 'middle' }, when(p.minute).slice(5)));
    }
  }

  // ---- Routing and start-up -------------------------------------------------------------------

  const VIEWS = {
    memories: () => loadList(),
    search: () => { $('q').focus(); },
    memory: (arg) => loadMemory(arg),
    lifecycle: () => {},
    charts: () => loadCharts(),
  };

  function route() {
    clearError();
    const match = /^#\/([a-z]+)(?:\/(.+))?$/.exec(location.hash);
    let view = match ? match[1] : 'memories';
    if (!VIEWS[view] || (view === 'memory' && !match[2])) view = 'memories';
    for (const section of document.querySelectorAll('main > section')) {
      section.hidden = section.id !== 'view-' + view;
    }
    for (const a of document.querySelectorAll('#nav a')) {
      if (a.dataset.view === view) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
    document.body.dataset.view = view;
    guard(VIEWS[view])(match && match[2] ? decodeURIComponent(match[2]) : undefined);
  }

  let booted = false;

  async function boot() {
    try { await loadStats(); } catch (e) { showError(e); }
    route();
    if (!booted) {
      booted = true;
      window.addEventListener('hashchange', route);
    }
  }

  function bind() {
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
    $('filters').addEventListener('submit', guard(() => { state.offset = 0; return loadList(); }));
    $('f-reset').addEventListener('click', () => setTimeout(guard(() => { state.offset = 0; return loadList(); })));
    $('prev-page').addEventListener('click', guard(() => { state.offset = Math.max(0, state.offset - PAGE); return loadList(); }));
    $('next-page').addEventListener('click', guard(() => { state.offset += PAGE; return loadList(); }));
    $('search-form').addEventListener('submit', guard(runSearch));
    $('edit-form').addEventListener('submit', guard(saveMemory));
    $('archive-btn').addEventListener('click', guard(() => archiveOrRestore('archive')));
    $('restore-btn').addEventListener('click', guard(() => archiveOrRestore('restore')));
    $('delete-btn').addEventListener('click', guard(deleteMemory));
    $('cleanup-btn').addEventListener('click', guard(runCleanup));
    $('end-session-form').addEventListener('submit', guard(endSession));
    $('suggest-form').addEventListener('submit', guard(suggest));
    $('chart-days').addEventListener('change', guard(loadCharts));
    $('chart-refresh').addEventListener('click', guard(loadCharts));
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
