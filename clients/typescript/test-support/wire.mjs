// Test support: comparing the client's decoded values with the server's JSON, and the documented schema.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { repoRoot, readYAML } from './daemon.mjs';

/** Key paths of a resolution-like JSON value: `intercept.continuation.url`; map keys (params, returnTo, stack
 * entries, afterActions' names) are not paths: `afterActions.*.route`. */
export function keyPaths(value, prefix = '') {
  const paths = new Set();
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return paths;
  for (const [key, child] of Object.entries(value)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    paths.add(path);
    if (key === 'params' || key === 'returnTo') continue;
    if (key === 'afterActions' && child && typeof child === 'object') {
      for (const action of Object.values(child)) for (const p of keyPaths(action, `${path}.*`)) paths.add(p);
      continue;
    }
    for (const p of keyPaths(child, path)) paths.add(p);
  }
  return paths;
}

/** Expects the client's value to be the server's JSON document whole: no key dropped, none changed. */
export function expectWhole(decoded, serverJSON, context) {
  const dropped = [...keyPaths(serverJSON)].filter((p) => !keyPaths(decoded).has(p));
  assert.deepEqual(dropped, [], `the client drops ${dropped.join(', ')} of ${context}`);
  assert.deepStrictEqual(decoded, serverJSON, `the client's value differs from the server's JSON for ${context}`);
}

let openapi;
/** docs/openapi.yaml as JSON. */
export function openAPI() {
  openapi ??= readYAML(join(repoRoot, 'docs', 'openapi.yaml'));
  return openapi;
}

/** The key paths `docs/openapi.yaml`'s schema documents (`Resolution` by default), as keyPaths names them. */
export function documentedKeyPaths(schemaName = 'Resolution') {
  const schemas = openAPI().components.schemas;
  const paths = new Set();
  const walk = (schema, prefix) => {
    if (schema?.$ref) schema = schemas[schema.$ref.split('/').pop()];
    for (const [key, child] of Object.entries(schema?.properties ?? {})) {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      paths.add(path);
      if (key === 'params' || key === 'returnTo') continue;
      if (key === 'afterActions') { walk(child.additionalProperties, `${path}.*`); continue; }
      if (child?.type === 'object' || child?.properties) walk(child, path);
    }
  };
  walk(schemas[schemaName], '');
  return paths;
}
