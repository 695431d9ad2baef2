// `npm pack`, install the tarball into a fresh project, import it there (JavaScript and
// TypeScript) and make calls against a real server.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';

import { VERSION } from '../dist/index.js';
import { startServer } from './helpers.js';

const run = promisify(execFile);
const root = dirname(dirname(fileURLToPath(import.meta.url)));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

let server;
let dir;

before(async () => {
  server = await startServer();
  dir = await mkdtemp(join(tmpdir(), 'rearview-ts-install-'));
});
after(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('the packed tarball installs and works in a new project', async () => {
  // `npm test` built dist/ already; --ignore-scripts keeps prepack from rebuilding it under
  // the other test files' feet.
  const { stdout } = await run(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: root });
  const [packed] = JSON.parse(stdout);
  const files = packed.files.map((f) => f.path).sort();
  for (const file of ['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/client.js', 'dist/errors.d.ts', 'dist/types.d.ts']) {
    assert.ok(files.includes(file), `${file} is in the tarball`);
  }
  assert.deepEqual(files.filter((f) => !f.startsWith('dist/') && !['package.json', 'README.md'].includes(f)), []);
  assert.deepEqual(files.filter((f) => f.startsWith('dist/registry')), [], 'the test-only registry stays out');
  assert.ok(packed.size < 50_000, `tarball ${packed.size} bytes`);
  assert.equal(packed.version, VERSION, 'VERSION (User-Agent) follows package.json');

  const project = join(dir, 'app');
  await run('mkdir', ['-p', project]);
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  await run(npm, ['install', '--no-audit', '--no-fund', '--ignore-scripts', join(dir, packed.filename)], { cwd: project });

  await writeFile(
    join(project, 'use.mjs'),
    `import { Client, NotFoundError, RearviewError } from 'rearview-client';
const client = new Client(); // REARVIEW_URL and REARVIEW_NAMESPACE from the environment
const stored = await client.store('installed from the tarball', { metadata: { tags: ['pack'] } });
const { hits } = await client.recall('tarball', { top_k: 1 });
let missing;
try { await client.get('01a24efa-6630-78d9-9657-000000000000'); } catch (e) { missing = e instanceof NotFoundError && e instanceof RearviewError && e.code; }
console.log(JSON.stringify({ status: stored.status, namespace: stored.memory.namespace, content: hits[0].memory.content, missing }));
`,
  );
  const env = { ...process.env, REARVIEW_URL: server.url, REARVIEW_NAMESPACE: 'installed' };
  delete env.REARVIEW_API_KEY;
  const used = await run(process.execPath, ['use.mjs'], { cwd: project, env });
  assert.deepEqual(JSON.parse(used.stdout), {
    status: 'stored',
    namespace: 'installed',
    content: 'installed from the tarball',
    missing: 'not_found',
  });

  // The declarations resolve from the installed package under NodeNext, and type the answers.
  await writeFile(
    join(project, 'check.ts'),
    `import { Client, RearviewError, type RecallResult, type StoreOptions } from 'rearview-client';
const client = new Client({ url: 'http://127.0.0.1:8765', namespace: 'me', timeoutMs: 5000, maxRetries: 1 });
const options: StoreOptions = { memory_type: 'semantic', ttl: 0, metadata: { tags: ['x'] } };
export async function demo(): Promise<string | undefined> {
  await client.store('text', options);
  const result: RecallResult = await client.recall('text', { top_k: 3 });
  const preview = await client.summarize(['id'], { dry_run: true });
  const sources: number = preview.preview.sources;
  void sources;
  try { await client.delete('id'); } catch (e) { if (e instanceof RearviewError) return e.code; }
  return result.hits[0]?.memory.content;
}
// @ts-expect-error: not a tier
export const wrong: StoreOptions = { memory_type: 'longterm' };
`,
  );
  await writeFile(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], types: [] },
      files: ['check.ts'],
    }),
  );
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project }).catch((error) =>
    assert.fail(`tsc in the installed project:\n${error.stdout}${error.stderr}`),
  );
});
