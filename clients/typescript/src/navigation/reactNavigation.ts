/**
 * A {@link Resolution} as React Navigation actions — plain data shaped like `CommonActions.reset(...)`, so that
 * `navigationRef.dispatch(action)` applies it; nothing here imports React Navigation.
 *
 * The navigator layout it assumes (the common one): a root stack navigator whose screens are the tab navigator
 * (`tabsScreen`, default `Tabs`), the screens of states without the tab shell (signed out) and the modal screens;
 * each tab of the tab navigator a stack navigator (its screen named after the tab id) whose first screen is the tab's
 * root route. Route ids of the manifest are screen names unless `screenName` maps them.
 */
import type { Presentation, Resolution } from '../wire/resolution.js';
import { navigationPlan, type NavigationPlan, type Screen } from './navigationPlan.js';

/** A route of a (partial) React Navigation state: a screen name, its params, and a nested navigator's state. */
export interface NavigationRoute {
  /** The screen name. */
  name: string;
  /** Its params. */
  params?: Record<string, unknown>;
  /** The state of the navigator nested in this screen. */
  state?: PartialNavigationState;
}

/** A partial React Navigation state (the navigator fills in keys and the rest, as with `initialState`). */
export interface PartialNavigationState {
  /** The focused route's index. */
  index: number;
  /** The routes, bottom first. */
  routes: NavigationRoute[];
}

/** `CommonActions.reset(state)`: replaces the navigator's state. */
export interface ResetAction {
  /** React Navigation's action type. */
  type: 'RESET';
  /** The new state. */
  payload: PartialNavigationState;
}

/** The actions this helper makes (a union, so that later kinds can join it). */
export type NavigationAction = ResetAction;

/** How the app's navigators are named. */
export interface ReactNavigationOptions {
  /** The session state the resolution was asked for (picks `returnTo`). */
  state: string;
  /** The root stack's screen that holds the tab navigator. Default `Tabs`. */
  tabsScreen?: string;
  /** A tab id of the manifest → its screen name in the tab navigator. Default: the tab id. */
  tabScreenName?: (tab: string) => string;
  /** A route id of the manifest → its screen name. Default: the route id. */
  screenName?: (route: string) => string;
}

/**
 * React Navigation's `presentation` screen option for a manifest presentation: `sheet.medium` → `formSheet`,
 * `sheet.large` → `modal`, `fullScreen` → `fullScreenModal`, `alert`, `actionSheet`, `system`, `overlay` →
 * `transparentModal`, `push`/`root` → `card`. Set it on the modal screen's options (it is not part of an action).
 */
export function reactNavigationPresentation(presentation: Presentation): 'card' | 'modal' | 'formSheet' | 'fullScreenModal' | 'transparentModal' {
  switch (presentation) {
    case 'root':
    case 'push':
      return 'card';
    case 'sheet.medium':
      return 'formSheet';
    case 'sheet.large':
      return 'modal';
    case 'fullScreen':
      return 'fullScreenModal';
    case 'alert':
    case 'actionSheet':
    case 'system':
    case 'overlay':
      return 'transparentModal';
    default:
      return 'modal';
  }
}

/**
 * The root navigator's state for a plan: with a tab, the tab navigator on its tab, whose stack is the plan's root
 * and pushed screens; without one, those screens on the root stack; the presented screen (modal or overlay) on top
 * of the root stack. Undefined when the plan shows nothing (`step` `none`: stay where you are).
 */
export function navigationState(plan: NavigationPlan, options: ReactNavigationOptions): PartialNavigationState | undefined {
  if (plan.step === 'none' || plan.target === undefined) return undefined;
  const name = options.screenName ?? ((route: string) => route);
  const route = (screen: Screen): NavigationRoute => ({ name: name(screen.route), params: { ...screen.params } });
  const stack = [plan.root, ...plan.pushed].filter((screen): screen is Screen => screen !== undefined).map(route);
  let routes: NavigationRoute[];
  if (plan.tab !== undefined) {
    const tabName = (options.tabScreenName ?? ((tab: string) => tab))(plan.tab);
    const tabRoute: NavigationRoute = { name: tabName };
    if (stack.length > 0) tabRoute.state = { index: stack.length - 1, routes: stack };
    routes = [{ name: options.tabsScreen ?? 'Tabs', state: { index: 0, routes: [tabRoute] } }];
  } else {
    routes = stack;
  }
  if (plan.presented !== undefined) routes = [...routes, route(plan.presented)];
  if (routes.length === 0) return undefined;
  return { index: routes.length - 1, routes };
}

/**
 * The React Navigation actions that show `resolution` for `options.state`: one `RESET` of the root navigator (the
 * tab, its stack as the server lays it out, a modal on top), or none when there is nothing to show. For
 * `updateRequired` it shows the fallback (offer `plan.update` yourself); for `intercept`, keep
 * `plan.resumeAfterSignIn` — {@link navigationPlan} gives both.
 *
 * ```ts
 * for (const action of navigationActions(resolution, { state })) navigationRef.dispatch(action);
 * ```
 */
export function navigationActions(resolution: Resolution, options: ReactNavigationOptions): NavigationAction[] {
  const state = navigationState(navigationPlan(resolution, options.state), options);
  return state === undefined ? [] : [{ type: 'RESET', payload: state }];
}
