// Errors from a real server, with their exact status and code, and the client's own failures.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';

import {
  Client,
  ForbiddenError,
  InvalidInputError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  RearviewConnectionError,
  RearviewError,
  RearviewTimeoutError,
  UnauthorizedError,
  UnavailableError,
} from '../dist/index.js';
import { assertShape, startServer, startStub } from './helpers.js';

/** Assert that `promise` rejects with `Kind`, `status` and `code`; returns the error. */
async function refused(promise, Kind, status, code) {
  let caught;
  await assert.rejects(promise, (error) => {
    caught = error;
    return true;
  });
  assert.ok(caught instanceof Kind, `expected ${Kind.name}, got ${caught?.name}: ${caught?.message}`);
  assert.ok(caught instanceof RearviewError);
  assert.equal(caught.name, Kind.name);
  assert.equal(caught.status, status);
  assert.equal(caught.code, code);
  assert.equal(typeof caught.message, 'string');
  assert.ok(caught.message.length > 0);
  return caught;
}

describe('a server without keys', () => {
  let server;
  let client;
  before(async () => {
    // A small body limit: the 413 comes while the request is already written.
    server = await startServer({ args: ['--max-request-bytes', '4096'] });
    client = new Client({ url: server.url });
  });
  after(() => server?.stop());

  test('400 invalid_input names the field', async () => {
    const empty = await refused(client.store(''), InvalidInputError, 400, 'invalid_input');
    assert.match(empty.message, /content/);
    const tier = await refused(client.store('x', { memory_type: 'longterm' }), InvalidInputError, 400, 'invalid_input');
    assert.match(tier.message, /memory_type/);
    const topK = await refused(client.recall('x', { top_k: 0 }), InvalidInputError, 400, 'invalid_input');
    assert.match(topK.message, /top_k/);
    const badId = await refused(client.get('not-a-uuid'), InvalidInputError, 400, 'invalid_input');
    assert.match(badId.message, /id/);
    const noChange = await refused(client.update('01a24efa-6630-78d9-9657-5718ced80e49', {}), InvalidInputError, 400, 'invalid_input');
    assert.match(noChange.message, /at least one/);
    const unknown = await refused(client.store('x', { colour: 'red' }), InvalidInputError, 400, 'invalid_input');
    assert.match(unknown.message, /colour/);
    await refused(client.list({ limit: 0 }), InvalidInputError, 400, 'invalid_input');
    await refused(client.link('01a24efa-6630-78d9-9657-5718ced80e49', {}), InvalidInputError, 400, 'invalid_input');
  });

  test('404 not_found', async () => {
    const missing = '01a24efa-6630-78d9-9657-000000000000';
    for (const call of [
      () => client.get(missing),
      () => client.update(missing, { content: 'x' }),
      () => client.delete(missing),
      () => client.history(missing),
      () => client.archive([missing]),
      () => client.restore([missing]),
      () => client.unlink(missing),
      () => client.link(missing, { supersedes: ['01a24efa-6630-78d9-9657-000000000001'] }),
      () => client.summarize([missing]),
    ]) {
      const error = await refused(call(), NotFoundError, 404, 'not_found');
      assert.match(error.message, new RegExp(missing));
    }
  });

  test('413 payload_too_large', async () => {
    const error = await refused(client.store('a'.repeat(5000)), PayloadTooLargeError, 413, 'payload_too_large');
    assert.match(error.message, /4096/);
  });

  test('503 unavailable without Retry-After is thrown at once', async () => {
    const started = Date.now();
    const error = await refused(client.suggestDistillations(), UnavailableError, 503, 'unavailable');
    assert.equal(error.retryAfter, undefined);
    assert.ok(Date.now() - started < 1000);
  });

  test('the error body has the registry shape', async () => {
    const response = await fetch(`${server.url}/v1/memories/not-a-uuid`);
    assertShape('ErrorBody', await response.json());
  });
});

describe('a server with keys', () => {
  const adminKey = 'a'.repeat(40);
  let server;
  before(async () => {
    server = await startServer({ keys: ['alice'], adminKey, args: ['--rate-limit', '2'] });
  });
  after(() => server?.stop());

  test('401 unauthorized without a key or with a wrong one', async () => {
    await refused(new Client({ url: server.url }).stats(), UnauthorizedError, 401, 'unauthorized');
    await refused(new Client({ url: server.url, apiKey: 'rv_wrong' }).stats(), UnauthorizedError, 401, 'unauthorized');
  });

  test('403 forbidden outside the key grant, in the body and in the header', async () => {
    const alice = new Client({ url: server.url, apiKey: server.keys.alice, maxRetries: 5 });
    await refused(alice.store('x', { namespace: 'bob' }), ForbiddenError, 403, 'forbidden');
    await refused(alice.list({ namespace: 'bob' }), ForbiddenError, 403, 'forbidden');
    const stored = await alice.store('alice remembers');
    assert.equal(stored.memory.namespace, 'alice', "a key's only namespace is the default");
  });

  test('keys: an admin creates, lists and revokes; the new key works until revoked', async () => {
    const admin = new Client({ url: server.url, apiKey: adminKey, maxRetries: 5 });
    const created = await admin.createKey({ namespaces: ['carol'], label: 'ts test' });
    assertShape('ApiKey', created);
    assert.deepEqual(created.namespaces, ['carol']);
    assert.equal(created.label, 'ts test');
    assert.ok(created.key && created.active && !created.admin);
    const listed = await admin.listKeys();
    assertShape('KeyList', listed);
    const mine = listed.keys.find((k) => k.id === created.id);
    assert.ok(mine && mine.key === undefined, 'a listed key never shows its secret');
    const carol = new Client({ url: server.url, apiKey: created.key, maxRetries: 5 });
    const stored = await carol.store('carol remembers');
    assert.equal(stored.memory.namespace, 'carol');
    await refused(carol.listKeys(), ForbiddenError, 403, 'forbidden');
    assert.deepEqual(await admin.revokeKey(created.id), { revoked: created.id });
    await refused(carol.get(stored.id), UnauthorizedError, 401, 'unauthorized');
    await refused(admin.createKey({ namespaces: [] }), InvalidInputError, 400, 'invalid_input');
  });

  test('429 rate_limited carries Retry-After; retried, the calls go through', async () => {
    const burst = new Client({ url: server.url, apiKey: adminKey, maxRetries: 0 });
    let limited;
    for (let i = 0; i < 20 && !limited; i++) {
      try {
        await burst.stats();
      } catch (error) {
        limited = error;
      }
    }
    assert.ok(limited, 'the server never limited the rate');
    assert.ok(limited instanceof RateLimitedError);
    assert.equal(limited.status, 429);
    assert.equal(limited.code, 'rate_limited');
    assert.equal(limited.retryAfter, 1);

    // Rate 2/s, bursts of 4: eight calls need retries, and all succeed.
    const patient = new Client({ url: server.url, apiKey: adminKey, maxRetries: 5 });
    const results = await Promise.all(Array.from({ length: 8 }, () => patient.stats()));
    assert.equal(results.length, 8);
  });
});

describe('failures without an answer', () => {
  test('timeout: RearviewTimeoutError, status 0, code timeout', async () => {
    const stub = await startStub([{ status: 200, body: { memories: [] }, delayMs: 2000 }]);
    try {
      const client = new Client({ url: stub.url, timeoutMs: 100 });
      const started = Date.now();
      await refused(client.list(), RearviewTimeoutError, 0, 'timeout');
      assert.ok(Date.now() - started < 1500);
      // A call's own timeout wins over the client's.
      await refused(new Client({ url: stub.url }).list({ timeoutMs: 50 }), RearviewTimeoutError, 0, 'timeout');
    } finally {
      await stub.close();
    }
  });

  test("the caller's AbortSignal: its reason is thrown", async () => {
    const stub = await startStub([{ status: 200, body: { memories: [] }, delayMs: 2000 }]);
    try {
      const client = new Client({ url: stub.url });
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      await assert.rejects(client.list({ signal: controller.signal }), { name: 'AbortError' });
      await assert.rejects(client.list({ signal: AbortSignal.abort(new Error('stop')) }), { message: 'stop' });
    } finally {
      await stub.close();
    }
  });

  test('no server: RearviewConnectionError, status 0, code connection_error', async () => {
    const port = await new Promise((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address();
        probe.close(() => resolve(port));
      });
    });
    await refused(new Client({ url: `http://127.0.0.1:${port}` }).stats(), RearviewConnectionError, 0, 'connection_error');
  });

  test('other statuses: the subclass for the status, else RearviewError with http_<status>', async () => {
    const stub = await startStub([
      { status: 408, body: { code: 'request_timeout', message: 'the request body stalled' } },
      { status: 500, body: { code: 'internal', message: 'boom' } },
      { status: 502, headers: { 'content-type': 'text/html' }, body: '<html>bad gateway</html>' },
    ]);
    try {
      const client = new Client({ url: stub.url });
      const { RequestTimeoutError, InternalError } = await import('../dist/index.js');
      await refused(client.stats(), RequestTimeoutError, 408, 'request_timeout');
      const internal = await refused(client.stats(), InternalError, 500, 'internal');
      assert.equal(internal.message, 'boom');
      const gateway = await refused(client.stats(), RearviewError, 502, 'http_502');
      assert.equal(gateway.constructor, RearviewError);
      assert.match(gateway.message, /bad gateway/);
    } finally {
      await stub.close();
    }
  });
});
