// The navigation helpers on hand-made resolutions: the plan's step per presentation, and the React Navigation
// actions (a RESET of the root stack: the tab with its stack, a modal on top; none when there is nothing to show).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { navigationPlan, navigationActions, navigationState, reactNavigationPresentation } from '../dist/index.js';

const base = { params: { id: '7' }, tabBarVisible: true, returnTo: { free: 'Tab/Library' } };

test('a sheet over a tab\'s stack: presented on the root stack over the tab navigator', () => {
  const resolution = { ...base, outcome: 'route', route: 'Tasks/QuickAdd', tab: 'tasks', presentation: 'sheet.medium', stack: ['Tasks/Home', 'Tasks/List'] };
  const plan = navigationPlan(resolution, 'free');
  assert.equal(plan.step, 'present');
  assert.equal(plan.presentation, 'sheet.medium');
  assert.deepEqual(plan.presented, { route: 'Tasks/QuickAdd', params: { id: '7' } });
  assert.equal(plan.closeReturnsTo, 'Tab/Library');
  const options = { state: 'free', tabsScreen: 'Main', tabScreenName: (tab) => `${tab}Stack`, screenName: (route) => route.replace('/', '.') };
  assert.deepEqual(navigationActions(resolution, options), [{
    type: 'RESET',
    payload: { index: 1, routes: [
      { name: 'Main', state: { index: 0, routes: [{ name: 'tasksStack', state: { index: 1, routes: [
        { name: 'Tasks.Home', params: { id: '7' } }, { name: 'Tasks.List', params: { id: '7' } }] } }] } },
      { name: 'Tasks.QuickAdd', params: { id: '7' } },
    ] },
  }]);
  assert.equal(reactNavigationPresentation('sheet.medium'), 'formSheet');
  assert.equal(reactNavigationPresentation('sheet.large'), 'modal');
  assert.equal(reactNavigationPresentation('fullScreen'), 'fullScreenModal');
  assert.equal(reactNavigationPresentation('alert'), 'transparentModal');
  assert.equal(reactNavigationPresentation('push'), 'card');
  assert.equal(reactNavigationPresentation('popover'), 'modal');
});

test('a tab root, a push without a stack, a state without tabs', () => {
  const root = navigationPlan({ ...base, outcome: 'route', route: 'Tab/Library', tab: 'library', presentation: 'root', stack: [] }, 'free');
  assert.equal(root.step, 'root');
  assert.deepEqual(root.root, { route: 'Tab/Library', params: { id: '7' } });
  assert.deepEqual(root.pushed, []);
  const lone = { ...base, outcome: 'route', route: 'Welcome', presentation: 'push', stack: [], tabBarVisible: false };
  const plan = navigationPlan(lone, 'signedOut');
  assert.equal(plan.step, 'push');
  assert.deepEqual(plan.root, { route: 'Welcome', params: { id: '7' } });
  assert.deepEqual(navigationState(plan, { state: 'signedOut' }), { index: 0, routes: [{ name: 'Welcome', params: { id: '7' } }] });
});

test('nothing to show: no route (notFound without a not-found screen), updateRequired without a fallback', () => {
  const notFound = { outcome: 'notFound', params: {}, tabBarVisible: false, stack: [], returnTo: {}, problem: { code: 'noMatch', message: 'no route' } };
  assert.equal(navigationPlan(notFound, 'free').step, 'none');
  assert.deepEqual(navigationPlan(notFound, 'free').problem, notFound.problem);
  assert.deepEqual(navigationActions(notFound, { state: 'free' }), []);
  const update = { ...base, outcome: 'updateRequired', route: 'Library/Inbox', tab: 'library', presentation: 'push', stack: [], update: { requiredVersion: '1.2' } };
  const plan = navigationPlan(update, 'free');
  assert.equal(plan.step, 'none');
  assert.deepEqual(plan.update, { requiredVersion: '1.2' });
  assert.deepEqual(navigationActions(update, { state: 'free' }), []);
});
