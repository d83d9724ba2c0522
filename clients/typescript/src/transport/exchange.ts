import { LinkdError } from '../errors/linkdError.js';
import { normalizeServerErrorCode } from '../errors/serverErrorCode.js';
import { WireError } from '../wire/decode.js';
import { retryDelayMs, type RetryPolicy, type RetrySafety } from './retryPolicy.js';

/** The `fetch` the client calls: the platform's (`globalThis.fetch`) unless one is given. */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/** How requests are sent: time limit, retries, size cap. */
export interface TransportOptions {
  /** The most one attempt may take, from sending to the last byte of the answer, in milliseconds. */
  timeoutMs: number;
  /** When and how often a failed call is tried again. */
  retry: RetryPolicy;
  /** The largest answer read, in bytes; a longer one is `unexpectedResponse`. */
  maxResponseBytes: number;
  /** Sent as `User-Agent` when set (browsers ignore it). */
  userAgent: string | undefined;
  /** The `fetch` to use. */
  fetch: FetchFunction;
}

/** One call to the API. */
export interface ApiRequest {
  /** `GET`, `POST`, `DELETE`. */
  method: string;
  /** The full URL. */
  url: string;
  /** A JSON body, sent with `Content-Type: application/json`. */
  body?: unknown;
  /** Sent as `Authorization: Bearer …` when set. */
  apiKey?: string;
  /** The caller's cancellation: ends the call at once (a `network` error with `cancelled`), never retried. */
  signal?: AbortSignal;
}

/**
 * Sends `request`, retrying as `options.retry` and `safety` allow, and reads a 2xx answer's JSON with `decode`.
 * Rejects with a {@link LinkdError} only.
 */
export async function exchange<T>(
  options: TransportOptions,
  request: ApiRequest,
  safety: RetrySafety,
  decode: (json: unknown) => T,
): Promise<T> {
  let attempt = 1;
  let waitedMs = 0;
  for (;;) {
    let failure: LinkdError;
    try {
      const { status, json } = await attemptOnce(options, request);
      try {
        return decode(json);
      } catch (error) {
        const reason = error instanceof WireError ? error.message : String(error);
        throw new LinkdError({ kind: 'unexpectedResponse', status, message: `the answer is not the API's: ${reason}`, cause: error });
      }
    } catch (error) {
      failure = error instanceof LinkdError ? error : new LinkdError({ kind: 'network', message: String(error), cause: error });
    }
    const delay = request.signal?.aborted ? undefined : retryDelayMs(options.retry, failure, attempt, waitedMs, safety);
    if (delay === undefined) throw failure;
    if (!(await sleep(delay, request.signal))) throw failure; // cancelled while waiting: the last failure stands
    waitedMs += delay;
    attempt += 1;
  }
}

/** Waits `ms`; false when `signal` aborted first. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * `Retry-After` in its delay-seconds form (RFC 9110 §10.2.3), whole seconds; the HTTP-date form, which linkd never
 * sends, is ignored (the policy's backoff applies).
 */
export function parseRetryAfter(value: string | null): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (!/^[0-9]{1,10}$/.test(trimmed)) return undefined;
  return Number(trimmed);
}

/** UTF-8 length of `text`. */
function byteLength(text: string): number {
  if (typeof TextEncoder !== 'undefined') return new TextEncoder().encode(text).length;
  return text.length;
}

/** One attempt within `options.timeoutMs`: the status and JSON of a 2xx answer, else the error it means. */
async function attemptOnce(options: TransportOptions, request: ApiRequest): Promise<{ status: number; json: unknown }> {
  const controller = new AbortController();
  let timedOut = false;
  let cancelled = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  const onCallerAbort = (): void => {
    cancelled = true;
    controller.abort();
  };
  if (request.signal?.aborted) onCallerAbort();
  request.signal?.addEventListener('abort', onCallerAbort, { once: true });

  const failed = (error: unknown): LinkdError => {
    if (cancelled) return new LinkdError({ kind: 'network', message: 'cancelled', cancelled: true, cause: error });
    if (timedOut) {
      return new LinkdError({ kind: 'timeout', message: `no answer within ${options.timeoutMs} ms`, timeoutMs: options.timeoutMs, cause: error });
    }
    const code = networkCode(error);
    return new LinkdError({
      kind: 'network',
      message: `the request could not be sent or its answer read: ${describe(error)}`,
      networkCode: code,
      cause: error,
    });
  };

  try {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (options.userAgent !== undefined) headers['User-Agent'] = options.userAgent;
    if (request.apiKey !== undefined) headers.Authorization = `Bearer ${request.apiKey}`;
    let body: string | undefined;
    if (request.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(request.body);
    }
    let response: Response;
    let text: string;
    try {
      response = await options.fetch(request.url, { method: request.method, headers, body, signal: controller.signal });
      const declared = Number(response.headers.get('Content-Length') ?? '');
      if (Number.isFinite(declared) && declared > options.maxResponseBytes) {
        controller.abort();
        throw new LinkdError({
          kind: 'unexpectedResponse',
          status: response.status,
          message: `an answer of ${declared} bytes, over the client's cap of ${options.maxResponseBytes}`,
        });
      }
      text = await response.text();
    } catch (error) {
      if (error instanceof LinkdError) throw error;
      throw failed(error);
    }
    const status = response.status;
    if (byteLength(text) > options.maxResponseBytes) {
      throw new LinkdError({
        kind: 'unexpectedResponse',
        status,
        message: `an answer of ${byteLength(text)} bytes, over the client's cap of ${options.maxResponseBytes}`,
      });
    }
    let json: unknown;
    let parsed = true;
    try {
      json = JSON.parse(text);
    } catch {
      parsed = false;
    }
    if (status >= 200 && status < 300) {
      if (!parsed) throw new LinkdError({ kind: 'unexpectedResponse', status, message: `not JSON: ${text.slice(0, 200)}` });
      return { status, json };
    }
    const detail = parsed ? errorDetail(json) : undefined;
    if (detail === undefined) {
      throw new LinkdError({ kind: 'unexpectedResponse', status, message: `not the API's error JSON: ${text.slice(0, 200)}` });
    }
    throw new LinkdError({
      kind: 'server',
      status,
      code: normalizeServerErrorCode(detail.code),
      message: detail.message,
      retryAfterSeconds: parseRetryAfter(response.headers.get('Retry-After')),
    });
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener('abort', onCallerAbort);
  }
}

/** `{"error": {"code", "message"}}`'s code and message, or undefined when `json` is not that. */
function errorDetail(json: unknown): { code: string; message: string } | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const error = (json as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code !== 'string' || typeof message !== 'string') return undefined;
  return { code, message };
}

/** The platform's error code of a failed fetch, when it gives one (Node: `error.cause.code`). */
function networkCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current !== null && typeof current === 'object' && depth < 4; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A short text for an unknown error. */
function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
  }
  return String(error);
}
