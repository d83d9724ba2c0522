// Share links through LinkdClient against a real `linkd serve`: made with a client key, opened by resolving their
// URL, inspected, revoked (then the same resolution is linkUnavailable); the answers whole in the client's types.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { LinkdClient, LinkdError, navigationPlan, decodeCreatedShareLink, decodeShareLink } from '../dist/index.js';
import { startDaemon, rawRequest } from '../test-support/daemon.mjs';
import { seedApps } from '../test-support/seed.mjs';
import { expectWhole } from '../test-support/wire.mjs';

let daemon;
before(async () => { daemon = await startDaemon(); });
after(async () => { await daemon?.stop(); });

async function resolveBothWays(client, url, state) {
  const typed = await client.resolve(url, { state });
  const raw = await daemon.rawResolve(url, state);
  expectWhole(typed, raw.json, `${url} as ${state}`);
  return typed;
}

test('share then revoke: a link of every shareable route of every seed app opens it in every state; revoked, it is linkUnavailable', async () => {
  for (const app of seedApps()) {
    const client = new LinkdClient({ baseURL: daemon.baseURL, apiKey: await daemon.clientKey(app.app) });
    if (app.shareables.length === 0) {
      // The story app shares nothing: the refusal is typed.
      const error = await client.createShareLink({ route: 'Home/Root', params: {} }).then(() => undefined, (e) => e);
      assert.ok(error instanceof LinkdError, `${app.app} made a share link`);
      assert.equal(error.kind, 'server');
      assert.ok(error.status >= 400 && error.status < 500, String(error));
      assert.equal(app.app, 'story', 'only the story app shares nothing');
    }
    for (const shareable of app.shareables) {
      const created = await client.createShareLink({ route: shareable.route, params: shareable.params, ttlSeconds: 3600, title: 't' });
      assert.equal(created.app, app.app);
      assert.ok(created.url.includes(`/s/${created.token}`));
      assert.match(created.shortURL, /^https:\/\/[^/]+\/s\/[0-9A-Za-z]{11}$/, 'the short URL beside the token\'s');
      assert.match(created.id, /^[0-9a-f]{32}$/);
      assert.ok(Math.abs(new Date(created.expiresAt).getTime() - Date.now() - 3600_000) < 120_000, created.expiresAt);
      for (const state of app.states) {
        const resolution = await resolveBothWays(client, created.url, state);
        assert.equal(resolution.link?.id, created.id);
        assert.equal(resolution.link?.status, 'active');
        const byShortURL = await resolveBothWays(client, created.shortURL, state);
        // The same resolution but for the URL an intercept carries on with (the one resolved).
        const sameURL = JSON.parse(JSON.stringify(byShortURL).replaceAll(created.shortURL, created.url));
        assert.deepEqual(sameURL, resolution, `the short URL resolves as the token's, as ${state}`);
        assert.equal(resolution.link?.expiresAt, Math.floor(new Date(created.expiresAt).getTime() / 1000));
        if (resolution.outcome === 'route') {
          assert.equal(resolution.route, shareable.route);
          assert.deepEqual(resolution.params, shareable.params);
        }
      }
      assert.equal(created.pathURL, undefined, 'no custom path asked, none given');
      // The same target with a custom path: its URL resolves as the token's; the path given twice is path_taken.
      const path = `/ts-${created.id.slice(0, 12)}`;
      const withPath = await client.createShareLink({ route: shareable.route, params: shareable.params, path });
      assert.ok(withPath.pathURL?.endsWith(path), String(withPath.pathURL));
      assert.equal((await client.shareLink(withPath.id)).pathURL, withPath.pathURL);
      const byPath = await resolveBothWays(client, withPath.pathURL, app.states[0]);
      assert.equal(byPath.link?.id, withPath.id, 'the custom path resolves as its link');
      const taken = await client.createShareLink({ route: shareable.route, params: shareable.params, path }).then(() => undefined, (e) => e);
      assert.ok(taken instanceof LinkdError && taken.code === 'path_taken' && taken.status === 409, String(taken));
      const revoked = await client.revokeShareLink(created.id);
      assert.equal(revoked.status, 'revoked');
      assert.equal(revoked.id, created.id);
      assert.equal(revoked.route, shareable.route);
      for (const state of app.states) {
        const resolution = await resolveBothWays(client, created.url, state);
        assert.equal(resolution.outcome, 'linkUnavailable', `${shareable.route} revoked, as ${state}`);
        assert.equal(resolution.link?.status, 'revoked');
        assert.ok(resolution.message);
        const plan = navigationPlan(resolution, state);
        assert.equal(plan.message, resolution.message);
        assert.equal(plan.callToAction, resolution.cta);
      }
    }
  }
});

test('the inspector and a revocation: the server\'s JSON whole in the client\'s types', async () => {
  const key = await daemon.clientKey('handz');
  const client = new LinkdClient({ baseURL: daemon.baseURL, apiKey: key });
  const flowId = randomUUID();
  const rawCreated = await rawRequest('POST', `${daemon.baseURL}/v1/links`, { bearer: key, json: { params: { flowId }, owner: 'u1', title: 'Guard pass flow' } });
  assert.equal(rawCreated.status, 201);
  const created = decodeCreatedShareLink(rawCreated.json);
  expectWhole(created, rawCreated.json, 'POST /v1/links');
  // A person opens the page: one click.
  const page = await rawRequest('GET', `${daemon.baseURL}/s/${created.token}`, {
    headers: { Host: 'links.handz.example', 'User-Agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)' },
  });
  assert.equal(page.status, 200);
  const viewed = await client.shareLink(created.id);
  assert.equal(viewed.status, 'active');
  assert.deepEqual(viewed.params, { flowId });
  assert.equal(viewed.owner, 'u1');
  assert.equal(viewed.title, 'Guard pass flow');
  assert.equal(viewed.route, 'ShareLink/FlowView');
  assert.equal(viewed.clicks, 1);
  assert.ok(viewed.lastOpenedAt);
  const rawViewed = await rawRequest('GET', `${daemon.baseURL}/v1/links/${created.id}`, { bearer: key });
  expectWhole(decodeShareLink(rawViewed.json), rawViewed.json, 'GET /v1/links/{id}');
  expectWhole(viewed, rawViewed.json, 'GET /v1/links/{id} through the client');
  assert.equal((await client.revokeShareLink(created.id)).status, 'revoked');
  assert.equal((await client.revokeShareLink(created.id)).status, 'revoked', 'revoking again answers the link again');
  const rawRevoked = await rawRequest('GET', `${daemon.baseURL}/v1/links/${created.id}`, { bearer: key });
  expectWhole(decodeShareLink(rawRevoked.json), rawRevoked.json, 'a revoked link');
});
