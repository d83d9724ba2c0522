/** Share links as the API answers them (`POST /v1/links`, `GET`/`DELETE /v1/links/{id}`). Dates are the server's
 * RFC 3339 strings (`2026-12-26T05:48:47Z`): `new Date(link.expiresAt)` reads them. */

/** A share link just made (`POST /v1/links`): the only answer that carries its token and URL. */
export interface CreatedShareLink {
  /** The link id (32 hex digits): what `revokeShareLink` and `shareLink` take. */
  id: string;
  /** The app it belongs to (the API key's). */
  app: string;
  /** The signed share token. */
  token: string;
  /** The URL to share, as the app's manifest chooses (`share.url`): the token's
   * (`https://links.handz.example/s/<token>`, the default) or the short one. */
  url: string;
  /** The link's short URL (`https://links.handz.example/s/<11 base62 characters>`), which opens exactly what the
   * token's does; absent from a server older than short ids. */
  shortURL?: string;
  /** The URL of the custom path it was made with (`https://links.handz.example/guard-pass`); absent without one. */
  pathURL?: string;
  /** When it stops opening (RFC 3339). */
  expiresAt: string;
}

/** A share link as the inspector shows it (`GET /v1/links/{id}`, and the answer to a revocation). */
export interface ShareLink {
  /** The link id. */
  id: string;
  /** Its app. */
  app: string;
  /** The route it opens. */
  route: string;
  /** The route's params. */
  params: Record<string, string>;
  /** The app's user id of its owner, when given at creation. */
  owner?: string;
  /** Its display title, when given. */
  title?: string;
  /** `active`, `revoked`, `expired` or `deleted`. */
  status: string;
  /** When it was made (RFC 3339). */
  createdAt: string;
  /** When it stops (or stopped) opening (RFC 3339). */
  expiresAt: string;
  /** Clicks by people (not link-preview bots). */
  clicks: number;
  /** The last time a person opened it (RFC 3339). */
  lastOpenedAt?: string;
  /** Its short URL; absent for a link made before short ids. */
  shortURL?: string;
  /** Its custom path's URL while it holds one (a path passes to a new link once this one is revoked or expired). */
  pathURL?: string;
}

/** What `createShareLink` takes (`POST /v1/links`'s body). */
export interface CreateShareLinkOptions {
  /** The route it opens; omitted for the manifest's `share.route` (Handz: `ShareLink/FlowView`). */
  route?: string;
  /** The route's params (Handz: `{ flowId }`). */
  params: Record<string, string>;
  /** How long it opens, in whole seconds (60 at least; default: the server's `defaultTTLSeconds`). */
  ttlSeconds?: number;
  /** The title the landing page shows when the app's origin gives none. */
  title?: string;
  /** The app's user id of its owner, so that all of a user's links can be revoked at once. */
  owner?: string;
  /** A custom path on the app's share host (`/guard-pass`: letters, digits, `-`, `_`, `/`, at most 128 bytes); a path
   * a route, linkd or another live link holds is the server's `path_taken`. */
  path?: string;
}
