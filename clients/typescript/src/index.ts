/**
 * `@linkd/client`: linkd's TypeScript client for apps (React Native/Expo, browsers, Node ≥ 18). `fetch` only, no
 * dependencies. See `docs/client-typescript.md`.
 * @packageDocumentation
 */
export { LinkdClient, type LinkdClientOptions, type ResolveOptions, type CallOptions } from './client.js';
export { LinkdError, isLinkdError, type LinkdErrorKind, type LinkdErrorInit } from './errors/linkdError.js';
export {
  KNOWN_SERVER_ERROR_CODES,
  isKnownServerErrorCode,
  type KnownServerErrorCode,
  type ServerErrorCode,
} from './errors/serverErrorCode.js';
export {
  DEFAULT_RETRY_POLICY,
  NEVER_RETRY,
  isRetryable,
  retryDelayMs,
  type RetryPolicy,
  type RetrySafety,
} from './transport/retryPolicy.js';
export { parseRetryAfter, type FetchFunction } from './transport/exchange.js';
export {
  OUTCOMES,
  PRESENTATIONS,
  RESOLUTION_KEYS,
  INTERCEPT_KEYS,
  CONTINUATION_KEYS,
  LINK_INFO_KEYS,
  PROBLEM_KEYS,
  UPDATE_KEYS,
  FALLBACK_KEYS,
  ROUTE_TARGET_KEYS,
  isModalPresentation,
  type Outcome,
  type Presentation,
  type Resolution,
  type RouteTarget,
  type Intercept,
  type Continuation,
  type LinkInfo,
  type Problem,
  type Update,
  type Fallback,
} from './wire/resolution.js';
export type { CreatedShareLink, ShareLink, CreateShareLinkOptions } from './wire/shareLink.js';
export { decodeResolution, decodeCreatedShareLink, decodeShareLink, WireError } from './wire/decode.js';
export {
  CLAIM_REFERRER_PARAMETER,
  CLAIM_CODE_LENGTH,
  isClaimCode,
  parseClaimCode,
  claimCodeFromInstallReferrer,
  claimCodeFromPasted,
} from './claims/claimCode.js';
export { navigationPlan, type NavigationPlan, type NavigationStep, type Screen } from './navigation/navigationPlan.js';
export {
  navigationActions,
  navigationState,
  reactNavigationPresentation,
  type NavigationAction,
  type ResetAction,
  type NavigationRoute,
  type PartialNavigationState,
  type ReactNavigationOptions,
} from './navigation/reactNavigation.js';
