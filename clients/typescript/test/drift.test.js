// The declared types against the live /openapi.json: property names, required lists, enums and
// routes. The compiler already ties src/registry.ts to src/types.ts; this ties it to the server.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { Client } from '../dist/index.js';
import { enums, queryParameters, registry, routes } from '../dist/registry.js';
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

/** The schema a registry source names: a JSON pointer, or an operation's query parameters. */
function schemaAt(document, source) {
  return typeof source === 'string' ? resolve(document, source) : queryParameters(document, source.query, source.method);
}

const describe = (source) => (typeof source === 'string' ? source : `the query parameters of ${(source.method ?? 'get').toUpperCase()} ${source.query}`);

/** Every difference between the registry and `document`, as sentences; empty when none. */
export function driftReport(document) {
  const problems = [];
  for (const [name, entry] of Object.entries(registry)) {
    if (entry.source === null) continue;
    for (const source of [entry.source].flat()) {
      const schema = schemaAt(document, source);
      if (!schema || [schema.type].flat()[0] !== 'object') {
        problems.push(`${name}: no object schema at ${describe(source)}`);
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

test('query parameters are read from the operation', () => {
  const list = queryParameters(document, '/v1/memories');
  assert.deepEqual(Object.keys(list.properties).sort(), [...registry.ListParams.properties].sort());
  assert.deepEqual(list.properties.tags.items, { type: 'string' }, 'tags is a list of strings');
  assert.deepEqual(list.required, []);
  assert.equal(queryParameters(document, '/v1/memories/{nothing}'), undefined);
  // The namespace header is a parameter too, but not of the query.
  assert.ok(document.paths['/v1/timeline'].get.parameters.some((p) => p.in === 'header'));
  assert.deepEqual(Object.keys(queryParameters(document, '/v1/timeline').properties), ['days']);
  assert.equal(document.paths['/v1/memories'].get['x-query-schema'], undefined);
});

test('the drift check notices drift', () => {
  const drifted = structuredClone(document);
  const schemas = drifted.components.schemas;
  schemas.Memory.properties.importance = { type: 'number' };
  schemas.StoreParams.required.push('memory_type');
  schemas.Tier.oneOf.push({ const: 'procedural', type: 'string' });
  delete schemas.RecallResult.properties.below_floor;
  drifted.paths['/v1/memories/{id}/pin'] = { post: {} };
  // Query strings: a parameter the client lacks, one it sends that is gone, one made required.
  const listing = drifted.paths['/v1/memories'].get.parameters;
  listing.push({ name: 'importance', in: 'query', required: false, schema: { type: 'number' } });
  const review = drifted.paths['/v1/possible-updates'].get;
  review.parameters = review.parameters.filter((p) => p.name !== 'offset');
  drifted.paths['/v1/timeline'].get.parameters.find((p) => p.name === 'days').required = true;
  // Answers the client reads: a field made required, an answer's shape changed.
  schemas.ApiKey.required.push('key');
  schemas.Summarized.anyOf.reverse();
  const report = driftReport(drifted);
  const expected = [
    /^Memory: the server documents properties the type lacks: importance$/,
    /^StoreParams: required/,
    /^MemoryType: values/,
    /^RecallResult: the type has properties the server does not document: below_floor$/,
    /^routes the client does not cover: POST \/v1\/memories\/\{id\}\/pin$/,
    /^ListParams: the server documents properties the type lacks: importance$/,
    /^PossibleUpdatesParams: the type has properties the server does not document: offset$/,
    /^TimelineParams: required \[\], the server requires \["days"\]$/,
    /^ApiKey: required/,
    /^DistillResult: the type has properties the server does not document/,
    /^SummarizePreview: the server documents properties the type lacks/,
  ];
  for (const pattern of expected) {
    assert.ok(report.some((line) => pattern.test(line)), `expected ${pattern} in:\n${report.join('\n')}`);
  }
});
