import {
  RearviewConnectionError,
  RearviewError,
  RearviewTimeoutError,
  errorForStatus,
} from './errors.js';
import type {
  ApiKey,
  CleanupResult,
  CreateKeyParams,
  DistillResult,
  EndSessionParams,
  HistoryResult,
  IdsParams,
  KeyList,
  LinkParams,
  LinkResult,
  ListParams,
  MemoryList,
  MemoryResult,
  PossibleUpdatesParams,
  PossibleUpdatesResult,
  RecallParams,
  RecallResult,
  RevokeResult,
  SessionEndResult,
  Stats,
  StoreParams,
  StoreResult,
  SuggestParams,
  SuggestionsResult,
  SummarizeParams,
  SummarizePreview,
  Timeline,
  TimelineParams,
  UnlinkParams,
  UpdateParams,
} from './types.js';

/** Version sent in `User-Agent`. */
export const VERSION = '0.1.0';

const DEFAULT_URL = 'http://127.0.0.1:8765';

/** How to reach the server. Unset fields come from the environment, where there is one. */
export interface ClientOptions {
  /** Server URL; default `REARVIEW_URL`, else `http://127.0.0.1:8765`. */
  url?: string;
  /** API key, sent as `Authorization: Bearer KEY`; default `REARVIEW_API_KEY`. */
  apiKey?: string;
  /** Namespace for every call (a call's own `namespace` wins); default `REARVIEW_NAMESPACE`,
   * else the server's choice (the key's only namespace, else `default`). */
  namespace?: string;
  /** Milliseconds one attempt may take, answer included; default 30 000; 0 = no limit. */
  timeoutMs?: number;
  /** Retries of a 429 or 503 that carries `Retry-After`; default 2; 0 = none. */
  maxRetries?: number;
  /** Longest `Retry-After` waited for, in milliseconds; a longer one is thrown at once
   * (its `retryAfter` says how long). Default 30 000. */
  maxRetryDelayMs?: number;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof globalThis.fetch;
}

/** Per-call options, accepted by every method. */
export interface RequestOptions {
  /** This call's namespace. */
  namespace?: string;
  /** Aborts the call (also while it waits to retry); the signal's reason is thrown. */
  signal?: AbortSignal;
  /** This call's per-attempt timeout in milliseconds; 0 = no limit. */
  timeoutMs?: number;
}

export type StoreOptions = Omit<StoreParams, 'content'> & RequestOptions;
export type RecallOptions = Omit<RecallParams, 'query'> & RequestOptions;
export type ListOptions = ListParams &
  RequestOptions & {
    /** @deprecated The older name for one tag: `tag: 'x'` is `tags: ['x']` (not with `tags`). */
    tag?: string;
  };
export type SummarizeOptions = Omit<SummarizeParams, 'episode_ids'> & RequestOptions;
export type SuggestOptions = SuggestParams & RequestOptions;
export type LinkOptions = Omit<LinkParams, 'id'> & RequestOptions;
export type PossibleUpdatesOptions = PossibleUpdatesParams & RequestOptions;
export type TimelineOptions = TimelineParams & RequestOptions;
export type CreateKeyOptions = CreateKeyParams & Omit<RequestOptions, 'namespace'>;

type Query = Record<string, unknown>;

interface Call {
  body?: object;
  query?: Query;
  options?: RequestOptions | undefined;
  /** Where the server reads this route's namespace: a body's or the query string's `namespace`
   * field (any text, and it beats the header), `X-Rearview-Namespace` (percent-encoded), or
   * nowhere. Default: the body when there is one, else the header. */
  namespaceIn?: 'body' | 'query' | 'header' | 'none';
}

/** A method's options, split into the route's own fields and the request options. */
function split<T extends RequestOptions>(
  options: T | undefined,
): [Omit<T, keyof RequestOptions>, RequestOptions] {
  const { namespace, signal, timeoutMs, ...fields } = options ?? ({} as T);
  return [fields, { namespace, signal, timeoutMs }];
}

function environment(): Record<string, string | undefined> {
  const process = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return process?.env ?? {};
}

/**
 * A rearview server. Every method returns the server's JSON as it is (`hits[0].memory.content`),
 * and throws a `RearviewError` (a subclass per status) when the server refuses.
 *
 * ```ts
 * const client = new Client({ url: 'http://127.0.0.1:8765', namespace: 'me' });
 * await client.store('The user prefers dark mode', { memory_type: 'semantic' });
 * const { hits } = await client.recall('theme preference', { top_k: 3 });
 * ```
 */
export class Client {
  readonly url: string;
  readonly namespace: string | undefined;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly maxRetryDelayMs: number;
  readonly #apiKey: string | undefined;
  readonly #headers: Record<string, string>;
  readonly #fetch: typeof globalThis.fetch;

  constructor(options: ClientOptions = {}) {
    const env = environment();
    this.url = (options.url ?? (env.REARVIEW_URL || DEFAULT_URL)).replace(/\/+$/, '');
    this.#apiKey = options.apiKey ?? (env.REARVIEW_API_KEY || undefined);
    this.namespace = options.namespace ?? (env.REARVIEW_NAMESPACE || undefined);
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxRetries = options.maxRetries ?? 2;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 30_000;
    this.#headers = { ...options.headers };
    const fetch = options.fetch ?? globalThis.fetch;
    if (typeof fetch !== 'function') {
      throw new TypeError('rearview-client needs fetch (Node 20+), or pass `fetch` in the options');
    }
    this.#fetch = fetch;
  }

  // ------------------------------------------------------------------------------ memories

  /** Store a memory: `POST /v1/memories`. `status` is `stored`, or `merged` into an existing one. */
  store(content: string, options?: StoreOptions): Promise<StoreResult> {
    const [fields, request] = split(options);
    return this.#call('POST', '/v1/memories', { body: { ...fields, content }, options: request });
  }

  /** Recall the most relevant memories, best first: `POST /v1/recall`. */
  recall(query: string, options?: RecallOptions): Promise<RecallResult> {
    const [fields, request] = split(options);
    return this.#call('POST', '/v1/recall', { body: { ...fields, query }, options: request });
  }

  /** One memory: `GET /v1/memories/{id}`. */
  get(id: string, options?: RequestOptions): Promise<MemoryResult> {
    return this.#call('GET', `/v1/memories/${encodeURIComponent(id)}`, { options });
  }

  /** Correct a memory's content, metadata, tier or TTL: `PATCH /v1/memories/{id}`. The
   * namespace is `changes.namespace` or `options.namespace` (not two different ones), else the
   * client's; it goes in the body. */
  update(id: string, changes: UpdateParams, options?: RequestOptions): Promise<MemoryResult> {
    const { namespace, ...body } = changes;
    if (namespace !== undefined && options?.namespace !== undefined && namespace !== options.namespace) {
      throw new TypeError(`update: namespace ${JSON.stringify(namespace)} in the changes, ${JSON.stringify(options.namespace)} in the options`);
    }
    const path = `/v1/memories/${encodeURIComponent(id)}`;
    return this.#call('PATCH', path, { body, options: { ...options, namespace: namespace ?? options?.namespace } });
  }

  /** Delete a memory: `DELETE /v1/memories/{id}` (204). */
  async delete(id: string, options?: RequestOptions): Promise<void> {
    await this.#call('DELETE', `/v1/memories/${encodeURIComponent(id)}`, { options });
  }

  /** List memories, newest event first: `GET /v1/memories`. `tags`: only memories carrying all
   * of them (sent as `tags=a&tags=b`); `tag`, the older name for one tag, still works. */
  list(options?: ListOptions): Promise<MemoryList> {
    const [{ tag, ...fields }, request] = split(options);
    if (tag !== undefined && fields.tags !== undefined) {
      throw new TypeError('list: give `tags` or `tag` (the older name for one tag), not both');
    }
    const query: ListParams = tag === undefined ? fields : { ...fields, tags: [tag] };
    return this.#call('GET', '/v1/memories', { query: { ...query }, options: request, namespaceIn: 'query' });
  }

  /** The earlier texts and statements a memory replaced: `GET /v1/memories/{id}/history`. */
  history(id: string, options?: RequestOptions): Promise<HistoryResult> {
    return this.#call('GET', `/v1/memories/${encodeURIComponent(id)}/history`, { options });
  }

  // ----------------------------------------------------------------------------- lifecycle

  /** End a session: its working memories become episodes (`POST /v1/sessions/end`). */
  endSession(sessionId: string, options?: RequestOptions): Promise<SessionEndResult> {
    const body: EndSessionParams = { session_id: sessionId };
    return this.#call('POST', '/v1/sessions/end', { body, options });
  }

  /** Distil memories into one semantic memory: `POST /v1/summarize`. */
  summarize(ids: string | string[], options: SummarizeOptions & { dry_run: true }): Promise<SummarizePreview>;
  summarize(ids: string | string[], options?: SummarizeOptions): Promise<DistillResult>;
  summarize(ids: string | string[], options?: SummarizeOptions): Promise<DistillResult | SummarizePreview> {
    const [fields, request] = split(options);
    const body: SummarizeParams = { ...fields, episode_ids: asArray(ids) };
    return this.#call('POST', '/v1/summarize', { body, options: request });
  }

  /** Groups of similar episodes worth distilling; writes nothing (`POST /v1/suggest-distillations`). */
  suggestDistillations(options?: SuggestOptions): Promise<SuggestionsResult> {
    const [fields, request] = split(options);
    return this.#call('POST', '/v1/suggest-distillations', { body: fields, options: request });
  }

  /** Move memories to the cold archive: `POST /v1/archive`. */
  archive(ids: string | string[], options?: RequestOptions): Promise<MemoryList> {
    const body: IdsParams = { ids: asArray(ids) };
    return this.#call('POST', '/v1/archive', { body, options });
  }

  /** Bring archived memories back into recall: `POST /v1/restore`. */
  restore(ids: string | string[], options?: RequestOptions): Promise<MemoryList> {
    const body: IdsParams = { ids: asArray(ids) };
    return this.#call('POST', '/v1/restore', { body, options });
  }

  /** Delete the namespace's expired memories: `POST /v1/cleanup`. */
  cleanup(options?: RequestOptions): Promise<CleanupResult> {
    return this.#call('POST', '/v1/cleanup', { options });
  }

  /** Counts, size and embedding state of what the key may see: `GET /v1/stats`. */
  stats(options?: RequestOptions): Promise<Stats> {
    return this.#call('GET', '/v1/stats', { options, namespaceIn: 'none' });
  }

  /** Memories per day and tier, and recall latency: `GET /v1/timeline`. */
  timeline(options?: TimelineOptions): Promise<Timeline> {
    const [query, request] = split(options);
    return this.#call('GET', '/v1/timeline', { query, options: request });
  }

  // --------------------------------------------------------------------------------- links

  /** Confirm that memory `id` replaces older ones (`supersedes`) and dismiss possible updates
   * (`dismiss`): `POST /v1/link`. */
  link(id: string, options: LinkOptions): Promise<LinkResult> {
    const [fields, request] = split(options);
    const body: LinkParams = { ...fields, id };
    return this.#call('POST', '/v1/link', { body, options: request });
  }

  /** Undo a link: superseded memory `id` becomes current again (`POST /v1/unlink`). */
  unlink(id: string, options?: RequestOptions): Promise<MemoryResult> {
    const body: UnlinkParams = { id };
    return this.#call('POST', '/v1/unlink', { body, options });
  }

  /** Memories listing possible updates to confirm or dismiss: `GET /v1/possible-updates`. */
  possibleUpdates(options?: PossibleUpdatesOptions): Promise<PossibleUpdatesResult> {
    const [query, request] = split(options);
    return this.#call('GET', '/v1/possible-updates', { query, options: request });
  }

  // ------------------------------------------------------------------------- keys (admin)

  /** Every API key, oldest first, never a secret: `GET /v1/keys` (an admin key only). */
  listKeys(options?: Omit<RequestOptions, 'namespace'>): Promise<KeyList> {
    return this.#call('GET', '/v1/keys', { options, namespaceIn: 'none' });
  }

  /** A new key for `namespaces` (or every namespace with `admin`); its secret is in `key` of this
   * answer only: `POST /v1/keys` (an admin key only). */
  createKey(options: CreateKeyOptions): Promise<ApiKey> {
    const [body, request] = split(options);
    return this.#call('POST', '/v1/keys', { body, options: request, namespaceIn: 'none' });
  }

  /** Revoke key `id` at once: `POST /v1/keys/{id}/revoke` (an admin key only). */
  revokeKey(id: string, options?: Omit<RequestOptions, 'namespace'>): Promise<RevokeResult> {
    return this.#call('POST', `/v1/keys/${encodeURIComponent(id)}/revoke`, { options, namespaceIn: 'none' });
  }

  // ------------------------------------------------------------------------------ plumbing

  async #call<T>(method: string, path: string, call: Call): Promise<T> {
    const options = call.options ?? {};
    const namespace = options.namespace ?? this.namespace;
    const where = call.namespaceIn ?? (call.body === undefined ? 'header' : 'body');
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': `rearview-client-ts/${VERSION}`,
      ...this.#headers,
    };
    if (this.#apiKey) headers.authorization = `Bearer ${this.#apiKey}`;
    if (namespace !== undefined && where === 'header') {
      headers['x-rearview-namespace'] = encodeURIComponent(namespace);
    }
    const query = namespace !== undefined && where === 'query' ? { ...call.query, namespace } : call.query;
    let body: string | undefined;
    if (call.body !== undefined) {
      headers['content-type'] = 'application/json';
      const withNamespace = namespace !== undefined && where === 'body';
      body = JSON.stringify(withNamespace ? { ...call.body, namespace } : call.body);
    }
    const url = this.url + path + queryString(query);
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;

    for (let attempt = 0; ; attempt++) {
      const answer = await this.#attempt(url, { method, headers, body }, options.signal, timeoutMs);
      if (answer.ok) return answer.value as T;
      const error = answer.error;
      const retryable = error.status === 429 || error.status === 503;
      if (
        !retryable ||
        error.retryAfter === undefined ||
        attempt >= this.maxRetries ||
        error.retryAfter * 1000 > this.maxRetryDelayMs
      ) {
        throw error;
      }
      await sleep(error.retryAfter * 1000, options.signal);
    }
  }

  /** One request, its answer read in full, under the timeout and the caller's signal. */
  async #attempt(
    url: string,
    init: { method: string; headers: Record<string, string>; body: string | undefined },
    signal: AbortSignal | undefined,
    timeoutMs: number,
  ): Promise<{ ok: true; value: unknown } | { ok: false; error: RearviewError }> {
    signal?.throwIfAborted();
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    const expire = () => {
      timedOut = true;
      controller.abort();
    };
    const timer = timeoutMs > 0 && Number.isFinite(timeoutMs) ? setTimeout(expire, timeoutMs) : undefined;
    let response: Response;
    let text: string;
    try {
      response = await this.#fetch(url, { ...init, signal: controller.signal });
      text = await response.text();
    } catch (cause) {
      if (timedOut) {
        const message = `no answer from ${init.method} ${url} within ${timeoutMs} ms`;
        throw new RearviewTimeoutError(0, 'timeout', message, { cause });
      }
      if (signal?.aborted) throw signal.reason;
      const inner = cause instanceof Error && cause.cause instanceof Error ? cause.cause : cause;
      const why = inner instanceof Error ? inner.message : String(inner);
      throw new RearviewConnectionError(0, 'connection_error', `cannot reach ${url}: ${why}`, { cause });
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
    if (!response.ok) return { ok: false, error: toError(response, text) };
    if (text === '') return { ok: true, value: undefined };
    try {
      return { ok: true, value: JSON.parse(text) };
    } catch (cause) {
      const message = `${init.method} ${url} answered ${response.status} with a body that is not JSON`;
      throw new RearviewError(response.status, 'invalid_response', message, { cause });
    }
  }
}

/** The error for a refused request, from its `{code, message}` body where it has one. */
function toError(response: Response, text: string): RearviewError {
  let code = `http_${response.status}`;
  let message = `HTTP ${response.status} ${response.statusText}`.trim();
  try {
    const body = JSON.parse(text) as { code?: unknown; message?: unknown };
    if (typeof body.code === 'string') code = body.code;
    if (typeof body.message === 'string') message = body.message;
  } catch {
    if (text) message += `: ${text.slice(0, 200)}`;
  }
  return errorForStatus(response.status, code, message, retryAfter(response.headers.get('retry-after')));
}

/** `Retry-After` in seconds: delta-seconds or an HTTP date. */
function retryAfter(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

function asArray(ids: string | string[]): string[] {
  return typeof ids === 'string' ? [ids] : ids;
}

/** `?a=1&b=2`: a list as repeated keys (`tags=a&tags=b`), a `Date` as its ISO string. */
function queryString(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  const format = (value: unknown) => (value instanceof Date ? value.toISOString() : String(value));
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) params.append(key, format(item));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
