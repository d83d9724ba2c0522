// Wire drift: the client's types against the documented and implemented wire — docs/openapi.yaml's Error codes and
// Resolution schema (every key, nested ones too, the required ones, the enums), the server's APIError codes, and
// what the decoder keeps of a newer server's answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  KNOWN_SERVER_ERROR_CODES, isKnownServerErrorCode, RESOLUTION_KEYS, INTERCEPT_KEYS, CONTINUATION_KEYS, LINK_INFO_KEYS,
  PROBLEM_KEYS, UPDATE_KEYS, FALLBACK_KEYS, ROUTE_TARGET_KEYS, OUTCOMES, PRESENTATIONS, decodeResolution, WireError,
} from '../dist/index.js';
import { repoRoot } from '../test-support/daemon.mjs';
import { openAPI } from '../test-support/wire.mjs';

const sorted = (list) => [...list].sort();
const schemas = () => openAPI().components.schemas;

test('the known error codes are the server\'s (APIError.Code) and docs/openapi.yaml\'s, the edge\'s two included', () => {
  const documented = schemas().Error.properties.error.properties.code.enum;
  assert.ok(documented.length >= 20);
  const known = new Set(KNOWN_SERVER_ERROR_CODES);
  assert.deepEqual(documented.filter((code) => !known.has(code)), [], 'codes docs/openapi.yaml lists and the client does not know');
  // request_timeout and too_many_connections come from the connection edge, before routing; the enum lists them too.
  const undocumented = KNOWN_SERVER_ERROR_CODES.filter((code) => !documented.includes(code));
  assert.deepEqual(undocumented, [], 'codes the client knows and docs/openapi.yaml does not list');
  // The server's own list: the HTTP plumbing's generic codes and the server's domain codes.
  const source = [
    join(repoRoot, 'Sources', 'LinkdHTTP', 'Errors', 'APIError.swift'),
    join(repoRoot, 'Sources', 'LinkdServer', 'Server', 'Errors', 'APIError+Codes.swift'),
  ].map((file) => readFileSync(file, 'utf8')).join('\n');
  const serverCodes = [...source.matchAll(/static let \w+ = (?:APIError\.)?Code\("([^"]+)"\)/g)].map((m) => m[1]);
  assert.ok(serverCodes.length >= 18);
  assert.deepEqual(sorted(serverCodes), sorted(KNOWN_SERVER_ERROR_CODES), 'the client knows exactly the server\'s codes');
  assert.equal(new Set(KNOWN_SERVER_ERROR_CODES).size, KNOWN_SERVER_ERROR_CODES.length);
  assert.ok(isKnownServerErrorCode('not_found'));
  assert.ok(!isKnownServerErrorCode('brand_new'));
});

test('the Resolution type\'s keys are docs/openapi.yaml\'s Resolution, nested objects too', () => {
  const resolution = schemas().Resolution;
  const props = resolution.properties;
  assert.deepEqual(sorted(RESOLUTION_KEYS), sorted(Object.keys(props)));
  assert.deepEqual(sorted(INTERCEPT_KEYS), sorted(Object.keys(props.intercept.properties)));
  assert.deepEqual(sorted(CONTINUATION_KEYS), sorted(Object.keys(props.intercept.properties.continuation.properties)));
  assert.deepEqual(sorted(LINK_INFO_KEYS), sorted(Object.keys(props.link.properties)));
  assert.deepEqual(sorted(PROBLEM_KEYS), sorted(Object.keys(props.problem.properties)));
  assert.deepEqual(sorted(UPDATE_KEYS), sorted(Object.keys(props.update.properties)));
  assert.deepEqual(sorted(FALLBACK_KEYS), sorted(Object.keys(props.fallback.properties)));
  assert.deepEqual(sorted(ROUTE_TARGET_KEYS), sorted(Object.keys(props.afterActions.additionalProperties.properties)));
  assert.deepEqual(sorted(OUTCOMES), sorted(props.outcome.enum));
  assert.deepEqual(sorted(PRESENTATIONS), sorted(props.presentation.enum));
  assert.deepEqual(sorted(PRESENTATIONS), sorted(props.fallback.properties.presentation.enum));
  // The keys the schema requires are the ones the decoder always sets (the type's non-optional members).
  assert.deepEqual(sorted(Object.keys(decodeResolution({ outcome: 'route' }))), sorted(resolution.required));
  assert.deepEqual(sorted(Object.keys(decodeResolution({ outcome: 'updateRequired', fallback: { route: 'A' } }).fallback)),
    sorted(props.fallback.required));
});

test('a newer server\'s answer: an unknown outcome and presentation kept as sent, unknown keys left out; a wrong shape refused', () => {
  const future = decodeResolution({
    outcome: 'teleport', params: { a: 'b' }, tabBarVisible: false, stack: [], returnTo: {}, presentation: 'popover', newKey: 1,
    intercept: { route: 'X', extra: true },
  });
  assert.equal(future.outcome, 'teleport');
  assert.equal(future.presentation, 'popover');
  assert.equal('newKey' in future, false);
  assert.deepEqual(future.intercept, { route: 'X' });
  for (const wrong of [{ outcome: 1 }, { outcome: 'route', params: { a: 1 } }, { outcome: 'route', stack: 'x' }, { outcome: 'route', link: { id: 'x' } }, [], null]) {
    assert.throws(() => decodeResolution(wrong), WireError, JSON.stringify(wrong));
  }
});
