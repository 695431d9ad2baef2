// Every method against a real server; every answer is checked against the type registry.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { Client, NotFoundError, RearviewError, UnavailableError, InvalidInputError } from '../dist/index.js';
import { assertShape, startServer, startStub } from './helpers.js';

let server;
let client;

before(async () => {
  server = await startServer();
  client = new Client({ url: server.url, namespace: 'sdk-test' });
});
after(() => server?.stop());

describe('memories', () => {
  test('store: a new memory is stored, the same text again is merged', async () => {
    const occurred = new Date('2024-05-08T13:56:00Z');
    const stored = await client.store('The MCP server listens on port 8765', {
      memory_type: 'semantic',
      metadata: { source: 'test', tags: ['ops'] },
      ttl: 3600,
      session_id: 'chat-1',
      occurred_at: occurred,
    });
    assertShape('StoreResult', stored);
    assert.equal(stored.status, 'stored');
    assert.equal(stored.merged, null);
    assert.equal(stored.id, stored.memory.id);
    assert.equal(stored.memory.content, 'The MCP server listens on port 8765');
    assert.equal(stored.memory.memory_type, 'semantic');
    assert.equal(stored.memory.namespace, 'sdk-test');
    assert.deepEqual(stored.memory.metadata, { source: 'test', tags: ['ops'] });
    assert.equal(stored.memory.ttl, 3600);
    assert.equal(stored.memory.session_id, 'chat-1');
    assert.equal(stored.memory.occurred_at, '2024-05-08T13:56:00Z');

    const again = await client.store('The MCP server listens on port 8765', { memory_type: 'semantic' });
    assertShape('StoreResult', again);
    assert.equal(again.status, 'merged');
    assert.equal(again.merged.into, stored.id);
    assert.equal(again.merged.exact, true);
  });

  test('store with supersedes: the older memory becomes history', async () => {
    const old = await client.store('The deploy window is Tuesday', { memory_type: 'semantic' });
    const current = await client.store('The deploy window moved to Thursday', {
      memory_type: 'semantic',
      supersedes: [old.id],
    });
    assertShape('StoreResult', current);
    assert.deepEqual(
      current.superseded.map((s) => [s.id, s.made_by]),
      [[old.id, 'caller']],
    );
    const history = await client.history(current.id);
    assertShape('HistoryResult', history);
    assert.deepEqual(history.history.map((m) => m.id), [old.id]);
    assert.equal(history.history[0].superseded_by, current.id);
    assert.equal(history.history[0].link.made_by, 'caller');
  });

  test('recall: hits best first, top_k, explain', async () => {
    await client.store('I like hiking in the Fragrant Hills on weekends', { metadata: { tags: ['hobby'] } });
    await client.store('我喜欢在周末去香山爬山', { metadata: { tags: ['hobby'] } });
    const result = await client.recall('hiking weekends', { top_k: 1, explain: true });
    assertShape('RecallResult', result);
    assert.equal(result.hits.length, 1);
    assert.equal(result.hits[0].memory.content, 'I like hiking in the Fragrant Hills on weekends');
    assert.ok(result.hits[0].score > 0);
    assert.equal(typeof result.hits[0].explanation.value, 'number');
    assert.ok(result.query_terms.length > 0);
    assert.match(result.vector_search, /keyword-only/);

    const chinese = await client.recall('爬山', { tags: ['hobby'] });
    assert.equal(chinese.hits[0].memory.content, '我喜欢在周末去香山爬山');

    const budget = await client.recall('hiking', { max_tokens: 1 });
    assertShape('RecallResult', budget);
    assert.equal(typeof budget.over_budget, 'number');
  });

  test('recall with count_access false previews without counting', async () => {
    const namespace = 'sdk-count-access';
    await client.store('The staging database is called atlas', { namespace });
    for (let i = 0; i < 2; i++) {
      const preview = await client.recall('staging database atlas', { namespace, count_access: false });
      assert.equal(preview.hits[0].memory.content, 'The staging database is called atlas');
      assert.equal(preview.hits[0].memory.access_count, 0);
    }
    const counted = await client.recall('staging database atlas', { namespace });
    assert.equal(counted.hits[0].memory.access_count, 1);
  });

  test('get, update, history, delete', async () => {
    const { id } = await client.store('The staging database is on host db-3');
    const got = await client.get(id);
    assertShape('MemoryResult', got);
    assert.equal(got.memory.content, 'The staging database is on host db-3');

    const updated = await client.update(id, { content: 'The staging database is on host db-4', metadata: { tags: ['infra'] } });
    assertShape('MemoryResult', updated);
    assert.equal(updated.memory.content, 'The staging database is on host db-4');
    assert.deepEqual(updated.memory.metadata.tags, ['infra']);

    const history = await client.history(id);
    assertShape('HistoryResult', history);
    assert.equal(history.history[0].content, 'The staging database is on host db-3');
    assert.equal(history.history[0].link.made_by, 'update');

    assert.equal(await client.delete(id), undefined);
    await assert.rejects(client.get(id), (error) => error instanceof NotFoundError && error.code === 'not_found');
  });

  test('list: filters, paging, Date bounds', async () => {
    const ns = { namespace: 'sdk-list' };
    await client.store('first note', { ...ns, session_id: 's-list', occurred_at: '2024-01-01T00:00:00Z', metadata: { tags: ['a'] } });
    await client.store('second note', { ...ns, session_id: 's-list', occurred_at: '2024-02-01T00:00:00Z' });
    await client.store('third note', { ...ns, memory_type: 'semantic', occurred_at: '2024-03-01T00:00:00Z' });

    const all = await client.list(ns);
    assertShape('MemoryList', all);
    assert.deepEqual(all.memories.map((m) => m.content), ['third note', 'second note', 'first note']);
    assert.deepEqual((await client.list({ ...ns, limit: 1, offset: 1 })).memories.map((m) => m.content), ['second note']);
    assert.deepEqual((await client.list({ ...ns, tags: ['a'] })).memories.map((m) => m.content), ['first note']);
    assert.deepEqual((await client.list({ ...ns, memory_type: 'semantic' })).memories.map((m) => m.content), ['third note']);
    assert.deepEqual(
      (await client.list({ ...ns, session_id: 's-list', occurred_after: new Date('2024-01-15T00:00:00Z') })).memories.map((m) => m.content),
      ['second note'],
    );
    assert.deepEqual((await client.list({ ...ns, occurred_before: '2024-01-15T00:00:00Z', include_archived: false })).memories.length, 1);
  });

  test('list by two tags: only memories carrying both', async () => {
    const ns = { namespace: 'sdk-list-tags' };
    const both = await client.store('Flight to Lisbon for the conference', { ...ns, metadata: { tags: ['travel', 'work'] } });
    await client.store('Beach week in the Algarve', { ...ns, metadata: { tags: ['travel'] } });
    await client.store('Quarterly planning offsite', { ...ns, metadata: { tags: ['work'] } });

    const tagged = await client.list({ ...ns, tags: ['travel', 'work'] });
    assertShape('MemoryList', tagged);
    assert.deepEqual(tagged.memories.map((m) => m.id), [both.id]);
    assert.deepEqual((await client.list({ ...ns, tags: ['work', 'travel'] })).memories.map((m) => m.id), [both.id]);
    assert.equal((await client.list({ ...ns, tags: ['travel'] })).memories.length, 2);
    assert.equal((await client.list({ ...ns, tag: 'travel' })).memories.length, 2, 'the older `tag` still works');
    assert.deepEqual((await client.list({ ...ns, tags: ['travel', 'work', 'holiday'] })).memories, []);
    assert.equal((await client.list({ ...ns, tags: [] })).memories.length, 3, 'no tags: no filter');
    assert.throws(() => client.list({ ...ns, tags: ['travel'], tag: 'work' }), { name: 'TypeError', message: /`tags` or `tag`/ });
  });

  test('list and update take the namespace as their own field', async () => {
    const other = new Client({ url: server.url, namespace: 'sdk-not-this-one' });
    const { id } = await client.store('A note in 命名空间-2', { namespace: '命名空间-2' });
    assert.deepEqual((await other.list({ namespace: '命名空间-2' })).memories.map((m) => m.id), [id]);
    assert.deepEqual((await other.list()).memories, []);

    const updated = await other.update(id, { ttl: 0, namespace: '命名空间-2' });
    assertShape('MemoryResult', updated);
    assert.equal(updated.memory.namespace, '命名空间-2');
    assert.equal((await other.update(id, { content: 'An edited note' }, { namespace: '命名空间-2' })).memory.content, 'An edited note');
    await assert.rejects(other.update(id, { ttl: 0 }), NotFoundError);
    assert.throws(() => other.update(id, { ttl: 0, namespace: 'a' }, { namespace: 'b' }), TypeError);
  });

  test('the query string repeats a list\'s key and carries the namespace; PATCH sends it in the body', async () => {
    const stub = await startStub([{ status: 200, body: { memories: [] } }, { status: 200, body: { memories: [] } }, { status: 200, body: { memory: {} } }]);
    try {
      const stubbed = new Client({ url: stub.url, namespace: '项目' });
      await stubbed.list({ tags: ['a', 'b c'], include_archived: true, limit: 5, occurred_after: new Date('2024-01-15T00:00:00Z') });
      await stubbed.list({ tag: 'a', namespace: 'other' });
      await stubbed.update('m-1', { ttl: 0 });
      const [first, second, patch] = stub.requests;
      assert.equal(first.url, '/v1/memories?tags=a&tags=b+c&include_archived=true&limit=5&occurred_after=2024-01-15T00%3A00%3A00.000Z&namespace=%E9%A1%B9%E7%9B%AE');
      assert.equal(first.headers['x-rearview-namespace'], undefined);
      assert.equal(second.url, '/v1/memories?tags=a&namespace=other');
      assert.equal(patch.method, 'PATCH');
      assert.deepEqual(JSON.parse(patch.body), { ttl: 0, namespace: '项目' });
      assert.equal(patch.headers['x-rearview-namespace'], undefined);
    } finally {
      await stub.close();
    }
  });
});

describe('lifecycle', () => {
  test('endSession: working memories become episodes', async () => {
    await client.store('The user asked to migrate the database from MySQL to PostgreSQL', { memory_type: 'working', session_id: 'chat-42' });
    await client.store('thanks', { memory_type: 'working', session_id: 'chat-42' });
    const ended = await client.endSession('chat-42');
    assertShape('SessionEndResult', ended);
    assert.equal(ended.working_memories, 2);
    assert.equal(ended.small_talk, 1);
    assert.equal(ended.episodes.length, 1);
    assert.equal(ended.episodes[0].memory.memory_type, 'episodic');
    assert.match(ended.episodes[0].memory.content, /PostgreSQL/);
  });

  test('summarize: a dry run previews, then one semantic memory is stored', async () => {
    const ns = { namespace: 'sdk-summarize' };
    const a = await client.store('I had sushi for lunch on Monday', ns);
    const b = await client.store('I had ramen for dinner on Tuesday', ns);
    const preview = await client.summarize([a.id, b.id], { ...ns, dry_run: true });
    assertShape('SummarizePreview', preview);
    assert.equal(preview.preview.sources, 2);
    assert.equal((await client.list(ns)).memories.length, 2, 'a dry run writes nothing');

    const distilled = await client.summarize([a.id, b.id], { ...ns, instruction: 'sushi', originals: 'archive' });
    assertShape('DistillResult', distilled);
    assert.equal(distilled.memory.memory_type, 'semantic');
    assert.deepEqual([...distilled.memory.source_ids].sort(), [a.id, b.id].sort());
    assert.equal(distilled.originals_changed, 2);
    assert.equal(distilled.already_existed, false);
    assert.equal((await client.get(a.id, ns)).memory.archived, true);
  });

  test('suggestDistillations: needs an embedding model (503), checks its input (400)', async () => {
    await assert.rejects(client.suggestDistillations(), (error) => {
      assert.ok(error instanceof UnavailableError);
      assert.equal(error.status, 503);
      assert.equal(error.code, 'unavailable');
      return true;
    });
    await assert.rejects(client.suggestDistillations({ min_size: 1 }), (error) => {
      assert.ok(error instanceof InvalidInputError);
      assert.match(error.message, /min_size/);
      return true;
    });
  });

  test('archive and restore, one id or several', async () => {
    const a = await client.store('archive me one');
    const b = await client.store('archive me two');
    const archived = await client.archive([a.id, b.id]);
    assertShape('MemoryList', archived);
    assert.deepEqual(archived.memories.map((m) => m.archived), [true, true]);
    assert.equal((await client.recall('archive me')).hits.length, 0);
    assert.equal((await client.recall('archive me', { include_archived: true })).hits.length, 2);

    const restored = await client.restore(a.id);
    assertShape('MemoryList', restored);
    assert.deepEqual(restored.memories.map((m) => [m.id, m.archived]), [[a.id, false]]);
  });

  test('cleanup deletes expired memories of the namespace', async () => {
    const ns = { namespace: 'sdk-cleanup' };
    await client.store('short-lived', { ...ns, ttl: 1 });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const cleaned = await client.cleanup(ns);
    assertShape('CleanupResult', cleaned);
    assert.deepEqual(cleaned, { cleaned: 1, namespace: 'sdk-cleanup' });
  });

  test('stats and timeline', async () => {
    const stats = await client.stats();
    assertShape('Stats', stats);
    assert.ok(stats.tiers.some((t) => t.namespace === 'sdk-test' && t.live > 0));
    assert.equal(stats.embedding.degraded, true);

    const timeline = await client.timeline({ days: 7 });
    assertShape('Timeline', timeline);
    assert.equal(timeline.namespace, 'sdk-test');
    assert.equal(timeline.days, 7);
  });
});

describe('links', () => {
  test('possibleUpdates, link, unlink', async () => {
    const ns = { namespace: 'sdk-links' };
    const paris = await client.store('The user lives in Paris', { ...ns, memory_type: 'semantic' });
    const berlin = await client.store('The user lives in Berlin', { ...ns, memory_type: 'semantic' });
    assertShape('StoreResult', berlin);
    assert.deepEqual(berlin.possible_updates.map((p) => p.id), [paris.id]);

    const pending = await client.possibleUpdates({ ...ns, limit: 10 });
    assertShape('PossibleUpdatesResult', pending);
    assert.deepEqual(pending.pending.map((p) => p.memory.id), [berlin.id]);
    assert.equal(pending.pending[0].possible_updates[0].content, 'The user lives in Paris');

    const linked = await client.link(berlin.id, { ...ns, supersedes: [paris.id], reason: 'moved' });
    assertShape('LinkResult', linked);
    assert.deepEqual(linked.superseded, [{ id: paris.id, made_by: 'caller', reason: 'moved' }]);
    assert.deepEqual((await client.possibleUpdates(ns)).pending, []);
    assert.equal((await client.recall('user lives', ns)).hits.length, 1);

    const unlinked = await client.unlink(paris.id, ns);
    assertShape('MemoryResult', unlinked);
    assert.equal(unlinked.memory.superseded_by, null);

    const dismissed = await client.link(berlin.id, { ...ns, dismiss: [paris.id] });
    assertShape('LinkResult', dismissed);
    assert.deepEqual(dismissed.superseded, []);
    assert.deepEqual((await client.possibleUpdates(ns)).pending, []);
  });
});

describe('namespaces and defaults', () => {
  test('a call names its namespace; namespaces never see each other', async () => {
    await client.store('only in ns-one', { namespace: 'ns-one' });
    assert.equal((await client.recall('ns-one', { namespace: 'ns-one' })).hits.length, 1);
    assert.equal((await client.recall('ns-one', { namespace: 'ns-two' })).hits.length, 0);
    assert.equal((await client.list({ namespace: 'ns-one' })).memories.length, 1);
  });

  test('a namespace beyond ASCII works everywhere: in bodies, and percent-encoded in the header', async () => {
    const chinese = new Client({ url: server.url, namespace: '项目' });
    const stored = await chinese.store('中文命名空间里的记忆');
    assert.equal(stored.memory.namespace, '项目');
    assert.equal((await chinese.recall('记忆')).hits[0].memory.id, stored.id);
    assert.deepEqual((await chinese.list()).memories.map((m) => m.id), [stored.id]);
    assert.equal((await chinese.get(stored.id)).memory.content, '中文命名空间里的记忆');
  });

  test('defaults come from REARVIEW_URL, REARVIEW_API_KEY and REARVIEW_NAMESPACE', async () => {
    const saved = { ...process.env };
    try {
      process.env.REARVIEW_URL = `${server.url}/`;
      process.env.REARVIEW_NAMESPACE = 'from-env';
      delete process.env.REARVIEW_API_KEY;
      const fromEnv = new Client();
      assert.equal(fromEnv.url, server.url);
      assert.equal(fromEnv.namespace, 'from-env');
      const stored = await fromEnv.store('namespace from the environment');
      assert.equal(stored.memory.namespace, 'from-env');

      // The key is sent: this server has no keys, and refuses one it does not know.
      process.env.REARVIEW_API_KEY = 'rv_not_a_key_of_this_server';
      await assert.rejects(new Client().stats(), { name: 'UnauthorizedError', status: 401, code: 'unauthorized' });

      const explicit = new Client({ url: 'http://example.invalid:1', namespace: 'mine', apiKey: 'k' });
      assert.equal(explicit.url, 'http://example.invalid:1');
      assert.equal(explicit.namespace, 'mine');
    } finally {
      process.env = saved;
    }
  });
});
