import type { LinkdError } from '../errors/linkdError.js';

/**
 * When a failed call is tried again, and how long the client waits before it does. Bounded twice: at most
 * `maxAttempts` attempts, and at most `maxTotalWaitMs` spent waiting between them. A `Retry-After` that would pass
 * the remaining wait is not waited out: the error is thrown at once, carrying it. (The Swift client's `RetryPolicy`.)
 */
export interface RetryPolicy {
  /** Attempts in all, the first included (1: never retry). Default 3. */
  maxAttempts: number;
  /** The most time spent waiting between attempts over one call, in milliseconds. Default 10 000. */
  maxTotalWaitMs: number;
  /**
   * The wait before the first retry of a failure that names none (a lost connection, a 503 without `Retry-After`),
   * in milliseconds; doubled for each later one, plus up to a quarter more at random. Default 250.
   */
  initialBackoffMs: number;
}

/** The default policy: 3 attempts, 10 s of waiting at most, 250 ms first backoff. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 3,
  maxTotalWaitMs: 10_000,
  initialBackoffMs: 250,
});

/** A policy that never retries. */
export const NEVER_RETRY: Readonly<RetryPolicy> = Object.freeze({ maxAttempts: 1, maxTotalWaitMs: 0, initialBackoffMs: 0 });

/**
 * What a call may safely be retried after:
 * - `idempotent`: retrying cannot do anything twice (`resolve`, reads, a revocation): any transient failure;
 * - `refusedOnly`: retrying could do it twice (creating a link, claiming a code): only answers that say the request
 *   was refused before it was acted on (429, 503 `too_many_connections`) and connections that never opened.
 */
export type RetrySafety = 'idempotent' | 'refusedOnly';

/** Network error codes (Node's) meaning the request was never sent: no connection, no address. */
const NOTHING_SENT = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'];

/** Whether `error` may be retried for a call of this safety. */
export function isRetryable(error: LinkdError, safety: RetrySafety): boolean {
  const idempotent = safety === 'idempotent';
  switch (error.kind) {
    case 'server':
      switch (error.code) {
        case 'rate_limited':
        case 'too_many_connections':
          return true;
        case 'not_ready':
        case 'store_unavailable':
        case 'request_timeout':
          return idempotent;
        default:
          return idempotent && [502, 503, 504].includes(error.status);
      }
    case 'unexpectedResponse':
      // A proxy's 502/503/504 page: the request may or may not have reached linkd.
      return idempotent && [502, 503, 504].includes(error.status);
    case 'network':
      if (error.cancelled) return false;
      return idempotent || (error.networkCode !== undefined && NOTHING_SENT.includes(error.networkCode));
    case 'timeout':
      return idempotent;
    case 'invalidArgument':
      return false;
  }
}

/**
 * How long to wait before retrying after `error`, in milliseconds, or `undefined` when it must not be retried.
 * @param attempt - the attempt that failed (1 for the first).
 * @param waitedMs - the time already spent waiting in this call.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  error: LinkdError,
  attempt: number,
  waitedMs: number,
  safety: RetrySafety,
  random: () => number = Math.random,
): number | undefined {
  if (attempt >= Math.max(1, policy.maxAttempts) || !isRetryable(error, safety)) return undefined;
  const backoff = policy.initialBackoffMs * 2 ** Math.min(attempt - 1, 16);
  const wait = error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : backoff + backoff * 0.25 * random();
  if (waitedMs + wait > policy.maxTotalWaitMs) return undefined;
  return wait;
}
