// The declared types against the live /openapi.json: property names, required lists, enums and
// routes. The compiler already ties src/registry.ts to src/types.ts; this ties it to the server.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { Client } from '../dist/index.js';
import { enums, registry, routes } from '../dist/registry.js';
import { startServer } from './helpers.js';

/** The schema at JSON pointer `pointer`, its `$ref`s followed. */
function resolve(document, pointer) {
  let node = document;
  for (const raw of pointer.replace(/^#\//, '').split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    node = node?.[key];
    while (node && typeof node.$ref === 'string') node = resolve(document, node.$ref);
  }
  return node;
}

/** The values of an enumeration schema: `enum`, or `oneOf` / `anyOf` of `const`s. */
function enumValues(schema) {
  if (Array.isArray(schema?.enum)) return schema.enum;
  const options = schema?.oneOf ?? schema?.anyOf;
  return Array.isArray(options) ? options.map((o) => o.const) : undefined;
}

const sorted = (list) => [...list].sort();
const diff = (a, b) => a.filter((x) => !b.includes(x));

/** Every difference between the registry and `document`, as sentences; empty when none. */
export function driftReport(document) {
  const problems = [];
  for (const [name, entry] of Object.entries(registry)) {
    if (entry.source === null) continue;
    for (const pointer of [entry.source].flat()) {
      const schema = resolve(document, pointer);
      if (!schema || [schema.type].flat()[0] !== 'object') {
        problems.push(`${name}: no object schema at ${pointer}`);
        continue;
      }
      // An object schema without properties documents none (the `subset` entries allow that).
      const documented = Object.keys(schema.properties ?? {});
      const extra = diff(documented, entry.properties);
      if (extra.length) problems.push(`${name}: the server documents properties the type lacks: ${extra.join(', ')}`);
      if (entry.match === 'exact') {
        const gone = diff(entry.properties, documented);
        if (gone.length) problems.push(`${name}: the type has properties the server does not document: ${gone.join(', ')}`);
      }
      if (Array.isArray(schema.required)) {
        const ours = diff(entry.required, entry.alsoRequired ?? []);
        if (JSON.stringify(sorted(ours)) !== JSON.stringify(sorted(schema.required))) {
          problems.push(`${name}: required ${JSON.stringify(sorted(ours))}, the server requires ${JSON.stringify(sorted(schema.required))}`);
        }
      } else if (entry.kind === 'request' && entry.required.length > 0) {
        problems.push(`${name}: the type requires ${entry.required.join(', ')}, the server requires nothing`);
      }
    }
  }
  for (const [name, { source, values }] of Object.entries(enums)) {
    const documented = enumValues(resolve(document, source));
    if (!documented) problems.push(`${name}: no enumeration at ${source}`);
    else if (JSON.stringify(sorted(documented)) !== JSON.stringify(sorted(values))) {
      problems.push(`${name}: values ${JSON.stringify(sorted(values))}, the server has ${JSON.stringify(sorted(documented))}`);
    }
  }
  const served = Object.entries(document.paths ?? {})
    .filter(([path]) => path.startsWith('/v1/'))
    .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`));
  const uncovered = diff(served, Object.keys(routes));
  if (uncovered.length) problems.push(`routes the client does not cover: ${uncovered.join(', ')}`);
  const gone = diff(Object.keys(routes), served);
  if (gone.length) problems.push(`routes the server no longer has: ${gone.join(', ')}`);
  return problems;
}

let server;
let document;

before(async () => {
  server = await startServer();
  const response = await fetch(`${server.url}/openapi.json`);
  assert.equal(response.status, 200);
  document = await response.json();
});
after(() => server?.stop());

test('the declared types match the live OpenAPI document', () => {
  assert.match(document.openapi, /^3\./);
  assert.deepEqual(driftReport(document), []);
});

test('every route the registry names has its client method', () => {
  for (const [route, method] of Object.entries(routes)) {
    assert.equal(typeof Client.prototype[method], 'function', `${route}: Client.${method}`);
  }
});

test('the drift check notices drift', () => {
  const drifted = structuredClone(document);
  const schemas = drifted.components.schemas;
  schemas.Memory.properties.importance = { type: 'number' };
  schemas.StoreParams.required.push('memory_type');
  schemas.Tier.oneOf.push({ const: 'procedural', type: 'string' });
  delete schemas.RecallResult.properties.below_floor;
  drifted.paths['/v1/memories/{id}/pin'] = { post: {} };
  const report = driftReport(drifted);
  const expected = [
    /^Memory: the server documents properties the type lacks: importance$/,
    /^StoreParams: required/,
    /^MemoryType: values/,
    /^RecallResult: the type has properties the server does not document: below_floor$/,
    /^routes the client does not cover: POST \/v1\/memories\/\{id\}\/pin$/,
  ];
  for (const pattern of expected) {
    assert.ok(report.some((line) => pattern.test(line)), `expected ${pattern} in:\n${report.join('\n')}`);
  }
});
