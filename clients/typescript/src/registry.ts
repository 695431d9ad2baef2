/**
 * The field lists of the types in `types.ts`, for checking them against the server (not part
 * of the public API).
 *
 * - The compiler checks that each entry's `properties` and `required` are exactly the keys and
 *   the non-optional keys of its interface (see the end of this file): the list cannot drift
 *   from the types.
 * - `test/drift.test.js` compares each entry with the schema at `source` (JSON pointers into the
 *   live `/openapi.json`, or an operation's query parameters, read by `queryParameters`), the
 *   enums with theirs, and `routes` with the document's `/v1` routes: the types cannot drift
 *   from the server unnoticed.
 * - The other tests check every answer they get against its entry (`refs` names the entries of
 *   nested fields): no field the server sends is missing here, no required one is absent there.
 */
import type * as T from './types.js';

/** Where the document describes a type: a JSON pointer to a schema, or the query parameters of
 * an operation (`{query: path}`, method GET unless named). */
export type Source = string | { readonly query: string; readonly method?: string };

export interface Entry {
  /** Where the document describes the type; `null` where it does not (checked live only). */
  source: Source | readonly Source[] | null;
  /** Request types must match the document's `required` exactly; responses list what the
   * server always sends (the document sometimes leaves `required` out). */
  kind: 'request' | 'response';
  /** `exact`: the document lists these very properties; `subset`: it names only some. */
  match: 'exact' | 'subset';
  properties: readonly string[];
  required: readonly string[];
  /** Required here although the document does not say so. */
  alsoRequired?: readonly string[];
  /** Entries of nested fields, `Name` or `Name[]`. */
  refs?: Readonly<Record<string, string>>;
}

const C = '#/components/schemas/';
const op = (method: string, path: string) => `#/paths/${path.replaceAll('/', '~1')}/${method}`;
const ok = (method: string, path: string, status = '200') =>
  `${op(method, path)}/responses/${status}/content/application~1json/schema`;
const body = (method: string, path: string) => `${op(method, path)}/requestBody/content/application~1json/schema`;
const query = (path: string, method = 'get') => ({ query: path, method }) as const;

/** An object schema as the drift test reads it. */
export interface ObjectSchema {
  type: 'object';
  properties: Record<string, unknown>;
  required: string[];
}

interface Parameter {
  name?: unknown;
  in?: unknown;
  required?: unknown;
  schema?: unknown;
  $ref?: unknown;
}

/**
 * The query parameters (`in: query`) of operation `method path` in an OpenAPI `document`, as one
 * object schema: `properties` by parameter name (each its `schema`), `required` the names marked
 * `required: true`. `undefined` when the document has no such operation. Parameters given as
 * `$ref`s (`#/components/parameters/...`) are followed.
 */
export function queryParameters(document: unknown, path: string, method = 'get'): ObjectSchema | undefined {
  const doc = document as { paths?: Record<string, Record<string, { parameters?: unknown }>> } | null;
  const operation = doc?.paths?.[path]?.[method];
  if (!operation || typeof operation !== 'object') return undefined;
  const follow = (p: Parameter): Parameter => {
    for (let hops = 0; typeof p?.$ref === 'string' && hops < 16; hops++) {
      let node: unknown = document;
      for (const raw of p.$ref.replace(/^#\//, '').split('/')) {
        node = (node as Record<string, unknown> | undefined)?.[raw.replaceAll('~1', '/').replaceAll('~0', '~')];
      }
      p = node as Parameter;
    }
    return p;
  };
  const list = Array.isArray(operation.parameters) ? (operation.parameters as Parameter[]) : [];
  const params = list.map(follow).filter((p) => p?.in === 'query' && typeof p.name === 'string');
  return {
    type: 'object',
    properties: Object.fromEntries(params.map((p) => [p.name as string, p.schema ?? {}])),
    required: params.filter((p) => p.required === true).map((p) => p.name as string),
  };
}

export const registry = {
  // ------------------------------------------------------------------------------ responses
  Memory: {
    source: `${C}Memory`,
    kind: 'response',
    match: 'exact',
    properties: ['id', 'namespace', 'memory_type', 'content', 'summary', 'metadata', 'session_id', 'ttl', 'timestamp', 'occurred_at', 'updated_at', 'last_accessed_at', 'expires_at', 'access_count', 'archived', 'source_ids', 'content_hash', 'superseded_by', 'invalid_at', 'link', 'possible_updates'],
    required: ['id', 'namespace', 'memory_type', 'content', 'metadata', 'session_id', 'ttl', 'timestamp', 'occurred_at', 'updated_at', 'last_accessed_at', 'expires_at', 'access_count', 'archived', 'source_ids', 'content_hash', 'superseded_by', 'invalid_at'],
    refs: { link: 'Link', possible_updates: 'PossibleUpdate[]' },
  },
  Link: { source: `${C}Link`, kind: 'response', match: 'exact', properties: ['made_by', 'reason'], required: ['made_by', 'reason'] },
  PossibleUpdate: {
    source: `${C}PossibleUpdate`,
    kind: 'response',
    match: 'exact',
    properties: ['id', 'similarity', 'why', 'content'],
    required: ['id', 'similarity', 'why'],
  },
  Superseded: {
    source: [`${C}SupersededMemory`, `${ok('post', '/v1/memories', '201')}/properties/superseded/items`],
    kind: 'response',
    match: 'exact',
    properties: ['id', 'made_by', 'reason'],
    required: ['id', 'made_by', 'reason'],
  },
  Merge: {
    source: [`${C}MergedView`, `${ok('post', '/v1/memories', '200')}/properties/merged/anyOf/0`],
    kind: 'response',
    match: 'exact',
    properties: ['into', 'exact', 'similarity', 'content_replaced'],
    required: ['into', 'exact', 'similarity', 'content_replaced'],
  },
  StoreResult: {
    source: [`${C}Stored`, ok('post', '/v1/memories', '201'), ok('post', '/v1/memories', '200'), `${C}SessionEnded/properties/episodes/items`],
    kind: 'response',
    match: 'exact',
    properties: ['id', 'status', 'memory', 'merged', 'superseded', 'possible_updates'],
    required: ['id', 'status', 'memory', 'merged', 'superseded', 'possible_updates'],
    refs: { memory: 'Memory', merged: 'Merge', superseded: 'Superseded[]', possible_updates: 'PossibleUpdate[]' },
  },
  Explanation: { source: null, kind: 'response', match: 'exact', properties: ['value', 'description', 'details'], required: ['value', 'description'], refs: { details: 'Explanation[]' } },
  RecallHit: {
    source: `${C}RecallHit`,
    kind: 'response',
    match: 'exact',
    properties: ['score', 'memory', 'summarized', 'explanation'],
    required: ['score', 'memory'],
    refs: { memory: 'Memory', explanation: 'Explanation' },
  },
  TookMs: { source: `${C}TookView`, kind: 'response', match: 'exact', properties: ['embed', 'search'], required: ['embed', 'search'] },
  RecallResult: {
    source: [`${C}RecallResult`, ok('post', '/v1/recall')],
    kind: 'response',
    match: 'exact',
    properties: ['as_of', 'vector_search', 'query_terms', 'hits', 'below_floor', 'over_budget', 'took_ms'],
    required: ['as_of', 'vector_search', 'query_terms', 'hits', 'below_floor', 'took_ms'],
    refs: { hits: 'RecallHit[]', took_ms: 'TookMs' },
  },
  MemoryResult: {
    source: [`${C}OneMemory`, ok('get', '/v1/memories/{id}'), ok('patch', '/v1/memories/{id}'), ok('post', '/v1/unlink')],
    kind: 'response',
    match: 'exact',
    properties: ['memory'],
    required: ['memory'],
    refs: { memory: 'Memory' },
  },
  MemoryList: {
    source: [`${C}Memories`, ok('get', '/v1/memories'), ok('post', '/v1/archive'), ok('post', '/v1/restore')],
    kind: 'response',
    match: 'exact',
    properties: ['memories'],
    required: ['memories'],
    refs: { memories: 'Memory[]' },
  },
  HistoryResult: {
    source: [`${C}History`, ok('get', '/v1/memories/{id}/history')],
    kind: 'response',
    match: 'exact',
    properties: ['history'],
    required: ['history'],
    refs: { history: 'Memory[]' },
  },
  SessionEndResult: {
    source: [`${C}SessionEnded`, ok('post', '/v1/sessions/end')],
    kind: 'response',
    match: 'exact',
    properties: ['working_memories', 'small_talk', 'method', 'model', 'episodes'],
    required: ['working_memories', 'small_talk', 'method', 'model', 'episodes'],
    refs: { episodes: 'StoreResult[]' },
  },
  // The answer of POST /v1/summarize is `anyOf`: the distillation, or `{preview}` (dry_run).
  DistillResult: {
    source: [`${C}Distilled`, `${ok('post', '/v1/summarize')}/anyOf/0`],
    kind: 'response',
    match: 'exact',
    properties: ['memory', 'method', 'model', 'originals_changed', 'already_existed'],
    required: ['memory', 'method', 'model', 'originals_changed', 'already_existed'],
    refs: { memory: 'Memory' },
  },
  DistillPreview: { source: `${C}PreviewView`, kind: 'response', match: 'exact', properties: ['content', 'method', 'model', 'sources'], required: ['content', 'method', 'model', 'sources'] },
  SummarizePreview: { source: `${ok('post', '/v1/summarize')}/anyOf/1`, kind: 'response', match: 'exact', properties: ['preview'], required: ['preview'], refs: { preview: 'DistillPreview' } },
  Suggestion: { source: [`${C}SuggestionView`, `${ok('post', '/v1/suggest-distillations')}/properties/suggestions/items`], kind: 'response', match: 'exact', properties: ['episode_ids', 'cohesion', 'previews'], required: ['episode_ids', 'cohesion', 'previews'] },
  SuggestionsResult: {
    source: [`${C}Suggestions`, ok('post', '/v1/suggest-distillations')],
    kind: 'response',
    match: 'exact',
    properties: ['suggestions'],
    required: ['suggestions'],
    refs: { suggestions: 'Suggestion[]' },
  },
  CleanupResult: {
    source: [`${C}Cleaned`, ok('post', '/v1/cleanup')],
    kind: 'response',
    match: 'exact',
    properties: ['cleaned', 'namespace'],
    required: ['cleaned', 'namespace'],
  },
  LinkResult: {
    source: [`${C}Linked`, ok('post', '/v1/link')],
    kind: 'response',
    match: 'exact',
    properties: ['memory', 'superseded'],
    required: ['memory', 'superseded'],
    refs: { memory: 'Memory', superseded: 'Superseded[]' },
  },
  PendingReview: {
    source: [`${C}PendingView`, `${ok('get', '/v1/possible-updates')}/properties/pending/items`],
    kind: 'response',
    match: 'exact',
    properties: ['memory', 'possible_updates'],
    required: ['memory', 'possible_updates'],
    refs: { memory: 'Memory', possible_updates: 'PossibleUpdate[]' },
  },
  PossibleUpdatesResult: {
    source: [`${C}PendingReview`, ok('get', '/v1/possible-updates')],
    kind: 'response',
    match: 'exact',
    properties: ['pending'],
    required: ['pending'],
    refs: { pending: 'PendingReview[]' },
  },
  TierStats: { source: `${C}TierCountView`, kind: 'response', match: 'exact', properties: ['namespace', 'memory_type', 'live', 'archived', 'superseded', 'expired'], required: ['namespace', 'memory_type', 'live', 'archived', 'superseded', 'expired'] },
  ModelVectors: { source: `${C}ModelVectorsView`, kind: 'response', match: 'exact', properties: ['model', 'vectors'], required: ['model', 'vectors'] },
  EmbeddingModel: { source: `${C}ModelView`, kind: 'response', match: 'exact', properties: ['model', 'dimensions'], required: ['model', 'dimensions'] },
  EmbeddingStats: {
    source: [`${C}EmbeddingView`, `${ok('get', '/v1/stats')}/properties/embedding`],
    kind: 'response',
    match: 'exact',
    properties: ['model', 'dimensions', 'models', 'degraded', 'status', 'indexed_vectors', 'graph_vectors', 'pending'],
    required: ['model', 'dimensions', 'models', 'degraded', 'status', 'indexed_vectors', 'graph_vectors', 'pending'],
    refs: { models: 'EmbeddingModel[]' },
  },
  Stats: {
    source: [`${C}Stats`, ok('get', '/v1/stats')],
    kind: 'response',
    match: 'exact',
    properties: ['store', 'size_bytes', 'tiers', 'vectors_per_model', 'embedding', 'indexes', 'granted'],
    required: ['store', 'size_bytes', 'tiers', 'vectors_per_model', 'embedding', 'indexes'],
    refs: { tiers: 'TierStats[]', vectors_per_model: 'ModelVectors[]', embedding: 'EmbeddingStats', indexes: 'IndexUsage' },
  },
  IndexUsage: {
    source: [`${C}IndexesView`, `${ok('get', '/v1/stats')}/properties/indexes`],
    kind: 'response',
    match: 'exact',
    properties: ['namespaces_loaded', 'bytes', 'budget_bytes', 'evictions'],
    required: ['namespaces_loaded', 'bytes', 'budget_bytes', 'evictions'],
  },
  TimelineDay: {
    source: [`${C}DayView`, `${ok('get', '/v1/timeline')}/properties/tiers/items`],
    kind: 'response',
    match: 'exact',
    properties: ['day', 'working', 'episodic', 'semantic'],
    required: ['day', 'working', 'episodic', 'semantic'],
  },
  LatencyMinute: {
    source: [`${C}MinuteView`, `${ok('get', '/v1/timeline')}/properties/recall_latency/items`],
    kind: 'response',
    match: 'exact',
    properties: ['minute', 'count', 'p50_ms', 'p99_ms'],
    required: ['minute', 'count', 'p50_ms', 'p99_ms'],
  },
  Timeline: {
    source: [`${C}Timeline`, ok('get', '/v1/timeline')],
    kind: 'response',
    match: 'exact',
    properties: ['namespace', 'days', 'tiers', 'recall_latency'],
    required: ['namespace', 'days', 'tiers', 'recall_latency'],
    refs: { tiers: 'TimelineDay[]', recall_latency: 'LatencyMinute[]' },
  },
  ErrorBody: { source: `${C}Error`, kind: 'response', match: 'exact', properties: ['code', 'message'], required: ['code', 'message'] },

  // ------------------------------------------------------------------------------- requests
  StoreParams: {
    source: body('post', '/v1/memories'),
    kind: 'request',
    match: 'exact',
    properties: ['content', 'memory_type', 'metadata', 'ttl', 'session_id', 'occurred_at', 'dedup', 'supersedes', 'namespace'],
    required: ['content'],
  },
  RecallParams: {
    source: body('post', '/v1/recall'),
    kind: 'request',
    match: 'exact',
    properties: ['query', 'top_k', 'memory_type', 'session_id', 'tags', 'include_archived', 'include_superseded', 'as_of', 'tier_priority', 'explain', 'models', 'min_relevance', 'max_tokens', 'count_access', 'namespace'],
    required: ['query'],
  },
  UpdateParams: {
    source: [`${C}UpdateParams`, body('patch', '/v1/memories/{id}')],
    kind: 'request',
    match: 'exact',
    properties: ['content', 'metadata', 'memory_type', 'ttl', 'namespace'],
    required: [],
  },
  ListParams: {
    source: query('/v1/memories'),
    kind: 'request',
    match: 'exact',
    properties: ['memory_type', 'session_id', 'tags', 'include_archived', 'include_superseded', 'occurred_after', 'occurred_before', 'limit', 'offset', 'namespace'],
    required: [],
  },
  IdsParams: {
    source: [body('post', '/v1/archive'), body('post', '/v1/restore')],
    kind: 'request',
    match: 'exact',
    properties: ['ids', 'namespace'],
    required: ['ids'],
  },
  EndSessionParams: {
    source: body('post', '/v1/sessions/end'),
    kind: 'request',
    match: 'exact',
    properties: ['session_id', 'namespace'],
    required: ['session_id'],
  },
  SummarizeParams: {
    source: body('post', '/v1/summarize'),
    kind: 'request',
    match: 'exact',
    properties: ['episode_ids', 'instruction', 'originals', 'dry_run', 'namespace'],
    required: ['episode_ids'],
  },
  SuggestParams: {
    source: body('post', '/v1/suggest-distillations'),
    kind: 'request',
    match: 'exact',
    properties: ['threshold', 'min_size', 'limit', 'namespace'],
    required: [],
  },
  LinkParams: {
    source: body('post', '/v1/link'),
    kind: 'request',
    match: 'exact',
    properties: ['id', 'supersedes', 'dismiss', 'reason', 'namespace'],
    required: ['id'],
  },
  UnlinkParams: {
    source: body('post', '/v1/unlink'),
    kind: 'request',
    match: 'exact',
    properties: ['id', 'namespace'],
    required: ['id'],
  },
  PossibleUpdatesParams: {
    source: query('/v1/possible-updates'),
    kind: 'request',
    match: 'exact',
    properties: ['limit', 'offset'],
    required: [],
  },
  TimelineParams: { source: query('/v1/timeline'), kind: 'request', match: 'exact', properties: ['days'], required: [] },
  ApiKey: {
    source: [`${C}ApiKey`, ok('post', '/v1/keys', '201'), `${ok('get', '/v1/keys')}/properties/keys/items`],
    kind: 'response',
    match: 'exact',
    properties: ['id', 'namespaces', 'admin', 'label', 'created_at', 'expires_at', 'revoked_at', 'active', 'key'],
    required: ['id', 'namespaces', 'admin', 'label', 'created_at', 'expires_at', 'revoked_at', 'active'],
  },
  KeyList: { source: [`${C}ApiKeys`, ok('get', '/v1/keys')], kind: 'response', match: 'exact', properties: ['keys'], required: ['keys'], refs: { keys: 'ApiKey[]' } },
  CreateKeyParams: {
    source: body('post', '/v1/keys'),
    kind: 'request',
    match: 'exact',
    properties: ['namespaces', 'admin', 'label', 'expires_in_days'],
    required: [],
  },
  RevokeResult: { source: [`${C}Revoked`, ok('post', '/v1/keys/{id}/revoke')], kind: 'response', match: 'exact', properties: ['revoked'], required: ['revoked'] },
} as const satisfies { [K in keyof Types]: Entry };

/** The enumerations, each with where the document lists its values. */
export const enums = {
  MemoryType: { source: `${C}Tier`, values: ['working', 'episodic', 'semantic'] },
  LinkMaker: { source: `${C}LinkMakerName`, values: ['caller', 'llm', 'rule', 'update'] },
  Originals: { source: `${C}OriginalsParam`, values: ['archive', 'delete', 'keep'] },
  DistillMethod: { source: `${ok('post', '/v1/summarize')}/anyOf/0/properties/method`, values: ['llm', 'extractive-embeddings', 'extractive-keywords'] },
  StoreStatus: { source: `${ok('post', '/v1/memories', '201')}/properties/status`, values: ['stored', 'merged'] },
  ErrorCode: {
    source: `${C}Error/properties/code`,
    values: ['invalid_input', 'unauthorized', 'forbidden', 'host_not_allowed', 'not_found', 'method_not_allowed', 'request_timeout', 'payload_too_large', 'tool_error', 'rate_limited', 'internal', 'unavailable', 'overloaded'],
  },
} as const satisfies { [K in keyof EnumTypes]: { source: string; values: readonly string[] } };

/** The `/v1` routes the client covers, with the method that calls each. */
export const routes = {
  'POST /v1/memories': 'store',
  'GET /v1/memories': 'list',
  'GET /v1/memories/{id}': 'get',
  'PATCH /v1/memories/{id}': 'update',
  'DELETE /v1/memories/{id}': 'delete',
  'GET /v1/memories/{id}/history': 'history',
  'POST /v1/recall': 'recall',
  'GET /v1/stats': 'stats',
  'GET /v1/timeline': 'timeline',
  'POST /v1/summarize': 'summarize',
  'POST /v1/suggest-distillations': 'suggestDistillations',
  'POST /v1/sessions/end': 'endSession',
  'POST /v1/archive': 'archive',
  'POST /v1/restore': 'restore',
  'POST /v1/cleanup': 'cleanup',
  'POST /v1/link': 'link',
  'POST /v1/unlink': 'unlink',
  'GET /v1/possible-updates': 'possibleUpdates',
  'GET /v1/keys': 'listKeys',
  'POST /v1/keys': 'createKey',
  'POST /v1/keys/{id}/revoke': 'revokeKey',
} as const;

// ----------------------------------------------------------------------- compile-time checks

interface Types {
  Memory: T.Memory;
  Link: T.Link;
  PossibleUpdate: T.PossibleUpdate;
  Superseded: T.Superseded;
  Merge: T.Merge;
  StoreResult: T.StoreResult;
  Explanation: T.Explanation;
  RecallHit: T.RecallHit;
  TookMs: T.TookMs;
  RecallResult: T.RecallResult;
  MemoryResult: T.MemoryResult;
  MemoryList: T.MemoryList;
  HistoryResult: T.HistoryResult;
  SessionEndResult: T.SessionEndResult;
  DistillResult: T.DistillResult;
  DistillPreview: T.DistillPreview;
  SummarizePreview: T.SummarizePreview;
  Suggestion: T.Suggestion;
  SuggestionsResult: T.SuggestionsResult;
  CleanupResult: T.CleanupResult;
  LinkResult: T.LinkResult;
  PendingReview: T.PendingReview;
  PossibleUpdatesResult: T.PossibleUpdatesResult;
  TierStats: T.TierStats;
  ModelVectors: T.ModelVectors;
  EmbeddingModel: T.EmbeddingModel;
  EmbeddingStats: T.EmbeddingStats;
  Stats: T.Stats;
  IndexUsage: T.IndexUsage;
  TimelineDay: T.TimelineDay;
  LatencyMinute: T.LatencyMinute;
  Timeline: T.Timeline;
  ErrorBody: T.ErrorBody;
  StoreParams: T.StoreParams;
  RecallParams: T.RecallParams;
  UpdateParams: T.UpdateParams;
  ListParams: T.ListParams;
  IdsParams: T.IdsParams;
  EndSessionParams: T.EndSessionParams;
  SummarizeParams: T.SummarizeParams;
  SuggestParams: T.SuggestParams;
  LinkParams: T.LinkParams;
  UnlinkParams: T.UnlinkParams;
  PossibleUpdatesParams: T.PossibleUpdatesParams;
  TimelineParams: T.TimelineParams;
  ApiKey: T.ApiKey;
  KeyList: T.KeyList;
  CreateKeyParams: T.CreateKeyParams;
  RevokeResult: T.RevokeResult;
}

interface EnumTypes {
  MemoryType: T.MemoryType;
  LinkMaker: T.LinkMaker;
  Originals: T.Originals;
  DistillMethod: T.DistillMethod;
  StoreStatus: T.StoreResult['status'];
  ErrorCode: T.ErrorCode;
}

type Equal<A, B> = (<G>() => G extends A ? 1 : 2) extends <G>() => G extends B ? 1 : 2 ? true : false;
type RequiredKeys<O> = { [K in keyof O]-?: {} extends Pick<O, K> ? never : K }[keyof O];
type Registry = typeof registry;
type Listed<K extends keyof Registry, F extends 'properties' | 'required'> = Registry[K][F][number];

/** The entries whose lists differ from their interface's keys. */
type Drifted = {
  [K in keyof Types]: Equal<keyof Types[K], Listed<K, 'properties'>> extends true
    ? Equal<RequiredKeys<Types[K]>, Listed<K, 'required'>> extends true
      ? never
      : K
    : K;
}[keyof Types];

/** The enumerations whose values differ from their union type. */
type DriftedEnums = {
  [K in keyof EnumTypes]: Equal<EnumTypes[K], (typeof enums)[K]['values'][number]> extends true ? never : K;
}[keyof EnumTypes];

/** The methods `routes` names that the client lacks. */
type MissingMethods = Exclude<(typeof routes)[keyof typeof routes], keyof import('./client.js').Client>;

// A compile error here names the entry, enumeration or method that drifted.
export const checked: [Drifted, DriftedEnums, MissingMethods] extends [never, never, never] ? true : [Drifted, DriftedEnums, MissingMethods] = true;
