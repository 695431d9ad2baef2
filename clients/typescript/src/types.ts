/**
 * The shapes rearview speaks over REST, as its JSON: field names are the server's (snake_case).
 *
 * Hand-written against the server's `/openapi.json`; `src/registry.ts` lists each type's fields
 * for the drift test (`test/drift.test.js`), which compares them with the live document, and the
 * compiler checks that the list and these interfaces agree.
 */

/** A memory tier. */
export type MemoryType = 'working' | 'episodic' | 'semantic';

/** Who linked a memory to the memory that replaced it. */
export type LinkMaker = 'caller' | 'llm' | 'rule' | 'update';

/** What becomes of distilled originals. */
export type Originals = 'archive' | 'delete' | 'keep';

/** How a distillation was written. */
export type DistillMethod = 'llm' | 'extractive-embeddings' | 'extractive-keywords';

/** The server's error codes (`Error.code`), each with its HTTP status. */
export type ErrorCode =
  | 'invalid_input' // 400
  | 'unauthorized' // 401
  | 'forbidden' // 403
  | 'host_not_allowed' // 403
  | 'not_found' // 404
  | 'method_not_allowed' // 405
  | 'request_timeout' // 408
  | 'payload_too_large' // 413
  | 'tool_error' // 422 (POST /mcp/tools/call only)
  | 'rate_limited' // 429
  | 'internal' // 500
  | 'unavailable' // 503
  | 'overloaded'; // 503

/** Free-form JSON object, e.g. `{"source": "chat", "tags": ["work"]}`. */
export type Metadata = Record<string, unknown>;

/** An RFC 3339 time; a `Date` is sent as its ISO string. */
export type Time = string | Date;

// ---------------------------------------------------------------------------------------------
// Responses

/** Who made a memory history and why. */
export interface Link {
  made_by: LinkMaker;
  reason: string;
}

/** An older memory a memory may change: confirm with `link`, or dismiss. */
export interface PossibleUpdate {
  id: string;
  /** Cosine of the two memories' vectors, when both have one. */
  similarity: number | null;
  why: string;
  /** The older memory's text (in a store's answer and the review list). */
  content?: string | null;
}

/** A memory. Times are RFC 3339 strings in UTC. */
export interface Memory {
  id: string;
  namespace: string;
  memory_type: MemoryType;
  content: string;
  /** For a long memory: the summary recall shows and embeds. */
  summary?: string | null;
  metadata: Metadata;
  session_id: string | null;
  /** Seconds to live; 0 = never. */
  ttl: number;
  timestamp: string;
  occurred_at: string;
  updated_at: string;
  last_accessed_at: string | null;
  expires_at: string | null;
  access_count: number;
  archived: boolean;
  source_ids: string[];
  content_hash: string;
  superseded_by: string | null;
  invalid_at: string | null;
  /** Present on history: who linked it to `superseded_by`, and why. */
  link?: Link | null;
  /** Older memories this one may change; absent when there are none. */
  possible_updates?: PossibleUpdate[];
}

/** A memory a store or a link made history. */
export interface Superseded {
  id: string;
  made_by: LinkMaker;
  reason: string;
}

/** How a stored text was merged into an existing memory. */
export interface Merge {
  into: string;
  exact: boolean;
  similarity: number | null;
  content_replaced: boolean;
}

/** `POST /v1/memories`: 201 stored, or 200 merged (`merged` not null). */
export interface StoreResult {
  id: string;
  status: 'stored' | 'merged';
  memory: Memory;
  merged: Merge | null;
  superseded: Superseded[];
  possible_updates: PossibleUpdate[];
}

/** How a score was computed (`explain: true`). */
export interface Explanation {
  value: number;
  description: string;
  details?: Explanation[];
}

/** One recalled memory. */
export interface RecallHit {
  score: number;
  memory: Memory;
  /** True when `max_tokens` left room only for the summary (then `memory.content` is it). */
  summarized?: boolean;
  explanation?: Explanation | null;
}

/** Where a recall's time went, in milliseconds. */
export interface TookMs {
  embed: number;
  search: number;
}

/** `POST /v1/recall`. */
export interface RecallResult {
  as_of: string;
  vector_search: string;
  query_terms: string[];
  /** Best first. */
  hits: RecallHit[];
  below_floor: number;
  /** With `max_tokens`: ranked memories that did not fit the budget. */
  over_budget?: number | null;
  took_ms: TookMs;
}

/** `{memory}`: get, update, unlink. */
export interface MemoryResult {
  memory: Memory;
}

/** `{memories}`: list, archive, restore. */
export interface MemoryList {
  memories: Memory[];
}

/** `GET /v1/memories/{id}/history`: earlier texts and statements, latest replaced first. */
export interface HistoryResult {
  history: Memory[];
}

/** `POST /v1/sessions/end`. */
export interface SessionEndResult {
  working_memories: number;
  /** Turns skipped as greetings or acknowledgements. */
  small_talk: number;
  method: string;
  model: string | null;
  episodes: StoreResult[];
}

/** `POST /v1/summarize`. */
export interface DistillResult {
  memory: Memory;
  method: DistillMethod;
  model: string | null;
  originals_changed: number;
  /** The same memories had been distilled before: this is that memory, nothing was written. */
  already_existed: boolean;
}

/** What a distillation would store. */
export interface DistillPreview {
  content: string;
  method: DistillMethod;
  model: string | null;
  /** How many memories it distils. */
  sources: number;
}

/** `POST /v1/summarize` with `dry_run: true`: nothing written. */
export interface SummarizePreview {
  preview: DistillPreview;
}

/** A group of similar episodes worth distilling. */
export interface Suggestion {
  episode_ids: string[];
  cohesion: number;
  previews: string[];
}

/** `POST /v1/suggest-distillations`. */
export interface SuggestionsResult {
  suggestions: Suggestion[];
}

/** `POST /v1/cleanup`. */
export interface CleanupResult {
  cleaned: number;
  namespace: string;
}

/** An API key as `/v1/keys` shows it (admin keys only); `key`, the secret, only in the answer
 * to its creation. */
export interface ApiKey {
  id: string;
  namespaces: string[];
  admin: boolean;
  label: string | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  active: boolean;
  /** The secret: only in the answer to its creation. */
  key?: string;
}

/** `GET /v1/keys`. */
export interface KeyList {
  keys: ApiKey[];
}

/** Body of `POST /v1/keys`. */
export interface CreateKeyParams {
  /** Namespaces the key may read and write; at least one unless `admin`. */
  namespaces?: string[];
  /** Every namespace, and server-wide details. */
  admin?: boolean;
  label?: string;
  /** 1 to 36500; default never. */
  expires_in_days?: number;
}

/** `POST /v1/keys/{id}/revoke`. */
export interface RevokeResult {
  revoked: string;
}

/** `POST /v1/link`. */
export interface LinkResult {
  memory: Memory;
  superseded: Superseded[];
}

/** A memory with possible updates to review. */
export interface PendingReview {
  memory: Memory;
  possible_updates: PossibleUpdate[];
}

/** `GET /v1/possible-updates`. */
export interface PossibleUpdatesResult {
  pending: PendingReview[];
}

/** Counts of one namespace's tier. */
export interface TierStats {
  namespace: string;
  memory_type: MemoryType;
  live: number;
  archived: number;
  superseded: number;
  expired: number;
}

/** Stored vectors of one embedding model. */
export interface ModelVectors {
  model: string;
  vectors: number;
}

/** An embedding model in use. */
export interface EmbeddingModel {
  model: string;
  dimensions: number;
}

/** The embedding state. */
export interface EmbeddingStats {
  model: string | null;
  dimensions: number | null;
  models: EmbeddingModel[];
  /** True when recall is keyword-only. */
  degraded: boolean;
  status: string;
  indexed_vectors: number;
  graph_vectors: number;
  /** Vectors still to compute. */
  pending: number;
}

/** `GET /v1/stats`: what the key may see. */
export interface Stats {
  /** The database location (admin keys), else a placeholder. */
  store: string;
  /** 0 unless the key is an admin key. */
  size_bytes: number;
  tiers: TierStats[];
  vectors_per_model: ModelVectors[];
  embedding: EmbeddingStats;
  /** The in-memory search indexes (zeros unless the key is an admin key). */
  indexes: IndexUsage;
  /** For a key limited to some namespaces: those namespaces (absent otherwise). */
  granted?: string[];
}

/** The server's in-memory search indexes, loaded on demand within `index_memory`. */
export interface IndexUsage {
  namespaces_loaded: number;
  /** Roughly the bytes they hold. */
  bytes: number;
  /** `index_memory`; null when every namespace is loaded at start. */
  budget_bytes: number | null;
  /** Namespaces dropped from memory since start. */
  evictions: number;
}

/** Memories per day of event time and tier. */
export interface TimelineDay {
  day: string;
  working: number;
  episodic: number;
  semantic: number;
}

/** Recall latency in one minute (admin keys). */
export interface LatencyMinute {
  minute: string;
  count: number;
  p50_ms: number;
  p99_ms: number;
}

/** `GET /v1/timeline`. */
export interface Timeline {
  namespace: string;
  days: number;
  tiers: TimelineDay[];
  recall_latency: LatencyMinute[];
}

/** The body of every REST error. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
}

// ---------------------------------------------------------------------------------------------
// Requests: the bodies and query strings as the server takes them.

/** Body of `POST /v1/memories`. */
export interface StoreParams {
  content: string;
  memory_type?: MemoryType;
  metadata?: Metadata;
  /** Seconds to live; 0 = never expires; absent = the tier's default. */
  ttl?: number;
  session_id?: string;
  occurred_at?: Time;
  /** Merge into an existing memory that says the same; default true. */
  dedup?: boolean;
  /** Ids of memories this one replaces. */
  supersedes?: string[];
  namespace?: string;
}

/** Body of `POST /v1/recall`. */
export interface RecallParams {
  query: string;
  /** 1 to 100; default 5. */
  top_k?: number;
  memory_type?: MemoryType;
  session_id?: string;
  tags?: string[];
  include_archived?: boolean;
  include_superseded?: boolean;
  as_of?: Time;
  tier_priority?: boolean;
  explain?: boolean;
  models?: string[];
  min_relevance?: number;
  max_tokens?: number;
  /** false: read without counting the hits as accessed (a preview); default true. */
  count_access?: boolean;
  namespace?: string;
}

/** Body of `PATCH /v1/memories/{id}`: at least one change (`namespace` is none). */
export interface UpdateParams {
  content?: string;
  metadata?: Metadata;
  memory_type?: MemoryType;
  /** Seconds to live, counted from now; 0 = never expires. */
  ttl?: number;
  /** The memory's namespace (sent in the body; it beats the client's). */
  namespace?: string;
}

/** Query of `GET /v1/memories` (MCP `list_memories`' arguments). */
export interface ListParams {
  memory_type?: MemoryType;
  session_id?: string;
  /** Only memories carrying all of these tags (sent as `tags=a&tags=b`). */
  tags?: string[];
  include_archived?: boolean;
  include_superseded?: boolean;
  occurred_after?: Time;
  occurred_before?: Time;
  /** 1 to 1000; default 20. */
  limit?: number;
  offset?: number;
  /** Sent in the query string (it beats the header). */
  namespace?: string;
}

/** Body of `POST /v1/archive` and `POST /v1/restore`. */
export interface IdsParams {
  ids: string[];
  namespace?: string;
}

/** Body of `POST /v1/sessions/end`. */
export interface EndSessionParams {
  session_id: string;
  namespace?: string;
}

/** Body of `POST /v1/summarize`. */
export interface SummarizeParams {
  episode_ids: string[];
  instruction?: string;
  originals?: Originals;
  dry_run?: boolean;
  namespace?: string;
}

/** Body of `POST /v1/suggest-distillations`. */
export interface SuggestParams {
  threshold?: number;
  min_size?: number;
  limit?: number;
  namespace?: string;
}

/** Body of `POST /v1/link`. */
export interface LinkParams {
  id: string;
  supersedes?: string[];
  dismiss?: string[];
  reason?: string;
  namespace?: string;
}

/** Body of `POST /v1/unlink`. */
export interface UnlinkParams {
  id: string;
  namespace?: string;
}

/** Query of `GET /v1/possible-updates`. */
export interface PossibleUpdatesParams {
  limit?: number;
  offset?: number;
}

/** Query of `GET /v1/timeline`. */
export interface TimelineParams {
  /** 1 to 366; default 30. */
  days?: number;
}
