// Every error code the server can send, decoded by LinkdClient into a LinkdError with its kind, status, code, message
// and Retry-After: those a client's own calls meet, from a real `linkd serve`; every code as the daemon sends it
// (recorded from it, or in its exact format where only a failing store or a bug makes it), replayed by a scripted
// server; answers that are not the API's; and refusals before anything is sent.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import net from 'node:net';
import { LinkdClient, LinkdError, KNOWN_SERVER_ERROR_CODES, NEVER_RETRY } from '../dist/index.js';
import { startDaemon, rawRequest, scriptedServer, repoRoot } from '../test-support/daemon.mjs';

const daemons = [];
async function daemon(config) {
  const started = await startDaemon(config === undefined ? undefined : { config });
  daemons.push(started);
  return started;
}
after(async () => { await Promise.all(daemons.map((d) => d.stop())); });

async function rejection(promise, context) {
  const error = await promise.then(() => undefined, (e) => e);
  assert.ok(error instanceof LinkdError, `${context}: ${error === undefined ? 'no error' : error}`);
  return error;
}

async function serverError(promise, context, status, code) {
  const error = await rejection(promise, context);
  assert.equal(error.kind, 'server', `${context}: ${error}`);
  assert.equal(error.status, status, `${context}: ${error}`);
  assert.equal(error.code, code, `${context}: ${error}`);
  assert.ok(error.message.length > 0);
  return error;
}

test('the codes a client\'s own calls meet, from the running daemon', async () => {
  const d = await daemon();
  const key = await d.clientKey('handz');
  const client = new LinkdClient({ baseURL: d.baseURL, apiKey: key, retry: NEVER_RETRY });
  const flow = { flowId: randomUUID() };
  const url = `https://links.handz.example/flows/${flow.flowId}`;

  const badRequest = await serverError(client.resolve(url, { state: 's'.repeat(65) }), 'a state of 65 characters', 400, 'bad_request');
  assert.match(badRequest.message, /state/);
  await serverError(client.resolve(`https://links.handz.example/${'a'.repeat(9000)}`, { state: 'free' }), 'a body over 8 KB', 413, 'payload_too_large');
  await serverError(client.resolve(url, { state: 'free', appVersion: '1.x' }), 'a bad app version', 400, 'bad_app_version');
  const wrongKey = new LinkdClient({ baseURL: d.baseURL, apiKey: 'lkd_not-a-key', retry: NEVER_RETRY });
  await serverError(wrongKey.createShareLink({ params: flow }), 'an unknown key', 401, 'unauthorized');
  await serverError(wrongKey.shareLink('0'.repeat(32)), 'an unknown key reading', 401, 'unauthorized');
  await serverError(client.shareLink('0'.repeat(32)), 'an unknown link id', 404, 'not_found');
  await serverError(client.revokeShareLink('0'.repeat(32)), 'revoking an unknown link id', 404, 'not_found');
  await serverError(client.createShareLink({ params: flow, ttlSeconds: 10 }), 'a TTL under 60 s', 422, 'unprocessable');
  await serverError(client.createShareLink({ route: 'Nope/Nothing', params: {} }), 'a route Handz does not have', 422, 'unknown_route');
  const notShareable = await serverError(client.createShareLink({ route: 'Library/FlowDetail', params: flow }), 'Library/FlowDetail', 422, 'not_shareable');
  assert.match(notShareable.message, /ShareLink\/FlowView/);
  const badParams = await serverError(client.createShareLink({ params: {} }), 'a flow link without its flow', 422, 'bad_params');
  assert.match(badParams.message, /flowId/);
  // A base URL with a wrong path: an unknown endpoint.
  const misplaced = new LinkdClient({ baseURL: `${d.baseURL}/nope/`, retry: NEVER_RETRY });
  await serverError(misplaced.resolve(url, { state: 'free' }), 'an unknown endpoint', 404, 'not_found');
});

test('refused before anything is sent: no key, a link id that is not one, a base URL that is not http(s)', async () => {
  const server = await scriptedServer(() => ({ status: 500, body: {} }));
  try {
    const noKey = new LinkdClient({ baseURL: server.baseURL });
    for (const call of [noKey.createShareLink({ params: {} }), noKey.shareLink('0'.repeat(32)), noKey.revokeShareLink('0'.repeat(32))]) {
      assert.equal((await rejection(call, 'no key')).kind, 'invalidArgument');
    }
    const keyed = new LinkdClient({ baseURL: server.baseURL, apiKey: 'lkd_x' });
    for (const id of ['../admin/keys', '0'.repeat(31), 'A'.repeat(32)]) {
      assert.equal((await rejection(keyed.shareLink(id), id)).kind, 'invalidArgument');
    }
    assert.equal(server.requests.length, 0);
    assert.throws(() => new LinkdClient({ baseURL: 'links.handz.example' }), (e) => e instanceof LinkdError && e.kind === 'invalidArgument');
  } finally {
    await server.stop();
  }
});

test('rate_limited from a daemon with rateLimitPerSecond 0.01, burst 1: a 429 with Retry-After, thrown at once when it is over the retry budget', async () => {
  const d = await daemon('rateLimitPerSecond: 0.01\nrateLimitBurst: 1\n');
  const url = 'https://links.handz.example/library';
  const client = new LinkdClient({ baseURL: d.baseURL });
  assert.equal((await client.resolve(url, { state: 'free' })).route, 'Library/Home');
  for (const [context, retry] of [['no retries', NEVER_RETRY], ['the default policy (10 s of waiting)', undefined]]) {
    const limited = new LinkdClient({ baseURL: d.baseURL, retry });
    const start = Date.now();
    const error = await serverError(limited.resolve(url, { state: 'free' }), context, 429, 'rate_limited');
    assert.ok(error.retryAfterSeconds >= 1 && error.retryAfterSeconds <= 100, `Retry-After ${error.retryAfterSeconds}`);
    assert.ok(Date.now() - start < 2000, `${context}: a Retry-After over the budget is not waited (${Date.now() - start} ms)`);
  }
});

/** One answer as the daemon sent it: status, Retry-After and Allow, body. */
function record(reply) {
  const headers = {};
  for (const name of ['retry-after', 'allow']) if (reply.headers[name] !== undefined) headers[name] = reply.headers[name];
  return { status: reply.status, headers, body: reply.text };
}

/** The daemon's answer on a raw socket to `head` (sent as is), read until it closes. */
function rawSocket(port, head, { holdMs = 0 } = {}) {
  return new Promise((resolveAnswer, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => { if (head) socket.write(head); });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => { text += chunk; });
    socket.on('error', reject);
    socket.on('close', () => {
      const [headPart, body = ''] = text.split('\r\n\r\n');
      const lines = headPart.split('\r\n');
      const status = Number(lines[0]?.split(' ')[1]);
      const headers = {};
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolveAnswer({ status, headers, text: body });
    });
    if (holdMs) setTimeout(() => socket.end(), holdMs);
  });
}

/** Opens a connection and keeps it until `close()`. */
function hold(port) {
  return new Promise((resolveHeld) => {
    const socket = net.connect(port, '127.0.0.1', () => resolveHeld({ close: () => socket.destroy() }));
    socket.on('error', () => {});
  });
}

test('every code of KNOWN_SERVER_ERROR_CODES, as the daemon sends it, decoded from a replay', async () => {
  // Resolution is rate limited (one request, then 429 for 100 s); the edge daemon answers the connection limits.
  const d = await daemon('rateLimitPerSecond: 0.01\nrateLimitBurst: 1\n');
  const edge = await daemon('headTimeoutSeconds: 0.3\nmaxConnectionsPerClient: 2\nimportMaxBytes: 4096\n');
  const base = d.baseURL;
  const admin = d.adminKey;
  const key = await d.clientKey('handz');
  const flow = { flowId: randomUUID() };
  const recorded = {};
  const send = async (method, path, options = {}) => record(await rawRequest(method, base + path, options));
  recorded.bad_request = await send('POST', '/v1/links', { bearer: key, json: { params: flow, nope: 1 } });
  recorded.bad_cursor = await send('GET', '/v1/links?cursor=forged', { bearer: key });
  recorded.unsupported_format = await send('GET', '/v1/apps/handz/stats?format=xml', { bearer: key });
  recorded.unauthorized = await send('GET', `/v1/links/${'0'.repeat(32)}`, { bearer: 'lkd_x' });
  recorded.forbidden = await send('GET', '/v1/admin/keys', { bearer: key });
  recorded.not_found = await send('GET', '/v1/nothing-here');
  recorded.method_not_allowed = await send('PUT', '/v1/links');
  const keys = (await rawRequest('GET', `${base}/v1/admin/keys?app=handz`, { bearer: admin })).json;
  const list = Array.isArray(keys) ? keys : keys.keys;
  const active = list.find((k) => k.state === 'active');
  assert.ok(active, JSON.stringify(keys));
  recorded.conflict = await send('POST', `/v1/admin/keys/handz/${active.kid}/retire`, { bearer: admin });
  recorded.payload_too_large = await send('POST', '/v1/links', { bearer: key, json: { params: flow, title: 'a'.repeat(70_000) } });
  recorded.unsupported_media_type = await send('POST', '/v1/links', { bearer: key, headers: { 'Content-Type': 'text/plain' }, body: 'x' });
  recorded.unprocessable = await send('POST', '/v1/links', { bearer: key, json: { params: flow, ttlSeconds: 1 } });
  recorded.unknown_route = await send('POST', '/v1/links', { bearer: key, json: { route: 'No/Such', params: flow } });
  recorded.not_shareable = await send('POST', '/v1/links', { bearer: key, json: { route: 'Library/FlowDetail', params: flow } });
  recorded.path_taken = await send('POST', '/v1/links', { bearer: key, json: { params: flow, path: '/welcome' } });
  recorded.bad_params = await send('POST', '/v1/links', { bearer: key, json: { params: {} } });
  // The first resolution takes the bucket's one token, then is refused for its app version.
  recorded.bad_app_version = await send('GET', '/v1/resolve?url=x&appVersion=1.x');
  const handz = readFileSync(join(repoRoot, 'examples', 'handz.yaml'), 'utf8');
  const publish = (app, yaml, headers = {}) => send('PUT', `/v1/admin/apps/${app}/manifest`, { bearer: admin, json: { manifest: yaml }, headers });
  recorded.manifest_invalid = await publish('handz', 'app: handz\nbogus: 1\n');
  recorded.manifest_app_mismatch = await publish('coin', handz);
  recorded.version_conflict = await publish('handz', handz, { 'If-Match': '"99"' });
  await send('POST', '/v1/links', { bearer: key, json: { params: { flowId: randomUUID() } } });
  recorded.manifest_strands_links = await publish('handz', handz.replaceAll('ShareLink/FlowView', 'ShareLink/Renamed'));
  recorded.app_has_live_links = await send('DELETE', '/v1/admin/apps/handz', { bearer: admin });
  await send('GET', '/v1/resolve?url=x');
  recorded.rate_limited = await send('GET', '/v1/resolve?url=x');
  // A claim whose state the link's app lacks (a code from the iOS claim page), on the edge daemon.
  const edgeLink = (await rawRequest('POST', `${edge.baseURL}/v1/links`, { bearer: edge.adminKey, json: { app: 'handz', route: 'ShareLink/FlowView', params: { flowId: randomUUID() } } })).json;
  const page = await rawRequest('GET', `${edge.baseURL}/s/${edgeLink.token}/install/ios`, { headers: { 'User-Agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)' } });
  const claimCode = /#linkd_claim=([A-Za-z0-9_-]{22})/.exec(page.text)?.[1];
  assert.ok(claimCode, page.text.slice(0, 300));
  recorded.unknown_state = record(await rawRequest('POST', `${edge.baseURL}/v1/claims/${claimCode}`, { json: { state: 'nonexistent' } }));
  // 408: a head that does not come whole within headTimeoutSeconds.
  recorded.request_timeout = record(await rawSocket(edge.port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n'));
  // 503 too_many_connections: a third connection from a client holding maxConnectionsPerClient (2).
  const held = [await hold(edge.port), await hold(edge.port)];
  await new Promise((r) => setTimeout(r, 100));
  recorded.too_many_connections = record(await rawSocket(edge.port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'));
  for (const connection of held) connection.close();
  // An import file refused whole (POST /v1/admin/imports), each for what is wrong with it.
  const importFile = (body, format = 'csv', target = d) => rawRequest('POST', `${target.baseURL}/v1/admin/imports?app=handz&format=${format}`,
    { bearer: target.adminKey, headers: { 'Content-Type': 'text/csv' }, body });
  const imported = async (body, format) => record(await importFile(body, format));
  recorded.nul_byte = await imported('route\nx\0\n');
  recorded.unclosed_quote = await imported('route\n"x\n');
  recorded.bad_quote = await imported('route\nx"y\n');
  recorded.too_many_columns = await imported('route' + ',x'.repeat(100) + '\n');
  recorded.field_too_long = await imported('route\n' + 'x'.repeat(9000) + '\n');
  recorded.line_too_long = await imported('route\n' + ('x'.repeat(8000) + ',').repeat(9) + '\n');
  recorded.invalid_utf8 = await imported(Buffer.from([...Buffer.from('route\n'), 0xff, 0x0a]));
  recorded.empty_file = await imported('');
  recorded.missing_column = await imported('title\nx\n');
  recorded.duplicate_column = await imported('route,route\nx,y\n');
  recorded.too_many_rows = await imported('route\n' + 'x\n'.repeat(1_000_001));
  recorded.import_too_large = record(await importFile('route\n' + 'x\n'.repeat(3000), 'csv', edge));
  // An import of the app already running: one whose body is still coming (a larger Content-Length than sent).
  const slow = net.connect(d.port, '127.0.0.1', () => slow.write(
    `POST /v1/admin/imports?app=handz&format=csv HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${admin}\r\n`
    + 'Content-Type: text/csv\r\nContent-Length: 100000\r\n\r\nroute\n'));
  slow.on('error', () => {});
  await new Promise((r) => setTimeout(r, 300));
  recorded.import_running = await imported('route\nShareLink/FlowView\n');
  slow.destroy();
  // Only a failing store or a bug makes these: the server's exact format.
  recorded.internal_error = { status: 500, headers: {}, body: '{"error":{"code":"internal_error","message":"the server failed to answer this request; it has been logged"}}' };
  recorded.not_ready = { status: 503, headers: {}, body: '{"error":{"code":"not_ready","message":"the store does not answer"}}' };
  recorded.store_unavailable = { status: 503, headers: {}, body: '{"error":{"code":"store_unavailable","message":"the store failed; retry later"}}' };

  for (const [code, answer] of Object.entries(recorded)) {
    assert.ok(answer.body.includes(`"code":"${code}"`), `the daemon did not answer ${code}: ${answer.status} ${answer.body}`);
  }
  assert.deepEqual(Object.keys(recorded).sort(), [...KNOWN_SERVER_ERROR_CODES].sort());
  assert.ok(recorded.rate_limited.headers['retry-after']);
  assert.equal(recorded.too_many_connections.headers['retry-after'], '1');

  const order = [...KNOWN_SERVER_ERROR_CODES];
  const server = await scriptedServer((index) => {
    const answer = recorded[order[index % order.length]];
    return { status: answer.status, headers: answer.headers, body: answer.body };
  });
  try {
    const client = new LinkdClient({ baseURL: server.baseURL, apiKey: 'lkd_x', retry: NEVER_RETRY });
    for (const code of order) {
      const answer = recorded[code];
      const error = await rejection(client.resolve('https://links.handz.example/library', { state: 'free' }), code);
      assert.equal(error.kind, 'server', `${code}: ${error}`);
      assert.equal(error.code, code);
      assert.equal(error.status, answer.status, code);
      assert.ok(answer.body.includes(JSON.stringify(error.message).slice(1, -1)), `${code}: ${error.message}`);
      const retryAfter = answer.headers['retry-after'];
      assert.equal(error.retryAfterSeconds, retryAfter === undefined ? undefined : Number(retryAfter), code);
    }
    // A code a newer server adds is kept as sent.
  } finally {
    await server.stop();
  }
  const future = await scriptedServer(() => ({ status: 418, body: { error: { code: 'brand_new', message: 'new' } } }));
  try {
    const error = await rejection(new LinkdClient({ baseURL: future.baseURL, retry: NEVER_RETRY }).resolve('x://y', { state: 's' }), 'brand_new');
    assert.equal(error.code, 'brand_new');
    assert.equal(error.status, 418);
  } finally {
    await future.stop();
  }
});

test('answers that are not the API\'s: a proxy\'s HTML 502 (a resolve retries it), a 200 of the wrong shape, one over the size cap', async () => {
  const page = { status: 502, headers: { 'Content-Type': 'text/html' }, body: '<html>Bad Gateway</html>' };
  const wrong = { status: 200, body: '{"route":42}' };
  const server = await scriptedServer((index) => (index < 2 ? page : wrong));
  try {
    const client = new LinkdClient({ baseURL: server.baseURL, retry: { maxAttempts: 2, initialBackoffMs: 10 } });
    for (const expected of [502, 200]) {
      const error = await rejection(client.resolve('https://links.handz.example/library', { state: 'free' }), String(expected));
      assert.equal(error.kind, 'unexpectedResponse', String(error));
      assert.equal(error.status, expected);
    }
    assert.equal(server.requests.length, 3, 'the 502 page was retried once, the wrong shape not');
  } finally {
    await server.stop();
  }
  const big = await scriptedServer(() => ({ status: 200, body: `${' '.repeat(5000)}{}` }));
  try {
    const capped = new LinkdClient({ baseURL: big.baseURL, retry: NEVER_RETRY, maxResponseBytes: 4096 });
    const error = await rejection(capped.resolve('https://links.handz.example/library', { state: 'free' }), 'over the cap');
    assert.equal(error.kind, 'unexpectedResponse');
    assert.match(error.message, /over the client's cap/);
  } finally {
    await big.stop();
  }
});
