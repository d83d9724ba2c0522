import {
  isModalPresentation,
  type Continuation,
  type Outcome,
  type Presentation,
  type Problem,
  type Resolution,
  type Update,
} from '../wire/resolution.js';

/** One screen: a route id of the app's manifest and its params. */
export interface Screen {
  /** The route id (`ShareLink/FlowView`), which the app maps to its screens. */
  route: string;
  /** Its params. The stack's screens carry the link's params too: a parent takes those it needs. */
  params: Record<string, string>;
}

/**
 * How the target is shown:
 * - `root`: the target is the root itself (a tab's root, the state's root screen): select it, push nothing;
 * - `push`: pushed on the stack, after `pushed`'s other screens (it is `pushed`'s last);
 * - `present`: presented modally over the stack, as `presentation` says (`sheet.medium`, `fullScreen`, …);
 * - `overlay`: drawn over the stack without being modal;
 * - `none`: nothing to show (the URL led nowhere and the app has no not-found route): stay put.
 */
export type NavigationStep = 'root' | 'push' | 'present' | 'overlay' | 'none';

/**
 * What an app does with a {@link Resolution} for the caller's session state: the tab to select, the screens of its
 * stack, what to present over them and how, whether the tab bar shows, where closing goes, the link to resume after
 * sign-in. Only reads the resolution: every decision is the server's, from the app's manifest. (The Swift client's
 * `NavigationPlan`.)
 */
export interface NavigationPlan {
  /** The resolution's outcome. */
  outcome: Outcome;
  /** The session state the plan is for. */
  state: string;
  /** The tab to select; undefined when the state has no tab shell (signed out). */
  tab: string | undefined;
  /** The bottom of the stack: the tab's root, the state's root screen, or the top of the parent chain; the target
   * itself when it is a root. Undefined when there is no stack and nothing to push. */
  root: Screen | undefined;
  /** The screens to push on `root`, in order (the target last when `step` is `push`). */
  pushed: Screen[];
  /** The screen the link opens: the target, the intercept screen, the unavailable or not-found screen. */
  target: Screen | undefined;
  /** How `target` is shown. */
  step: NavigationStep;
  /** For `present` (and `overlay`): the presentation (`sheet.large`, `fullScreen`, `alert`, …). */
  presentation: Presentation | undefined;
  /** The screen presented over the stack (`present`, `overlay`), if any. */
  presented: Screen | undefined;
  /** Whether the tab bar shows while `target` does. */
  tabBarVisible: boolean;
  /** Where closing `target` goes for `state`. */
  closeReturnsTo: string | undefined;
  /** For an intercept: where dismissing the intercept screen goes. */
  interceptReturnsTo: string | undefined;
  /** For an intercept that keeps its target: the link to resume once the state allows it (`LinkdClient.resume`). */
  resumeAfterSignIn: Continuation | undefined;
  /** Action name (`import`) → the screen to go to after it succeeds. */
  afterActions: Record<string, Screen>;
  /** For `linkUnavailable`: the message to show. */
  message: string | undefined;
  /** For `linkUnavailable`: the call-to-action route for `state`. */
  callToAction: string | undefined;
  /** For `notFound`: why nothing matched. */
  problem: Problem | undefined;
  /** For `updateRequired`: the version needed and the store page; the plan's screens are then the fallback's. */
  update: Update | undefined;
}

/** An `updateRequired` resolution's fallback placed as a resolution of its own (nothing to show without one). */
function fallbackPlacement(resolution: Resolution): Resolution {
  const fallback = resolution.fallback;
  if (fallback === undefined) {
    return { outcome: resolution.outcome, app: resolution.app, params: {}, tabBarVisible: false, stack: [], returnTo: {} };
  }
  return {
    outcome: resolution.outcome,
    app: resolution.app,
    route: fallback.route,
    params: fallback.params,
    tab: fallback.tab,
    presentation: fallback.presentation,
    tabBarVisible: fallback.tabBarVisible,
    stack: fallback.stack,
    returnTo: fallback.returnTo,
  };
}

/** The plan of `resolution` for a caller in `state` (the state the resolution was asked for). */
export function navigationPlan(original: Resolution, state: string): NavigationPlan {
  const resolution = original.outcome === 'updateRequired' ? fallbackPlacement(original) : original;
  const screen = (route: string): Screen => ({ route, params: { ...resolution.params } });
  const target = resolution.route === undefined ? undefined : screen(resolution.route);
  const stack = resolution.stack.map(screen);
  const presentation = resolution.presentation ?? 'push';
  let step: NavigationStep;
  if (target === undefined) step = 'none';
  else if (presentation === 'root') step = 'root';
  else if (presentation === 'push') step = 'push';
  else if (presentation === 'overlay') step = 'overlay';
  else step = isModalPresentation(presentation) ? 'present' : 'push';
  let root: Screen | undefined;
  let pushed: Screen[];
  switch (step) {
    case 'root':
      root = target;
      pushed = [];
      break;
    case 'push':
      // With no stack the target is the bottom of it.
      root = stack[0] ?? target;
      pushed = stack.length === 0 ? [] : [...stack.slice(1), ...(target ? [target] : [])];
      break;
    default:
      root = stack[0];
      pushed = stack.slice(1);
  }
  const afterActions: Record<string, Screen> = {};
  for (const [name, action] of Object.entries(resolution.afterActions ?? {})) {
    afterActions[name] = { route: action.route, params: { ...action.params } };
  }
  return {
    outcome: original.outcome,
    state,
    tab: resolution.tab,
    root,
    pushed,
    target,
    step,
    presentation: step === 'present' || step === 'overlay' ? presentation : undefined,
    presented: step === 'present' || step === 'overlay' ? target : undefined,
    tabBarVisible: resolution.tabBarVisible,
    closeReturnsTo: resolution.returnTo[state],
    interceptReturnsTo: resolution.intercept?.returnTo,
    resumeAfterSignIn: resolution.intercept?.continuation,
    afterActions,
    message: original.message,
    callToAction: original.cta,
    problem: original.problem,
    update: original.update,
  };
}
