// Deferred deep links: claim codes read from an Android install referrer and from what a person pasted on iOS, and
// claimed through LinkdClient against a real `linkd serve` — once; a second claim is the uniform not_found.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import {
  LinkdClient, LinkdError, isClaimCode, parseClaimCode, claimCodeFromInstallReferrer, claimCodeFromPasted, navigationPlan,
} from '../dist/index.js';
import { startDaemon, rawRequest, scriptedServer } from '../test-support/daemon.mjs';
import { expectWhole } from '../test-support/wire.mjs';

const android = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36';
const iPhone = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const sample = 'q2Zm9_x-E3sVb8LkPq0aYw';

let daemon;
before(async () => { daemon = await startDaemon(); });
after(async () => { await daemon?.stop(); });

/** Expects `promise` to reject with a LinkdError; returns it. */
async function rejection(promise, context) {
  const error = await promise.then(() => undefined, (e) => e);
  assert.ok(error instanceof LinkdError, `${context}: ${error === undefined ? 'no error' : error}`);
  return error;
}

test('the code\'s shape: 22 base64url characters, the last canonical for 128 bits', () => {
  assert.equal(parseClaimCode(sample), sample);
  assert.equal(parseClaimCode(`  ${sample}\n`), sample);
  assert.ok(isClaimCode(sample));
  for (const bad of [sample.slice(0, -1), `${sample}A`, `${sample.slice(0, -1)}x`, `${sample.slice(0, -2)}+w`, '']) {
    assert.equal(parseClaimCode(bad), undefined, bad);
  }
});

test('Android install referrer: among other params, url-encoded once or twice; nothing for an organic install', () => {
  const found = [
    `linkd_claim=${sample}`,
    `utm_source=google-play&utm_medium=organic&linkd_claim=${sample}`,
    `linkd_claim=${sample}&utm_campaign=share`,
    `linkd_claim%3D${sample}`,
    `utm_source%3Dgoogle-play%26linkd_claim%3D${sample}`,
    `utm_source%253Dx%2526linkd_claim%253D${sample}`,
    `linkd%5Fclaim=${sample.replace(/-/g, '%2D')}`,
    `  linkd_claim=${sample}\n`,
  ];
  for (const referrer of found) assert.equal(claimCodeFromInstallReferrer(referrer), sample, referrer);
  const none = ['', 'utm_source=google-play&utm_medium=organic', 'linkd_claim=', 'linkd_claim=short', `linkd_claim=${sample}x`,
    `xlinkd_claim=${sample}`, 'linkd_claim=%ZZ', 'utm_source=(not%20set)'];
  for (const referrer of none) assert.equal(claimCodeFromInstallReferrer(referrer), undefined, referrer);
});

test('pasted on iOS: the bare code, a claim link (query, fragment or last segment), such a link inside other text', () => {
  const found = [
    sample,
    ` ${sample} `,
    `https://links.handz.example/s/TOKEN/claim?linkd_claim=${sample}`,
    `https://links.handz.example/claim/${sample}`,
    `https://links.handz.example/c#linkd_claim=${sample}`,
    `https://links.handz.example/s/AQAAAAH11D4V6H5h#linkd_claim=${sample}`,
    `handz://claim?linkd_claim=${sample}&x=1`,
    `Open Handz with this: https://links.handz.example/claim/${sample} (copied)`,
    `<https://links.handz.example/claim/${sample}>`,
  ];
  for (const text of found) assert.equal(claimCodeFromPasted(text), sample, text);
  const none = ['', 'hello', 'https://links.handz.example/flows/3f2504e0-4f89-11d3-9a0c-0305e82c3301',
    'https://example.com/claim/short', 'a'.repeat(5000) + sample];
  for (const text of none) assert.equal(claimCodeFromPasted(text), undefined, text.slice(0, 80));
});

test('Android: the store redirect\'s referrer → claimCodeFromInstallReferrer → claim answers the link\'s resolution once', async () => {
  const sharer = new LinkdClient({ baseURL: daemon.baseURL, apiKey: await daemon.clientKey('ordentus') });
  const link = await sharer.createShareLink({ route: 'Tasks/TodoDetail', params: { todoId: 'todo-1' } });
  const host = new URL(link.url).host;
  const redirect = await rawRequest('GET', `${daemon.baseURL}/s/${link.token}/install/android`, { headers: { Host: host, 'User-Agent': android } });
  assert.equal(redirect.status, 302);
  const location = new URL(redirect.headers.location);
  assert.equal(location.host, 'play.google.com');
  assert.match(redirect.headers.location, /referrer=linkd_claim%3D[A-Za-z0-9_-]{22}/);
  // What the Play Install Referrer API hands the app: the `referrer` parameter, decoded once (URLSearchParams does).
  const referrer = location.searchParams.get('referrer');
  const code = claimCodeFromInstallReferrer(`utm_source=google-play&${referrer}`);
  assert.ok(code, referrer);
  // The Location's raw query, not decoded at all, works too.
  assert.equal(claimCodeFromInstallReferrer(redirect.headers.location.split('referrer=')[1]), code);

  const app = new LinkdClient({ baseURL: daemon.baseURL });
  const claimed = await app.claim(code, 'signedIn');
  const resolved = await app.resolve(link.url, { state: 'signedIn' });
  assert.deepEqual(claimed, resolved, 'the claim answers what resolving the share link answers');
  assert.equal(claimed.link?.id, link.id);
  assert.equal(claimed.route, 'Tasks/TodoDetail');
  const second = await rejection(app.claim(code, 'signedIn'), 'a second claim');
  assert.equal(second.kind, 'server');
  assert.equal(second.status, 404);
  assert.equal(second.code, 'not_found');
  assert.ok(second.is('not_found'));

  // Another code, claimed raw: the claim's JSON is whole in the client's type.
  const another = await rawRequest('GET', `${daemon.baseURL}/s/${link.token}/install/android`, { headers: { Host: host, 'User-Agent': android } });
  const anotherCode = claimCodeFromInstallReferrer(new URL(another.headers.location).searchParams.get('referrer'));
  assert.ok(anotherCode && anotherCode !== code);
  const raw = await rawRequest('POST', `${daemon.baseURL}/v1/claims/${anotherCode}`, { json: { state: 'signedIn' } });
  assert.equal(raw.status, 200);
  expectWhole(resolved, raw.json, 'POST /v1/claims/{code}');
  const unknown = await rejection(app.claim('AAAAAAAAAAAAAAAAAAAAAA', 'signedOut'), 'an unknown code');
  assert.equal(unknown.code, 'not_found');
});

test('iOS: the claim page\'s link, pasted → claimCodeFromPasted → claim; unknown_state spends nothing; a revoked link\'s claim is linkUnavailable', async () => {
  const sharer = new LinkdClient({ baseURL: daemon.baseURL, apiKey: await daemon.clientKey('handz') });
  const flowId = randomUUID();
  const link = await sharer.createShareLink({ params: { flowId }, title: 'Guard pass flow' });
  const claimLink = async () => {
    const page = await rawRequest('GET', `${daemon.baseURL}/s/${link.token}/install/ios`, { headers: { Host: 'links.handz.example', 'User-Agent': iPhone } });
    assert.equal(page.status, 200);
    const match = /id="claim-link" href="([^"]+)"/.exec(page.text);
    assert.ok(match, page.text.slice(0, 500));
    return match[1].replace(/&amp;/g, '&');
  };
  const copied = await claimLink();
  assert.match(copied, /#linkd_claim=/);
  const code = claimCodeFromPasted(copied);
  assert.ok(code, copied);

  const app = new LinkdClient({ baseURL: daemon.baseURL });
  // A state Handz does not have: 422 unknown_state, and the code is not spent.
  const unknownState = await rejection(app.claim(code, 'nonexistent'), 'an unknown state');
  assert.equal(unknownState.status, 422);
  assert.equal(unknownState.code, 'unknown_state');
  const plan = navigationPlan(await app.claim(code, 'signedOut'), 'signedOut');
  assert.equal(plan.outcome, 'route');
  assert.equal(plan.root?.route, 'Auth/WelcomeGate');
  assert.deepEqual(plan.pushed, [{ route: 'ShareLink/FlowView', params: { flowId } }]);
  assert.equal(plan.closeReturnsTo, 'Auth/WelcomeGate');
  assert.equal((await rejection(app.claim(code, 'signedOut'), 'a second claim')).code, 'not_found');

  // A code for a link revoked before the claim: the claim answers linkUnavailable.
  const secondCode = claimCodeFromPasted(await claimLink());
  await sharer.revokeShareLink(link.id);
  const gone = await app.claim(secondCode, 'free');
  assert.equal(gone.outcome, 'linkUnavailable');
  assert.equal(gone.message, 'This link is no longer available.');
  assert.equal(gone.cta, 'Tab/Library');
});

test('a malformed code is refused before anything is sent', async () => {
  const server = await scriptedServer(() => ({ status: 500, body: {} }));
  try {
    const app = new LinkdClient({ baseURL: server.baseURL });
    for (const bad of ['short', '../v1/admin/keys', `${sample}A`]) {
      const error = await rejection(app.claim(bad, 'signedOut'), bad);
      assert.equal(error.kind, 'invalidArgument');
    }
    assert.equal(server.requests.length, 0);
  } finally {
    await server.stop();
  }
});
