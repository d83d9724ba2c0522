import { LinkdError } from './errors/linkdError.js';
import { parseClaimCode } from './claims/claimCode.js';
import { exchange, type FetchFunction, type TransportOptions } from './transport/exchange.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './transport/retryPolicy.js';
import { decodeCreatedShareLink, decodeResolution, decodeShareLink } from './wire/decode.js';
import type { Continuation, Resolution } from './wire/resolution.js';
import type { CreatedShareLink, CreateShareLinkOptions, ShareLink } from './wire/shareLink.js';

/** What `new LinkdClient(...)` takes. */
export interface LinkdClientOptions {
  /** The daemon's address (`https://links.example.com`); API paths are appended to it. */
  baseURL: string;
  /**
   * A client API key of the app (`lkd_…`), needed only for share links. Do not ship one in an app binary: a binary
   * cannot keep a secret; make share links from the app's backend. Resolving and claiming take none.
   */
  apiKey?: string;
  /** The most one attempt may take, from sending to the last byte of the answer, in milliseconds. Default 10 000. */
  timeoutMs?: number;
  /** When and how often a failed call is tried again; fields left out keep their defaults (3 attempts, 10 s of
   * waiting at most, 250 ms first backoff). `{ maxAttempts: 1 }` never retries. */
  retry?: Partial<RetryPolicy>;
  /** The largest answer read, in bytes; a longer one is `unexpectedResponse`. Default 1 MiB. */
  maxResponseBytes?: number;
  /** The app's version, sent with every resolution (`appVersion`): a route the manifest says is newer answers
   * `updateRequired` with a fallback the app has. Default: none (every route is answered). */
  appVersion?: string;
  /** The app's platform, `ios` or `android`, sent whenever an `appVersion` is (alone it changes nothing). */
  platform?: 'ios' | 'android';
  /** Sent as `User-Agent` when set (browsers ignore it). Default: none. */
  userAgent?: string;
  /** The `fetch` to use. Default: `globalThis.fetch` (browsers, React Native, Node ≥ 18). */
  fetch?: FetchFunction;
}

/** What `resolve` takes besides the URL. */
export interface ResolveOptions {
  /** One of the app's session states (Handz: `signedOut`, `guest`, `free`, `pro`, `trial`). */
  state: string;
  /** The app's version for this call (overrides the client's `appVersion`). */
  appVersion?: string;
  /** The app's platform for this call (overrides the client's `platform`). */
  platform?: 'ios' | 'android';
  /** The app's id, when the URL alone does not say (a host several apps share). */
  app?: string;
  /** Cancels the call (a `network` error with `cancelled: true`). */
  signal?: AbortSignal;
}

/** Options every other call takes. */
export interface CallOptions {
  /** Cancels the call (a `network` error with `cancelled: true`). */
  signal?: AbortSignal;
}

const LINK_ID = /^[0-9a-f]{32}$/;

/**
 * linkd's client for apps (React Native/Expo, browsers, Node ≥ 18): resolves links for the user's session state,
 * makes share links, claims deferred links. `fetch` only.
 *
 * Every call has a time limit per attempt (`timeoutMs`) and is retried within `retry`'s bounds, honouring
 * `Retry-After` — but calls that could do something twice (creating a link, claiming a code) only after answers that
 * say the server did not act on them. Every failure is a {@link LinkdError}.
 *
 * ```ts
 * const linkd = new LinkdClient({ baseURL: 'https://links.handz.example' });
 * const resolution = await linkd.resolve(url, { state: 'signedOut' });
 * ```
 */
export class LinkdClient {
  /** The daemon's address, without a trailing `/`. */
  readonly baseURL: string;
  /** The client API key, if given. */
  readonly apiKey: string | undefined;
  /** The app version sent with resolutions, if any. */
  readonly appVersion: string | undefined;
  /** The platform sent with an `appVersion` (the client's or a call's), if any. */
  readonly platform: 'ios' | 'android' | undefined;
  private readonly transport: TransportOptions;

  /** Creates a client; see {@link LinkdClientOptions}. Throws a `LinkdError` (`invalidArgument`) for a bad `baseURL`. */
  constructor(options: LinkdClientOptions) {
    if (!/^https?:\/\/[^/?#]+/i.test(options.baseURL)) {
      throw new LinkdError({ kind: 'invalidArgument', message: `not an http(s) base URL: ${options.baseURL.slice(0, 200)}` });
    }
    this.baseURL = options.baseURL.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.appVersion = options.appVersion;
    this.platform = options.platform;
    const fetchFunction = options.fetch ?? (typeof fetch === 'function' ? fetch.bind(globalThis) : undefined);
    if (fetchFunction === undefined) throw new LinkdError({ kind: 'invalidArgument', message: 'no fetch: pass options.fetch' });
    this.transport = {
      timeoutMs: options.timeoutMs ?? 10_000,
      retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
      maxResponseBytes: options.maxResponseBytes ?? 1 << 20,
      userAgent: options.userAgent,
      fetch: fetchFunction,
    };
  }

  // Resolving

  /**
   * Where `url` goes for a caller in session state `options.state` (`POST /v1/resolve`). A URL that leads nowhere is
   * an answer (outcome `notFound`), not an error; a revoked, expired or unknown share link is `linkUnavailable`.
   * Retried after any transient failure.
   * @param url - the link as the app received it (universal/app link, custom scheme, share link).
   */
  resolve(url: string, options: ResolveOptions): Promise<Resolution> {
    const body: Record<string, string> = { url, state: options.state };
    if (options.app !== undefined) body.app = options.app;
    const appVersion = options.appVersion ?? this.appVersion;
    const platform = options.platform ?? this.platform;
    if (appVersion !== undefined) {
      body.appVersion = appVersion;
      if (platform !== undefined) body.platform = platform;
    }
    return exchange(this.transport, { method: 'POST', url: this.url('v1/resolve'), body, signal: options.signal }, 'idempotent', decodeResolution);
  }

  /** Resumes an intercepted link after the state changed (signed in, upgraded): resolves its URL again in `state`. */
  resume(continuation: Continuation, state: string, options: CallOptions = {}): Promise<Resolution> {
    return this.resolve(continuation.url, { state, signal: options.signal });
  }

  // Deferred links

  /**
   * Claims a deferred link (`POST /v1/claims/{code}`): the resolution of the link that was followed before the app
   * was installed, once. A used, expired or unknown code is a `server` error with `code` `not_found` (status 404),
   * all alike: the app then opens as it would without a link. A malformed code is `invalidArgument` and nothing is
   * sent. Retried only after refusals the server did not act on (429, 503 `too_many_connections`, no connection), so a
   * code is never spent by a retry the app did not see.
   * @param code - from `claimCodeFromInstallReferrer` or `claimCodeFromPasted`.
   * @param state - the caller's session state (on a first launch, usually the signed-out one).
   */
  claim(code: string, state: string, options: CallOptions = {}): Promise<Resolution> {
    const checked = parseClaimCode(code);
    if (checked === undefined) return Promise.reject(invalid(`not a claim code: ${code.slice(0, 64)}`));
    return exchange(
      this.transport,
      { method: 'POST', url: this.url(`v1/claims/${checked}`), body: { state }, signal: options.signal },
      'refusedOnly',
      decodeResolution,
    );
  }

  // Share links (need a client key: call them from the app's backend)

  /**
   * Makes a share link of the key's app (`POST /v1/links`). Not retried after failures that might have made it.
   * Refusals are typed: `not_shareable`, `unknown_route`, `bad_params`, `unprocessable` (a TTL under 60 s, a path of
   * the wrong shape), `path_taken` (a custom path a route, linkd or another live link holds).
   */
  createShareLink(link: CreateShareLinkOptions, options: CallOptions = {}): Promise<CreatedShareLink> {
    const body: Record<string, unknown> = { params: link.params };
    if (link.route !== undefined) body.route = link.route;
    if (link.ttlSeconds !== undefined) body.ttlSeconds = link.ttlSeconds;
    if (link.owner !== undefined) body.owner = link.owner;
    if (link.title !== undefined) body.title = link.title;
    if (link.path !== undefined) body.path = link.path;
    return this.authorized((apiKey) =>
      exchange(this.transport, { method: 'POST', url: this.url('v1/links'), body, apiKey, signal: options.signal }, 'refusedOnly', decodeCreatedShareLink),
    );
  }

  /** A share link of the key's app as the inspector shows it (`GET /v1/links/{id}`): status, clicks, dates. */
  shareLink(id: string, options: CallOptions = {}): Promise<ShareLink> {
    return this.linkCall('GET', id, options);
  }

  /** Revokes a share link of the key's app (`DELETE /v1/links/{id}`), at once; revoking again answers the link
   * again (retried after any transient failure: it is idempotent). Resolves to the revoked link. */
  revokeShareLink(id: string, options: CallOptions = {}): Promise<ShareLink> {
    return this.linkCall('DELETE', id, options);
  }

  // Requests

  private linkCall(method: 'GET' | 'DELETE', id: string, options: CallOptions): Promise<ShareLink> {
    if (!LINK_ID.test(id)) return Promise.reject(invalid(`not a link id (32 lowercase hex digits): ${id.slice(0, 64)}`));
    return this.authorized((apiKey) =>
      exchange(this.transport, { method, url: this.url(`v1/links/${id}`), apiKey, signal: options.signal }, 'idempotent', decodeShareLink),
    );
  }

  private authorized<T>(call: (apiKey: string) => Promise<T>): Promise<T> {
    if (this.apiKey === undefined) {
      return Promise.reject(invalid('this call needs a client API key (new LinkdClient({ baseURL, apiKey }))'));
    }
    return call(this.apiKey);
  }

  private url(path: string): string {
    return `${this.baseURL}/${path}`;
  }
}

function invalid(message: string): LinkdError {
  return new LinkdError({ kind: 'invalidArgument', message });
}
