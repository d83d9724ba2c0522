/**
 * Every machine code the server sends in `{"error": {"code", "message"}}` (the server's `APIError.Code`,
 * `docs/openapi.yaml`'s `Error` schema, and the two codes of its connection edge, `request_timeout` and
 * `too_many_connections`). Mirrors the Swift client's `ServerErrorCode.known`.
 */
export const KNOWN_SERVER_ERROR_CODES = [
  'bad_request',
  'bad_cursor',
  'unauthorized',
  'forbidden',
  'not_found',
  'method_not_allowed',
  'conflict',
  'payload_too_large',
  'unsupported_media_type',
  'unprocessable',
  'unknown_route',
  'not_shareable',
  'bad_params',
  'rate_limited',
  'internal_error',
  'not_ready',
  'store_unavailable',
  'request_timeout',
  'too_many_connections',
  'bad_app_version',
  'manifest_invalid',
  'manifest_app_mismatch',
  'manifest_strands_links',
  'version_conflict',
  'app_has_live_links',
  'unknown_state',
  'unsupported_format',
  'path_taken',
  'import_too_large',
  'import_running',
  'nul_byte',
  'unclosed_quote',
  'bad_quote',
  'too_many_columns',
  'field_too_long',
  'line_too_long',
  'invalid_utf8',
  'empty_file',
  'missing_column',
  'duplicate_column',
  'too_many_rows',
] as const;

/** A code this version of the client knows (see {@link KNOWN_SERVER_ERROR_CODES}). */
export type KnownServerErrorCode = (typeof KNOWN_SERVER_ERROR_CODES)[number];

/**
 * The machine code of an error answer: one the client knows, or any other string a newer server may send
 * (kept as sent, never refused).
 */
export type ServerErrorCode = KnownServerErrorCode | (string & Record<never, never>);

/** Whether `code` is one of {@link KNOWN_SERVER_ERROR_CODES}. */
export function isKnownServerErrorCode(code: string): code is KnownServerErrorCode {
  return (KNOWN_SERVER_ERROR_CODES as readonly string[]).includes(code);
}

/** Codes as servers before 0.2 spelled them (camelCase), and their spelling now. */
const EARLIER_SPELLINGS: Readonly<Record<string, KnownServerErrorCode>> = {
  requestTimeout: 'request_timeout',
  tooManyConnections: 'too_many_connections',
};

/** The code as this client names it: the server's spelling, or the current one of a code an older server spelled otherwise. */
export function normalizeServerErrorCode(code: string): ServerErrorCode {
  return EARLIER_SPELLINGS[code] ?? code;
}
