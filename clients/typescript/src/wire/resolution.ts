/**
 * The resolution JSON (`docs/matching.md`, "Resolution JSON"; `docs/openapi.yaml` `Resolution`): where a link goes
 * for one session state. The answer of `POST /v1/resolve` and of a claim.
 */

/** Every outcome the server sends today. */
export const OUTCOMES = ['route', 'intercept', 'notFound', 'linkUnavailable', 'updateRequired'] as const;

/**
 * What kind of answer a resolution is:
 * - `route`: open `route`;
 * - `intercept`: the state may not open the target; show `route` (the intercept screen), `intercept` holds the target;
 * - `notFound`: nothing matched (or the URL was refused); show `route` if the app has a not-found route, `problem` says why;
 * - `linkUnavailable`: a revoked, expired, deleted or unknown share link; show `route` with `message` and `cta`;
 * - `updateRequired`: the app is older than the route; offer `update`, show `fallback` meanwhile.
 *
 * Any other string is an outcome a newer server added, kept as sent: treat it as `notFound`.
 */
export type Outcome = (typeof OUTCOMES)[number] | (string & Record<never, never>);

/** Every presentation the server sends today (the manifest's spellings). */
export const PRESENTATIONS = [
  'root',
  'push',
  'overlay',
  'system',
  'alert',
  'actionSheet',
  'fullScreen',
  'sheet.medium',
  'sheet.large',
] as const;

/** How a route is shown; any other string is one a newer server added, kept as sent. */
export type Presentation = (typeof PRESENTATIONS)[number] | (string & Record<never, never>);

/** Whether `presentation` is modal, over the stack: everything but `root`, `push` and `overlay`. */
export function isModalPresentation(presentation: Presentation): boolean {
  return presentation !== 'root' && presentation !== 'push' && presentation !== 'overlay';
}

/** A route and its params: an after-action's destination. */
export interface RouteTarget {
  /** The route id. */
  route: string;
  /** Its params. */
  params: Record<string, string>;
}

/** The original target of an intercepted link. */
export interface Continuation {
  /** Its route id. */
  route: string;
  /** Its params. */
  params: Record<string, string>;
  /** The URL as the server received it: resolve it again in the new state to resume (`LinkdClient.resume`). */
  url: string;
}

/** The screen shown instead of a target the state may not open, and the target kept to resume. */
export interface Intercept {
  /** The intercept screen (the same as the resolution's `route`). */
  route: string;
  /** The original target, to resume after sign-in or upgrading, when the manifest keeps it. */
  continuation?: Continuation;
  /** Where dismissing the intercept goes ("where they were"). */
  returnTo?: string;
}

/** A share link's details, as a resolution reports them. */
export interface LinkInfo {
  /** The link id (32 hex digits), when known. */
  id?: string;
  /** `active`, `revoked`, `expired`, `deleted` or `unknown`. */
  status: string;
  /** Expiry in seconds since 1970 (UTC), when active. */
  expiresAt?: number;
}

/**
 * Why a URL resolved to `notFound`: a machine code (`urlTooLong`, `malformedURL`, `userinfoRefused`, `portRefused`,
 * `unknownApp`, `noMatch`, `nonCanonicalPath`, `badQuery`, `notAllowed`, `unknownState`) and a message for logs.
 */
export interface Problem {
  /** The machine code. */
  code: string;
  /** What went wrong, in English (not for people). */
  message: string;
}

/** What an app too old for a route is told (`updateRequired`). */
export interface Update {
  /** The first version that has the route on the platform the app said (`1.3`). */
  requiredVersion: string;
  /** The platform the app said it is (`ios`, `android`), if it said. */
  platform?: string;
  /** The app's store page on that platform, when the manifest names it. */
  storeURL?: string;
}

/** Where an app too old for a route goes instead: a route placed for the state, as a resolution places one. */
export interface Fallback {
  /** The route to show. */
  route: string;
  /** Its params. */
  params: Record<string, string>;
  /** Its tab (absent when the state has no tab shell). */
  tab?: string;
  /** How it is shown. */
  presentation?: Presentation;
  /** Whether the tab bar stays visible. */
  tabBarVisible: boolean;
  /** The routes under it, root first. */
  stack: string[];
  /** Session state → where closing it returns. */
  returnTo: Record<string, string>;
}

/**
 * Where a link goes for one session state. Every key the server sends; optional keys are absent when the server
 * leaves them out (empty or nil on its side). Keys a newer server adds are ignored when decoding.
 */
export interface Resolution {
  /** What kind of answer this is. */
  outcome: Outcome;
  /** The app whose manifest answered, when the URL belongs to a known app. */
  app?: string;
  /** The route id to show (the intercept screen, the unavailable screen, the not-found route, …). */
  route?: string;
  /** The route's params (path, query and share-link params, as strings). */
  params: Record<string, string>;
  /** The tab it lives in or is presented over; absent when the state has no tab shell. */
  tab?: string;
  /** How the route is shown. */
  presentation?: Presentation;
  /** Whether the tab bar stays visible. */
  tabBarVisible: boolean;
  /** The routes to put under it, root first (the route itself is not included). */
  stack: string[];
  /** Session state → the route that closing it returns to. */
  returnTo: Record<string, string>;
  /** Action name (`import`) → where the app goes after the action succeeds. */
  afterActions?: Record<string, RouteTarget>;
  /** For `intercept`: the screen shown instead, and the target to resume. */
  intercept?: Intercept;
  /** For share links: their id, status and expiry. */
  link?: LinkInfo;
  /** The message to show (`linkUnavailable`: "This link is no longer available."). */
  message?: string;
  /** The call-to-action route for the caller's state (`linkUnavailable`). */
  cta?: string;
  /** Why nothing matched (`notFound`). */
  problem?: Problem;
  /** For `updateRequired`: the version the route needs and the store page. */
  update?: Update;
  /** For `updateRequired`: where this (older) app goes instead; absent when it has none. */
  fallback?: Fallback;
}

/** Compile-time check that a key list names exactly the keys of `T`: `true` when it does. */
type ExactKeys<T, K extends readonly PropertyKey[]> = [K[number]] extends [keyof T]
  ? [keyof T] extends [K[number]]
    ? true
    : false
  : false;

/** The keys of {@link Resolution}, in the server's order (`docs/matching.md`); the drift tests compare them. */
export const RESOLUTION_KEYS = [
  'outcome',
  'app',
  'route',
  'params',
  'tab',
  'presentation',
  'tabBarVisible',
  'stack',
  'returnTo',
  'afterActions',
  'intercept',
  'link',
  'message',
  'cta',
  'problem',
  'update',
  'fallback',
] as const;
/** The keys of {@link Intercept}. */
export const INTERCEPT_KEYS = ['route', 'continuation', 'returnTo'] as const;
/** The keys of {@link Continuation}. */
export const CONTINUATION_KEYS = ['route', 'params', 'url'] as const;
/** The keys of {@link LinkInfo}. */
export const LINK_INFO_KEYS = ['id', 'status', 'expiresAt'] as const;
/** The keys of {@link Problem}. */
export const PROBLEM_KEYS = ['code', 'message'] as const;
/** The keys of {@link Update}. */
export const UPDATE_KEYS = ['requiredVersion', 'platform', 'storeURL'] as const;
/** The keys of {@link Fallback}. */
export const FALLBACK_KEYS = ['route', 'params', 'tab', 'presentation', 'tabBarVisible', 'stack', 'returnTo'] as const;
/** The keys of {@link RouteTarget}. */
export const ROUTE_TARGET_KEYS = ['route', 'params'] as const;

// The lists above must name exactly the interfaces' keys: a key added to one and not the other stops the build.
const keyListsMatchTypes: [
  ExactKeys<Resolution, typeof RESOLUTION_KEYS>,
  ExactKeys<Intercept, typeof INTERCEPT_KEYS>,
  ExactKeys<Continuation, typeof CONTINUATION_KEYS>,
  ExactKeys<LinkInfo, typeof LINK_INFO_KEYS>,
  ExactKeys<Problem, typeof PROBLEM_KEYS>,
  ExactKeys<Update, typeof UPDATE_KEYS>,
  ExactKeys<Fallback, typeof FALLBACK_KEYS>,
  ExactKeys<RouteTarget, typeof ROUTE_TARGET_KEYS>,
] = [true, true, true, true, true, true, true, true];
void keyListsMatchTypes;
