// Test support (not a test file): a real `linkd serve` on a free port, raw HTTP requests that bypass the client,
// scripted HTTP servers and a server that never answers. Used by test/*.test.mjs.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import http from 'node:http';
import net from 'node:net';

/** The repository root (clients/typescript/test-support → ../../..). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** The linkd binary: $LINKD_BIN, else the debug build. */
export const linkdBinary = process.env.LINKD_BIN || join(repoRoot, '.build', 'debug', 'linkd');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Waits (up to 2 min) for the binary to exist: another build may be replacing it. */
async function waitForBinary() {
  for (let i = 0; i < 120 && !existsSync(linkdBinary); i += 1) await sleep(1000);
  if (!existsSync(linkdBinary)) throw new Error(`no linkd binary at ${linkdBinary}: build it with swift build (or set LINKD_BIN)`);
}

/**
 * Starts `linkd serve --port 0 --data-dir DIR --config FILE` in the repository root (so it loads examples/*.yaml)
 * and waits for `linkd: listening on URL`. `config` is the YAML of the configuration file.
 */
export async function startDaemon({ config = 'rateLimitPerSecond: 0\n' } = {}) {
  await waitForBinary();
  const dir = mkdtempSync(join(tmpdir(), 'linkd-ts-'));
  const dataDir = join(dir, 'data');
  const configFile = join(dir, 'config.yaml');
  writeFileSync(configFile, config);
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('LINKD_')));
  env.LINKD_LOG_LEVEL = process.env.LINKD_LOG_LEVEL || 'warning';
  for (let tries = 0; ; tries += 1) {
    const child = spawn(linkdBinary, ['serve', '--port', '0', '--data-dir', dataDir, '--config', configFile], {
      cwd: repoRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const baseURL = await new Promise((resolveURL) => {
      const timer = setTimeout(() => resolveURL(undefined), 60_000);
      const onData = (chunk) => {
        output += chunk;
        const match = /linkd: listening on (http:\/\/\S+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolveURL(match[1]);
        }
      };
      child.stdout.setEncoding('utf8').on('data', onData);
      child.stderr.setEncoding('utf8').on('data', (chunk) => { output += chunk; });
      child.on('exit', () => { clearTimeout(timer); resolveURL(undefined); });
      child.on('error', () => { clearTimeout(timer); resolveURL(undefined); });
    });
    if (baseURL === undefined) {
      child.kill('SIGKILL');
      // The binary may have been swapped mid-start by a rebuild: try again once it is back.
      if (tries < 2) { await sleep(2000); await waitForBinary(); continue; }
      throw new Error(`linkd serve did not start; it printed:\n${output}`);
    }
    const keyFile = join(dataDir, 'initial-admin-key');
    const adminKey = readFileSync(keyFile, 'utf8').trim();
    const port = Number(new URL(baseURL).port);
    return {
      baseURL,
      port,
      adminKey,
      dataDir,
      output: () => output,
      /** A new client key of `app`, made with the admin key. */
      async clientKey(app) {
        const reply = await rawRequest('POST', `${baseURL}/v1/admin/api-keys`, {
          bearer: adminKey,
          json: { kind: 'client', app, label: 'typescript client tests' },
        });
        if (reply.status !== 201) throw new Error(`cannot make a client key: ${reply.status} ${reply.text}`);
        return reply.json.key;
      },
      /** `POST /v1/resolve` sent raw: what the server says, untouched. */
      rawResolve(url, state, extra = {}) {
        return rawRequest('POST', `${baseURL}/v1/resolve`, { json: { url, state, ...extra } });
      },
      /** Stops the daemon (SIGTERM, then SIGKILL) and removes its directory. */
      async stop() {
        if (child.exitCode === null && child.signalCode === null) {
          const exited = new Promise((r) => child.once('exit', r));
          child.kill('SIGTERM');
          const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
          await exited;
          clearTimeout(killer);
        }
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
}

/**
 * One HTTP request with node:http (not fetch: it may set Host and never follows redirects).
 * Resolves to { status, headers, text, json }.
 */
export function rawRequest(method, url, { bearer, json, headers = {}, body } = {}) {
  return new Promise((resolveReply, reject) => {
    const target = new URL(url);
    const sent = json !== undefined ? JSON.stringify(json) : body;
    const allHeaders = { Connection: 'close', ...headers };
    if (bearer) allHeaders.Authorization = `Bearer ${bearer}`;
    if (json !== undefined) allHeaders['Content-Type'] = 'application/json';
    if (sent !== undefined) allHeaders['Content-Length'] = Buffer.byteLength(sent);
    const request = http.request(
      { host: target.hostname, port: target.port, path: target.pathname + target.search, method, headers: allHeaders, agent: false },
      (response) => {
        const chunks = [];
        response.on('data', (c) => chunks.push(c));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed;
          try { parsed = JSON.parse(text); } catch { parsed = undefined; }
          resolveReply({ status: response.statusCode, headers: response.headers, text, json: parsed });
        });
      },
    );
    request.on('error', reject);
    if (sent !== undefined) request.write(sent);
    request.end();
  });
}

/**
 * A scripted HTTP server on 127.0.0.1: `script(index, request)` says what to do with the n-th request (0-based):
 * `{ status, headers, body }` to answer, or `'silence'` to never answer. `requests` lists what arrived.
 */
export async function scriptedServer(script) {
  const requests = [];
  const sockets = new Set();
  const server = http.createServer((request, response) => {
    const chunks = [];
    request.on('data', (c) => chunks.push(c));
    request.on('end', () => {
      const index = requests.length;
      const entry = { method: request.method, url: request.url, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(entry);
      const reply = script(index, entry);
      if (reply === 'silence') return;
      const body = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {});
      response.writeHead(reply.status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), Connection: 'close', ...(reply.headers ?? {}) });
      response.end(body);
    });
  });
  server.on('connection', (socket) => { sockets.add(socket); socket.on('close', () => sockets.delete(socket)); });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  return {
    baseURL: `http://127.0.0.1:${port}`,
    port,
    requests,
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

/**
 * A TCP server that accepts connections, reads, and never answers. `requests` counts the connections a request
 * arrived on (fetch may open spare connections that carry none).
 */
export async function silentServer() {
  const sockets = new Set();
  const state = { requests: 0 };
  const server = net.createServer((socket) => {
    sockets.add(socket);
    let counted = false;
    socket.on('data', () => {
      if (!counted) { counted = true; state.requests += 1; }
    });
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  return {
    baseURL: `http://127.0.0.1:${port}`,
    port,
    get requests() { return state.requests; },
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

/** A port nothing listens on (bound, then closed). */
export async function closedPort() {
  const server = net.createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}

/** Reads a YAML file as JSON through python3 (PyYAML); the seed manifests and docs/openapi.yaml. */
export function readYAML(path) {
  const out = execFileSync('python3', ['-c', 'import json,sys,yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))', path], { encoding: 'utf8' });
  return JSON.parse(out);
}
