// The package as an app installs it: scripts/pack-typescript.sh's tarball (made by scripts/test-typescript.sh before
// the tests run) unpacked where npm puts it, node_modules/@linkd/client, and imported by name from an app's module —
// through package.json's `exports`, not a path into dist/. Its version is linkd's release (packaging/VERSION).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const clientDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const root = join(clientDir, '..', '..');
const version = JSON.parse(readFileSync(join(clientDir, 'package.json'), 'utf8')).version;

test('the client\'s version is linkd\'s release, packaging/VERSION', () => {
  assert.equal(version, readFileSync(join(root, 'packaging', 'VERSION'), 'utf8').trim());
});

test('the packed tarball installs as @linkd/client and an app module imports it by name', () => {
  const tarball = join(clientDir, `linkd-client-${version}.tgz`);
  assert.ok(existsSync(tarball), `${tarball} is missing: scripts/test-typescript.sh packs it before the tests`);
  const listing = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).split('\n');
  for (const entry of ['package/package.json', 'package/dist/index.js', 'package/dist/index.d.ts', 'package/src/index.ts']) {
    assert.ok(listing.includes(entry), `${entry} is not in the tarball`);
  }
  assert.ok(!listing.some((entry) => entry.includes('/test/') || entry.includes('node_modules')), 'tests or node_modules packed');

  const app = mkdtempSync(join(tmpdir(), 'linkd-app-'));
  const installed = join(app, 'node_modules', '@linkd', 'client');
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['xzf', tarball, '-C', installed, '--strip-components=1']);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', type: 'module', dependencies: { '@linkd/client': version } }));
  writeFileSync(join(app, 'app.mjs'), [
    "import { LinkdClient, claimCodeFromPasted, navigationActions } from '@linkd/client';",
    "const client = new LinkdClient({ baseURL: 'https://links.handz.example' });",
    "const code = claimCodeFromPasted('https://links.handz.example/s/x#linkd_claim=AAAAAAAAAAAAAAAAAAAAAA');",
    "console.log(JSON.stringify({ client: typeof client.resolve, code, actions: navigationActions({ outcome: 'notFound', params: {}, stack: [], tabBarVisible: true, returnTo: {} }, { state: 'free' }) }));",
  ].join('\n'));
  const printed = JSON.parse(execFileSync(process.execPath, ['app.mjs'], { cwd: app, encoding: 'utf8' }));
  assert.deepEqual(printed, { client: 'function', code: 'AAAAAAAAAAAAAAAAAAAAAA', actions: [] });
});
