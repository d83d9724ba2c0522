/**
 * Reading the server's JSON into the wire types: each value's shape checked, known keys copied, unknown keys left
 * out (a newer server's additions do not break an older app). A value of the wrong shape throws {@link WireError}.
 */
import type {
  Continuation,
  Fallback,
  Intercept,
  LinkInfo,
  Problem,
  Resolution,
  RouteTarget,
  Update,
} from './resolution.js';
import type { CreatedShareLink, ShareLink } from './shareLink.js';

/** A JSON value that does not have the shape a wire type needs; `path` says where (`resolution.intercept.route`). */
export class WireError extends Error {
  /** Creates an error for the value at `path`. */
  constructor(readonly path: string, expected: string) {
    super(`${path}: expected ${expected}`);
    this.name = 'WireError';
  }
}

type JSONObject = Record<string, unknown>;

function object(value: unknown, path: string): JSONObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new WireError(path, 'an object');
  return value as JSONObject;
}

function string(value: unknown, path: string): string {
  if (typeof value !== 'string') throw new WireError(path, 'a string');
  return value;
}

function boolean(value: unknown, path: string): boolean {
  if (typeof value !== 'boolean') throw new WireError(path, 'a boolean');
  return value;
}

function integer(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new WireError(path, 'an integer');
  return value;
}

function strings(value: unknown, path: string): string[] {
  if (!Array.isArray(value)) throw new WireError(path, 'an array of strings');
  return value.map((item, index) => string(item, `${path}[${index}]`));
}

function stringMap(value: unknown, path: string): Record<string, string> {
  const source = object(value, path);
  const out: Record<string, string> = {};
  for (const key of Object.keys(source)) out[key] = string(source[key], `${path}.${key}`);
  return out;
}

/** Sets `target[key]` to `read(source[key])` when the source has the key (and it is not null). */
function optional<T, K extends keyof T>(
  target: T,
  key: K,
  source: JSONObject,
  path: string,
  read: (value: unknown, path: string) => T[K],
): void {
  const value = source[key as string];
  if (value !== undefined && value !== null) target[key] = read(value, `${path}.${String(key)}`);
}

function routeTarget(value: unknown, path: string): RouteTarget {
  const source = object(value, path);
  return { route: string(source.route, `${path}.route`), params: stringMap(source.params ?? {}, `${path}.params`) };
}

function continuation(value: unknown, path: string): Continuation {
  const source = object(value, path);
  return {
    route: string(source.route, `${path}.route`),
    params: stringMap(source.params ?? {}, `${path}.params`),
    url: string(source.url, `${path}.url`),
  };
}

function intercept(value: unknown, path: string): Intercept {
  const source = object(value, path);
  const out: Intercept = { route: string(source.route, `${path}.route`) };
  optional(out, 'continuation', source, path, continuation);
  optional(out, 'returnTo', source, path, string);
  return out;
}

function linkInfo(value: unknown, path: string): LinkInfo {
  const source = object(value, path);
  const out: LinkInfo = { status: string(source.status, `${path}.status`) };
  optional(out, 'id', source, path, string);
  optional(out, 'expiresAt', source, path, integer);
  return out;
}

function problem(value: unknown, path: string): Problem {
  const source = object(value, path);
  return { code: string(source.code, `${path}.code`), message: string(source.message, `${path}.message`) };
}

function update(value: unknown, path: string): Update {
  const source = object(value, path);
  const out: Update = { requiredVersion: string(source.requiredVersion, `${path}.requiredVersion`) };
  optional(out, 'platform', source, path, string);
  optional(out, 'storeURL', source, path, string);
  return out;
}

function fallback(value: unknown, path: string): Fallback {
  const source = object(value, path);
  const out: Fallback = {
    route: string(source.route, `${path}.route`),
    params: stringMap(source.params ?? {}, `${path}.params`),
    tabBarVisible: boolean(source.tabBarVisible ?? false, `${path}.tabBarVisible`),
    stack: strings(source.stack ?? [], `${path}.stack`),
    returnTo: stringMap(source.returnTo ?? {}, `${path}.returnTo`),
  };
  optional(out, 'tab', source, path, string);
  optional(out, 'presentation', source, path, string);
  return out;
}

function afterActions(value: unknown, path: string): Record<string, RouteTarget> {
  const source = object(value, path);
  const out: Record<string, RouteTarget> = {};
  for (const key of Object.keys(source)) out[key] = routeTarget(source[key], `${path}.${key}`);
  return out;
}

/**
 * A {@link Resolution} from parsed JSON. `outcome` is required; `params`, `stack`, `returnTo` and `tabBarVisible`
 * default to empty/false when missing; every other key is copied when present. Throws {@link WireError}.
 */
export function decodeResolution(value: unknown, path = 'resolution'): Resolution {
  const source = object(value, path);
  const out: Resolution = {
    outcome: string(source.outcome, `${path}.outcome`),
    params: stringMap(source.params ?? {}, `${path}.params`),
    tabBarVisible: boolean(source.tabBarVisible ?? false, `${path}.tabBarVisible`),
    stack: strings(source.stack ?? [], `${path}.stack`),
    returnTo: stringMap(source.returnTo ?? {}, `${path}.returnTo`),
  };
  optional(out, 'app', source, path, string);
  optional(out, 'route', source, path, string);
  optional(out, 'tab', source, path, string);
  optional(out, 'presentation', source, path, string);
  optional(out, 'afterActions', source, path, afterActions);
  optional(out, 'intercept', source, path, intercept);
  optional(out, 'link', source, path, linkInfo);
  optional(out, 'message', source, path, string);
  optional(out, 'cta', source, path, string);
  optional(out, 'problem', source, path, problem);
  optional(out, 'update', source, path, update);
  optional(out, 'fallback', source, path, fallback);
  return out;
}

/** A {@link CreatedShareLink} from parsed JSON. Throws {@link WireError}. */
export function decodeCreatedShareLink(value: unknown, path = 'createdShareLink'): CreatedShareLink {
  const source = object(value, path);
  const out: CreatedShareLink = {
    id: string(source.id, `${path}.id`),
    app: string(source.app, `${path}.app`),
    token: string(source.token, `${path}.token`),
    url: string(source.url, `${path}.url`),
    expiresAt: string(source.expiresAt, `${path}.expiresAt`),
  };
  optional(out, 'shortURL', source, path, string);
  optional(out, 'pathURL', source, path, string);
  return out;
}

/** A {@link ShareLink} from parsed JSON. Throws {@link WireError}. */
export function decodeShareLink(value: unknown, path = 'shareLink'): ShareLink {
  const source = object(value, path);
  const out: ShareLink = {
    id: string(source.id, `${path}.id`),
    app: string(source.app, `${path}.app`),
    route: string(source.route, `${path}.route`),
    params: stringMap(source.params ?? {}, `${path}.params`),
    status: string(source.status, `${path}.status`),
    createdAt: string(source.createdAt, `${path}.createdAt`),
    expiresAt: string(source.expiresAt, `${path}.expiresAt`),
    clicks: integer(source.clicks, `${path}.clicks`),
  };
  optional(out, 'owner', source, path, string);
  optional(out, 'title', source, path, string);
  optional(out, 'lastOpenedAt', source, path, string);
  optional(out, 'shortURL', source, path, string);
  optional(out, 'pathURL', source, path, string);
  return out;
}
