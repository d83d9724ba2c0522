// Time limits and retries: the per-attempt limit against a server that never answers, Retry-After honoured (a
// scripted 503 then 200, and the real daemon's 429), retries only for calls safe to repeat, attempts and waiting
// bounded, the caller's cancellation, nothing listening. The same rules as the Swift client's RetryPolicy.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { LinkdClient, LinkdError, NEVER_RETRY, DEFAULT_RETRY_POLICY, isRetryable, retryDelayMs, parseRetryAfter } from '../dist/index.js';
import { startDaemon, scriptedServer, silentServer, closedPort } from '../test-support/daemon.mjs';

const url = 'https://links.handz.example/library';
const code = 'AAAAAAAAAAAAAAAAAAAAAA';
const resolutionBody = { outcome: 'route', route: 'Library/Home', params: {}, tabBarVisible: true, stack: ['Tab/Library'], returnTo: {}, tab: 'library', presentation: 'push' };
const cleanups = [];
after(async () => { for (const cleanup of cleanups) await cleanup(); });

async function rejection(promise, context) {
  const error = await promise.then(() => undefined, (e) => e);
  assert.ok(error instanceof LinkdError, `${context}: ${error === undefined ? 'no error' : error}`);
  return error;
}

const seconds = (start) => (Date.now() - start) / 1000;

test('a server that never answers: the per-attempt time limit fires; resolve is retried within its bounds, a claim is not', async () => {
  const server = await silentServer();
  cleanups.push(() => server.stop());
  const once = new LinkdClient({ baseURL: server.baseURL, timeoutMs: 500, retry: NEVER_RETRY });
  let start = Date.now();
  let error = await rejection(once.resolve(url, { state: 'free' }), 'one attempt');
  assert.equal(error.kind, 'timeout', String(error));
  assert.equal(error.timeoutMs, 500);
  assert.ok(seconds(start) >= 0.45 && seconds(start) < 3, `${seconds(start)} s`);
  assert.equal(server.requests, 1);

  const twice = new LinkdClient({ baseURL: server.baseURL, timeoutMs: 500, retry: { maxAttempts: 2, initialBackoffMs: 100 } });
  start = Date.now();
  error = await rejection(twice.resolve(url, { state: 'free' }), 'two attempts');
  assert.equal(error.kind, 'timeout');
  assert.ok(seconds(start) >= 1.0 && seconds(start) < 5, `${seconds(start)} s: two attempts of 0.5 s and a 0.1 s backoff`);
  assert.equal(server.requests, 3, 'retries stop after the configured count');

  error = await rejection(twice.claim(code, 'signedOut'), 'a claim');
  assert.equal(error.kind, 'timeout');
  assert.equal(server.requests, 4, 'a claim that timed out may have been spent: not retried');

  const three = new LinkdClient({ baseURL: server.baseURL, apiKey: 'lkd_x', timeoutMs: 300, retry: { maxAttempts: 3, initialBackoffMs: 50 } });
  await rejection(three.revokeShareLink('0'.repeat(32)), 'a revocation');
  assert.equal(server.requests, 7, 'a revocation is idempotent: three attempts');
  await rejection(three.createShareLink({ params: {} }), 'a new link');
  assert.equal(server.requests, 8, 'creating a link that timed out is not retried');
});

test('Retry-After honoured: a scripted 503 with Retry-After: 1, then 200 — resolve waits it out and answers', async () => {
  const server = await scriptedServer((index) => (index === 0
    ? { status: 503, headers: { 'Retry-After': '1' }, body: { error: { code: 'store_unavailable', message: 'retry later' } } }
    : { status: 200, body: resolutionBody }));
  cleanups.push(() => server.stop());
  const client = new LinkdClient({ baseURL: server.baseURL });
  const start = Date.now();
  const resolution = await client.resolve(url, { state: 'free' });
  assert.equal(resolution.route, 'Library/Home');
  assert.ok(seconds(start) >= 0.95 && seconds(start) < 5, `waited ${seconds(start)} s for Retry-After: 1`);
  assert.equal(server.requests.length, 2);
  assert.equal(server.requests[0].method, 'POST');
  assert.equal(server.requests[0].url, '/v1/resolve');
  assert.deepEqual(JSON.parse(server.requests[0].body), { url, state: 'free' });
});

test('what is safe to retry: a claim is not retried after 503 store_unavailable, but is after 503 too_many_connections (refused before it was read); 429s are retried up to maxAttempts', async () => {
  const unavailable = await scriptedServer(() => ({ status: 503, body: { error: { code: 'store_unavailable', message: 'retry later' } } }));
  cleanups.push(() => unavailable.stop());
  const claimer = new LinkdClient({ baseURL: unavailable.baseURL, retry: { initialBackoffMs: 10 } });
  const error = await rejection(claimer.claim(code, 'signedOut'), 'claim');
  assert.equal(error.code, 'store_unavailable');
  assert.equal(unavailable.requests.length, 1, 'a claim is not retried after an answer that may have spent it');
  assert.equal(unavailable.requests[0].url, `/v1/claims/${code}`);
  assert.deepEqual(JSON.parse(unavailable.requests[0].body), { state: 'signedOut' });
  await rejection(claimer.resolve(url, { state: 'free' }), 'resolve');
  assert.equal(unavailable.requests.length, 4, 'resolve is retried: 3 attempts');

  const capped = await scriptedServer((index) => (index === 0
    ? { status: 503, headers: { 'Retry-After': '1' }, body: { error: { code: 'too_many_connections', message: 'too many connections' } } }
    : { status: 200, body: resolutionBody }));
  cleanups.push(() => capped.stop());
  const start = Date.now();
  assert.equal((await new LinkdClient({ baseURL: capped.baseURL }).claim(code, 'signedOut')).route, 'Library/Home');
  assert.ok(seconds(start) >= 0.95, 'Retry-After: 1 was waited');
  assert.equal(capped.requests.length, 2);
  // A server before 0.2 spelled the edge's codes in camelCase: read as today's codes, retried alike.
  const earlier = await scriptedServer((index) => (index === 0
    ? { status: 503, headers: { 'Retry-After': '0' }, body: { error: { code: 'tooManyConnections', message: 'too many connections' } } }
    : { status: 503, body: { error: { code: 'requestTimeout', message: 'late' } } }));
  cleanups.push(() => earlier.stop());
  const late = await rejection(new LinkdClient({ baseURL: earlier.baseURL, retry: { maxAttempts: 2 } }).claim(code, 'signedOut'), 'claim');
  assert.equal(late.code, 'request_timeout');
  assert.equal(earlier.requests.length, 2, 'the camelCase too_many_connections was retried as the snake_case one');

  const limited = await scriptedServer(() => ({ status: 429, headers: { 'Retry-After': '0' }, body: { error: { code: 'rate_limited', message: 'slow down' } } }));
  cleanups.push(() => limited.stop());
  for (const [call, maxAttempts] of [['resolve', 4], ['claim', 3]]) {
    const before = limited.requests.length;
    const client = new LinkdClient({ baseURL: limited.baseURL, retry: { maxAttempts } });
    const failure = await rejection(call === 'resolve' ? client.resolve(url, { state: 'free' }) : client.claim(code, 'signedOut'), call);
    assert.equal(failure.code, 'rate_limited');
    assert.equal(failure.retryAfterSeconds, 0);
    assert.equal(limited.requests.length - before, maxAttempts, `${call}: a 429 is retried, ${maxAttempts} attempts at most`);
  }
});

test('the real daemon\'s 429: the client waits Retry-After, then gets its answer; a budget under it throws at once', async () => {
  // One token, back after 2 s.
  const daemon = await startDaemon({ config: 'rateLimitPerSecond: 0.5\nrateLimitBurst: 1\n' });
  cleanups.push(() => daemon.stop());
  assert.equal((await new LinkdClient({ baseURL: daemon.baseURL }).resolve(url, { state: 'free' })).route, 'Library/Home');
  const budgeted = new LinkdClient({ baseURL: daemon.baseURL, retry: { maxAttempts: 5, maxTotalWaitMs: 500 } });
  let start = Date.now();
  const error = await rejection(budgeted.resolve(url, { state: 'free' }), 'budget');
  assert.equal(error.code, 'rate_limited');
  assert.ok(error.retryAfterSeconds >= 1 && error.retryAfterSeconds <= 2, `Retry-After ${error.retryAfterSeconds}`);
  assert.ok(seconds(start) < 0.5, 'a Retry-After over the budget is not waited');
  start = Date.now();
  const again = await new LinkdClient({ baseURL: daemon.baseURL }).resolve(url, { state: 'free' });
  assert.equal(again.route, 'Library/Home');
  assert.ok(seconds(start) >= 0.9 && seconds(start) < 8, `waited ${seconds(start)} s for Retry-After`);
});

test('the caller\'s signal ends a call at once, and it is not retried', async () => {
  const server = await silentServer();
  cleanups.push(() => server.stop());
  const client = new LinkdClient({ baseURL: server.baseURL, timeoutMs: 20_000 });
  const controller = new AbortController();
  const start = Date.now();
  const call = client.resolve(url, { state: 'free', signal: controller.signal });
  setTimeout(() => controller.abort(), 300);
  const error = await rejection(call, 'cancelled');
  assert.equal(error.kind, 'network');
  assert.equal(error.cancelled, true);
  assert.ok(seconds(start) < 2, 'ended at the cancellation, not at the 20 s limit');
  assert.ok(server.requests <= 1);
});

test('nothing listens: a network error (ECONNREFUSED), not a hang', async () => {
  const port = await closedPort();
  const client = new LinkdClient({ baseURL: `http://127.0.0.1:${port}`, timeoutMs: 2000, retry: NEVER_RETRY });
  const error = await rejection(client.resolve(url, { state: 'free' }), 'refused');
  assert.equal(error.kind, 'network', String(error));
  assert.equal(error.networkCode, 'ECONNREFUSED');
  assert.ok(isRetryable(error, 'refusedOnly'), 'a connection that never opened sent nothing: even a claim may retry');
});

test('the policy\'s rules, as the Swift client\'s RetryPolicy', () => {
  const server = (status, code, retryAfterSeconds) => new LinkdError({ kind: 'server', status, code, message: '', retryAfterSeconds });
  const table = [
    [server(429, 'rate_limited'), true, true],
    [server(503, 'too_many_connections'), true, true],
    [server(503, 'store_unavailable'), true, false],
    [server(503, 'not_ready'), true, false],
    [server(408, 'request_timeout'), true, false],
    [server(500, 'internal_error'), false, false],
    [server(404, 'not_found'), false, false],
    [server(502, 'brand_new'), true, false],
    [new LinkdError({ kind: 'unexpectedResponse', status: 504, message: '' }), true, false],
    [new LinkdError({ kind: 'unexpectedResponse', status: 200, message: '' }), false, false],
    [new LinkdError({ kind: 'timeout', message: '' }), true, false],
    [new LinkdError({ kind: 'network', message: '', networkCode: 'ECONNRESET' }), true, false],
    [new LinkdError({ kind: 'network', message: '', networkCode: 'ECONNREFUSED' }), true, true],
    [new LinkdError({ kind: 'network', message: '', cancelled: true }), false, false],
    [new LinkdError({ kind: 'invalidArgument', message: '' }), false, false],
  ];
  for (const [error, idempotent, refusedOnly] of table) {
    assert.equal(isRetryable(error, 'idempotent'), idempotent, `${error.kind} ${error.code} idempotent`);
    assert.equal(isRetryable(error, 'refusedOnly'), refusedOnly, `${error.kind} ${error.code} refusedOnly`);
  }
  const policy = { ...DEFAULT_RETRY_POLICY };
  const transient = new LinkdError({ kind: 'timeout', message: '' });
  assert.equal(retryDelayMs(policy, transient, 1, 0, 'idempotent', () => 0), 250);
  assert.equal(retryDelayMs(policy, transient, 2, 250, 'idempotent', () => 1), 625, 'doubled, plus a quarter at most');
  assert.equal(retryDelayMs(policy, transient, 3, 0, 'idempotent'), undefined, 'three attempts at most');
  assert.equal(retryDelayMs(policy, server(429, 'rate_limited', 4), 1, 0, 'refusedOnly'), 4000, 'Retry-After is the wait');
  assert.equal(retryDelayMs(policy, server(429, 'rate_limited', 11), 1, 0, 'idempotent'), undefined, 'over the 10 s budget: not waited');
  assert.equal(retryDelayMs(policy, server(429, 'rate_limited', 4), 2, 7000, 'idempotent'), undefined, 'over what is left of it');
  assert.equal(parseRetryAfter('3'), 3);
  assert.equal(parseRetryAfter(' 120 '), 120);
  for (const bad of [null, '', '-1', '1.5', 'Wed, 21 Oct 2015 07:28:00 GMT', '12345678901']) assert.equal(parseRetryAfter(bad), undefined, String(bad));
});
