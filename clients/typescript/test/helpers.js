// Test helpers: a real rearview server on a free port with a temporary database, a tiny HTTP
// stub, and a check of answers against the type registry.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import assert from 'node:assert/strict';

import { registry } from '../dist/registry.js';

export const BIN = process.env.REARVIEW_BIN || new URL('../../../target/debug/rearview', import.meta.url).pathname;

const run = promisify(execFile);

/**
 * Start `rearview serve` (keyword-only) on 127.0.0.1, port chosen by the system.
 * `keys`: namespaces to create a key for, each granting that namespace alone (keys are then
 * required). `adminKey`: given as REARVIEW_API_KEY at start (keys required too). `args`: more
 * `serve` flags. Resolves to `{url, keys, stop}`.
 */
export async function startServer({ keys = [], adminKey, args = [] } = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'rearview-ts-'));
  const db = join(dir, 'm.db');
  const created = {};
  for (const namespace of keys) {
    const { stdout } = await run(BIN, ['--model', 'none', '--db', db, 'keys', 'create', '--namespace', namespace, '--json']);
    created[namespace] = JSON.parse(stdout).key;
  }
  const env = { ...process.env, REARVIEW_LOG: 'warn' };
  delete env.REARVIEW_API_KEY;
  if (adminKey) env.REARVIEW_API_KEY = adminKey;
  const child = spawn(BIN, ['--model', 'none', '--db', db, 'serve', '--listen', '127.0.0.1:0', ...args], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`rearview did not start within 20 s:\n${log}`)), 20_000);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      if (log.length < 100_000) log += chunk; // keep draining the pipe either way
      const match = /listening on (http:\/\/[^\s]+)/.exec(log);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`rearview exited with ${code} before listening:\n${log}`));
    });
  });
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch (error) {
      if (i > 100) throw error;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    keys: created,
    log: () => log,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A stub HTTP server on a free loopback port: `answers` is a list of
 * `{status, headers?, body?, delayMs?}` served in order (the last one repeats).
 * Resolves to `{url, requests, close}`; `requests` records `{method, url, headers, body, at}`.
 */
export async function startStub(answers) {
  const requests = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      requests.push({ method: req.method, url: req.url, headers: req.headers, body, at: Date.now() });
      const answer = answers[Math.min(requests.length - 1, answers.length - 1)];
      const send = () => {
        if (res.destroyed) return;
        const text = answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
        res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
        res.end(text);
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

/**
 * Assert that `value` has the shape of registry entry `name`: every field it has is declared,
 * every required field is there, and nested fields (the entry's `refs`) match theirs.
 */
export function assertShape(name, value, path = name) {
  const array = name.endsWith('[]');
  if (array) {
    assert.ok(Array.isArray(value), `${path}: expected an array`);
    value.forEach((item, i) => assertShape(name.slice(0, -2), item, `${path}[${i}]`));
    return;
  }
  const entry = registry[name];
  assert.ok(entry, `no registry entry ${name}`);
  assert.ok(value !== null && typeof value === 'object' && !Array.isArray(value), `${path}: expected an object, got ${JSON.stringify(value)}`);
  const undeclared = Object.keys(value).filter((key) => !entry.properties.includes(key));
  assert.deepEqual(undeclared, [], `${path}: the server sent fields ${name} does not declare`);
  const missing = entry.required.filter((key) => !(key in value));
  assert.deepEqual(missing, [], `${path}: required fields of ${name} missing`);
  for (const [field, ref] of Object.entries(entry.refs ?? {})) {
    if (value[field] !== undefined && value[field] !== null) assertShape(ref, value[field], `${path}.${field}`);
  }
}
