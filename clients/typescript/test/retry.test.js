// Retries of 429 and 503 with Retry-After, and what goes on the wire, against a tiny HTTP stub.
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';

import { Client, RateLimitedError, UnavailableError } from '../dist/index.js';
import { startStub } from './helpers.js';

const OK = { status: 200, body: { memories: [] } };
const limited = (retryAfter) => ({
  status: 429,
  headers: retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) },
  body: { code: 'rate_limited', message: 'this key is over its request rate (--rate-limit); retry in 1 s' },
});
const overloaded = (retryAfter) => ({
  status: 503,
  headers: retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) },
  body: { code: 'overloaded', message: 'the server is at --max-in-flight' },
});

let stub;
afterEach(() => stub?.close());

describe('retries', () => {
  test('429 with Retry-After: 1 waits a second, then succeeds', async () => {
    stub = await startStub([limited(1), OK]);
    const answer = await new Client({ url: stub.url }).list();
    assert.deepEqual(answer, { memories: [] });
    assert.equal(stub.requests.length, 2);
    const waited = stub.requests[1].at - stub.requests[0].at;
    assert.ok(waited >= 950 && waited < 2000, `waited ${waited} ms`);
  });

  test('503 with Retry-After is retried up to maxRetries (default 2)', async () => {
    stub = await startStub([overloaded(0), overloaded(0), OK]);
    assert.deepEqual(await new Client({ url: stub.url }).list(), { memories: [] });
    assert.equal(stub.requests.length, 3);
  });

  test('past maxRetries the last error is thrown', async () => {
    stub = await startStub([overloaded(0)]);
    await assert.rejects(new Client({ url: stub.url }).list(), (error) => {
      assert.ok(error instanceof UnavailableError);
      assert.equal(error.status, 503);
      assert.equal(error.code, 'overloaded');
      assert.equal(error.retryAfter, 0);
      return true;
    });
    assert.equal(stub.requests.length, 3);
  });

  test('maxRetries is configurable; 0 turns retries off', async () => {
    stub = await startStub([limited(0)]);
    await assert.rejects(new Client({ url: stub.url, maxRetries: 0 }).list(), RateLimitedError);
    assert.equal(stub.requests.length, 1);
    await assert.rejects(new Client({ url: stub.url, maxRetries: 4 }).list(), RateLimitedError);
    assert.equal(stub.requests.length, 1 + 5);
  });

  test('without Retry-After nothing is retried', async () => {
    stub = await startStub([overloaded(undefined), OK]);
    await assert.rejects(new Client({ url: stub.url }).list(), { status: 503, retryAfter: undefined });
    assert.equal(stub.requests.length, 1);
  });

  test('a Retry-After longer than maxRetryDelayMs is thrown at once', async () => {
    stub = await startStub([limited(120)]);
    const started = Date.now();
    await assert.rejects(new Client({ url: stub.url }).list(), { status: 429, retryAfter: 120 });
    assert.ok(Date.now() - started < 500);
    assert.equal(stub.requests.length, 1);
    await assert.rejects(new Client({ url: stub.url, maxRetryDelayMs: 500 }).list(), { status: 429 });
  });

  test('Retry-After as an HTTP date', async () => {
    stub = await startStub([
      { ...overloaded(), headers: { 'retry-after': new Date(Date.now() + 1000).toUTCString() } },
      OK,
    ]);
    assert.deepEqual(await new Client({ url: stub.url }).list(), { memories: [] });
    assert.equal(stub.requests.length, 2);
    assert.ok(stub.requests[1].at - stub.requests[0].at >= 200);
  });

  test('a store is retried with the same body', async () => {
    stub = await startStub([limited(0), { status: 201, body: { id: 'x' } }]);
    await new Client({ url: stub.url }).store('remember me', { ttl: 60 });
    assert.equal(stub.requests.length, 2);
    assert.equal(stub.requests[0].body, stub.requests[1].body);
    assert.deepEqual(JSON.parse(stub.requests[1].body), { ttl: 60, content: 'remember me' });
  });

  test('aborting while waiting to retry rejects at once', async () => {
    stub = await startStub([limited(10)]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    await assert.rejects(new Client({ url: stub.url }).list({ signal: controller.signal }), { name: 'AbortError' });
    assert.ok(Date.now() - started < 2000);
    assert.equal(stub.requests.length, 1);
  });
});

describe('the wire', () => {
  test('headers, namespace placement, query strings', async () => {
    stub = await startStub([OK]);
    const client = new Client({ url: `${stub.url}/`, apiKey: 'rv_secret', namespace: 'team', headers: { 'x-trace': 't1' } });
    await client.list({ tags: ['work', 'q3'], include_archived: true, occurred_after: new Date('2024-01-01T00:00:00Z'), limit: 5 });
    await client.recall('ports', { top_k: 3, namespace: 'other' });
    await client.update('id/1', { ttl: 0 });
    await client.cleanup();
    await client.stats();
    await client.delete('abc');

    const [list, recall, update, cleanup, stats, del] = stub.requests;
    assert.equal(list.method, 'GET');
    assert.equal(list.url, '/v1/memories?tags=work&tags=q3&include_archived=true&occurred_after=2024-01-01T00%3A00%3A00.000Z&limit=5&namespace=team');
    assert.equal(list.headers.authorization, 'Bearer rv_secret');
    assert.equal(list.headers['x-rearview-namespace'], undefined, 'a query with a namespace field carries it there');
    assert.equal(list.headers['x-trace'], 't1');
    assert.equal(list.headers.accept, 'application/json');
    assert.match(list.headers['user-agent'], /^rearview-client-ts\//);
    assert.equal(list.body, '');

    assert.equal(recall.method, 'POST');
    assert.equal(recall.url, '/v1/recall');
    assert.equal(recall.headers['content-type'], 'application/json');
    assert.equal(recall.headers['x-rearview-namespace'], undefined, 'a body route carries the namespace in its body');
    assert.deepEqual(JSON.parse(recall.body), { top_k: 3, query: 'ports', namespace: 'other' });

    assert.equal(update.method, 'PATCH');
    assert.equal(update.url, '/v1/memories/id%2F1');
    assert.equal(update.headers['x-rearview-namespace'], undefined, "PATCH's body has a namespace field");
    assert.deepEqual(JSON.parse(update.body), { ttl: 0, namespace: 'team' });

    assert.equal(cleanup.method, 'POST');
    assert.equal(cleanup.headers['x-rearview-namespace'], 'team', 'cleanup reads only the header');
    assert.equal(cleanup.body, '');

    assert.equal(stats.headers['x-rearview-namespace'], undefined, 'stats takes no namespace');
    assert.equal(del.method, 'DELETE');
  });
});
