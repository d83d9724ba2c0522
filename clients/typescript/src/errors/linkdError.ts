import type { ServerErrorCode } from './serverErrorCode.js';

/**
 * What kind of failure a {@link LinkdError} is:
 * - `server`: the server answered `{"error": {"code", "message"}}` (`status`, `code`, `retryAfterSeconds`);
 * - `timeout`: no whole answer within the per-attempt time limit (on the last attempt);
 * - `network`: the request could not be sent or its answer not read (refused, reset, DNS, TLS, cancelled);
 * - `unexpectedResponse`: an answer that is not the API's JSON (a proxy's page, the wrong shape, over the size cap);
 * - `invalidArgument`: refused before anything was sent (a malformed claim code or link id, no API key).
 */
export type LinkdErrorKind = 'server' | 'timeout' | 'network' | 'unexpectedResponse' | 'invalidArgument';

/** The fields of a {@link LinkdError}, as its constructor takes them. */
export interface LinkdErrorInit {
  /** See {@link LinkdErrorKind}. */
  kind: LinkdErrorKind;
  /** A line for logs. */
  message: string;
  /** The HTTP status (0 when there was no answer). */
  status?: number;
  /** The server's machine code (`server` errors only). */
  code?: ServerErrorCode;
  /** `Retry-After` in seconds, when the answer carried one (every 429; 503 `too_many_connections`). */
  retryAfterSeconds?: number;
  /** The time limit that passed (`timeout` errors), in milliseconds. */
  timeoutMs?: number;
  /** For `network` errors: the platform's error code when it gives one (Node: `ECONNREFUSED`, …). */
  networkCode?: string;
  /** For `network` errors: the caller aborted the call through its `signal`. */
  cancelled?: boolean;
  /** The underlying error, if any. */
  cause?: unknown;
}

/**
 * Why a call of `LinkdClient` failed. Every rejection of the client is one of these; switch on `kind`, and for
 * `server` errors on `code`:
 *
 * ```ts
 * try { await client.claim(code, 'signedOut') }
 * catch (e) { if (e instanceof LinkdError && e.code === 'not_found') { ... open as without a link ... } }
 * ```
 */
export class LinkdError extends Error {
  /** See {@link LinkdErrorKind}. */
  readonly kind: LinkdErrorKind;
  /** The HTTP status of the answer; 0 when there was none (`timeout`, `network`, `invalidArgument`). */
  readonly status: number;
  /** The server's machine code, for `server` errors (`not_found`, `rate_limited`, …); else undefined. */
  readonly code: ServerErrorCode | undefined;
  /** `Retry-After` in whole seconds, when the server's answer carried one. */
  readonly retryAfterSeconds: number | undefined;
  /** For `timeout` errors: the per-attempt limit that passed, in milliseconds. */
  readonly timeoutMs: number | undefined;
  /** For `network` errors: the platform's code when it gives one (`ECONNREFUSED`, `ENOTFOUND`, …). */
  readonly networkCode: string | undefined;
  /** For `network` errors: true when the caller's `signal` aborted the call. */
  readonly cancelled: boolean;
  /** The underlying error, if any. */
  readonly cause: unknown;

  /** Creates an error (the client makes them; tests and app code may too). */
  constructor(init: LinkdErrorInit) {
    super(init.message);
    this.name = 'LinkdError';
    this.kind = init.kind;
    this.status = init.status ?? 0;
    this.code = init.code;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.timeoutMs = init.timeoutMs;
    this.networkCode = init.networkCode;
    this.cancelled = init.cancelled ?? false;
    this.cause = init.cause;
  }

  /** True for a `server` error with this code. */
  is(code: ServerErrorCode): boolean {
    return this.kind === 'server' && this.code === code;
  }

  /** A line for logs: `404 not_found: …`, `timeout: …`. */
  override toString(): string {
    return this.kind === 'server' ? `LinkdError ${this.status} ${String(this.code)}: ${this.message}` : `LinkdError ${this.kind}: ${this.message}`;
  }
}

/** Whether `value` is a {@link LinkdError}. */
export function isLinkdError(value: unknown): value is LinkdError {
  return value instanceof LinkdError;
}
