// The seed apps' links resolved through LinkdClient against a real `linkd serve`, each answer compared with the
// server's own JSON for the same request (the wire-drift check: every key kept, nothing dropped), its navigation plan
// and React Navigation actions checked against the resolution; app versions; the Handz walkthrough of docs/client.md.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  LinkdClient, navigationPlan, navigationActions, navigationState, isModalPresentation, OUTCOMES, PRESENTATIONS,
} from '../dist/index.js';
import { startDaemon } from '../test-support/daemon.mjs';
import { seedApps, sampleUUID } from '../test-support/seed.mjs';
import { expectWhole, keyPaths, documentedKeyPaths } from '../test-support/wire.mjs';

let daemon;
let client;
/** Every key path the server sent in this file's answers. */
const seen = new Set();

before(async () => {
  daemon = await startDaemon();
  client = new LinkdClient({ baseURL: daemon.baseURL });
});
after(async () => { await daemon?.stop(); });

/** The plan keeps the resolution's stack and target, in order, placed as the presentation says (the Swift tests'
 * `expectPlanFollows`); the reset action lays the same screens out. */
function expectPlanFollows(resolution, state, context) {
  const plan = navigationPlan(resolution, state);
  const placed = resolution.outcome === 'updateRequired' ? { ...resolution, ...(resolution.fallback ?? { route: undefined, stack: [] }) } : resolution;
  const screen = (route) => ({ route, params: placed.params ?? {} });
  const stack = (placed.stack ?? []).map(screen);
  const target = placed.route === undefined ? undefined : screen(placed.route);
  assert.equal(plan.tab, placed.tab, context);
  assert.equal(plan.closeReturnsTo, (placed.returnTo ?? {})[state], context);
  assert.deepEqual(plan.target, target, context);
  const laidOut = [plan.root, ...plan.pushed].filter(Boolean);
  switch (plan.step) {
    case 'push':
      assert.deepEqual(laidOut, stack.length === 0 ? [target] : [...stack, target], `push: the stack then the target, ${context}`);
      assert.equal(plan.presented, undefined, context);
      break;
    case 'root':
      assert.deepEqual(plan.root, target, context);
      assert.deepEqual(plan.pushed, [], context);
      break;
    case 'present':
      assert.ok(isModalPresentation(placed.presentation), context);
      assert.equal(plan.presentation, placed.presentation, context);
      assert.deepEqual(laidOut, stack, `a modal goes over the whole stack, ${context}`);
      assert.deepEqual(plan.presented, target, context);
      break;
    case 'overlay':
      assert.deepEqual(laidOut, stack, context);
      assert.deepEqual(plan.presented, target, context);
      break;
    case 'none':
      assert.equal(placed.route, undefined, context);
      break;
    default:
      assert.fail(`step ${plan.step}, ${context}`);
  }
  if (resolution.outcome === 'intercept') {
    assert.deepEqual(plan.resumeAfterSignIn, resolution.intercept?.continuation, context);
    assert.equal(plan.interceptReturnsTo, resolution.intercept?.returnTo, context);
  }
  // React Navigation: one RESET whose leaves are the plan's screens in order, inside the tab when there is one.
  const actions = navigationActions(resolution, { state });
  if (plan.step === 'none') { assert.deepEqual(actions, [], context); return plan; }
  assert.equal(actions.length, 1, context);
  assert.equal(actions[0].type, 'RESET', context);
  const root = actions[0].payload;
  assert.equal(root.index, root.routes.length - 1, context);
  const names = (routes) => routes.map((r) => r.name);
  const modal = plan.presented ? [plan.presented.route] : [];
  if (plan.tab !== undefined) {
    assert.equal(root.routes[0].name, 'Tabs', context);
    const tab = root.routes[0].state.routes[0];
    assert.equal(tab.name, plan.tab, context);
    assert.deepEqual(names(tab.state?.routes ?? []), laidOut.map((s) => s.route), context);
    if (tab.state) assert.equal(tab.state.index, tab.state.routes.length - 1, context);
    assert.deepEqual(names(root.routes.slice(1)), modal, context);
  } else {
    assert.deepEqual(names(root.routes), [...laidOut.map((s) => s.route), ...modal], context);
  }
  return plan;
}

/** Resolves through the client and raw; the two must agree and the client's value must be the server's JSON whole. */
async function resolveBothWays(url, state, extra = {}, through = client, rawExtra = extra) {
  const context = `${url} as ${state}${rawExtra.appVersion ? ` (app ${rawExtra.appVersion})` : ''}`;
  const typed = await through.resolve(url, { state, ...extra });
  const raw = await daemon.rawResolve(url, state, rawExtra);
  assert.equal(raw.status, 200, `${context}: ${raw.text}`);
  for (const path of keyPaths(raw.json)) seen.add(path);
  expectWhole(typed, raw.json, context);
  assert.ok(OUTCOMES.includes(typed.outcome), `unknown outcome ${typed.outcome} for ${context}`);
  if (typed.presentation !== undefined) assert.ok(PRESENTATIONS.includes(typed.presentation), `unknown presentation for ${context}`);
  expectPlanFollows(typed, state, context);
  return typed;
}

test('every URL pattern of every seed app, on each host and scheme, in every state, and links that lead nowhere: the client keeps the server\'s JSON whole', async () => {
  const outcomes = {};
  for (const app of seedApps()) {
    for (const url of app.urls) {
      for (const state of app.states) {
        const resolution = await resolveBothWays(url, state);
        outcomes[resolution.outcome] = (outcomes[resolution.outcome] ?? 0) + 1;
        if (!url.includes('zz') && !url.includes('/s/')) assert.equal(resolution.app, app.app, url);
      }
    }
  }
  assert.deepEqual(Object.keys(outcomes).sort(), ['intercept', 'linkUnavailable', 'notFound', 'route'], JSON.stringify(outcomes));
  assert.ok(Object.values(outcomes).reduce((a, b) => a + b, 0) > 400, JSON.stringify(outcomes));
});

test('a state the app does not declare, and URLs the server refuses: notFound with the problem code', async () => {
  const cases = [
    ['https://links.handz.example/library', 'noSuchState', 'unknownState'],
    ['https://links.handz.example/tab//library', 'free', 'nonCanonicalPath'],
    ['https://user@links.handz.example/library', 'free', 'userinfoRefused'],
    ['https://links.handz.example:8443/library', 'free', 'portRefused'],
    ['https://nobody.example/x', 'free', 'unknownApp'],
    [`https://links.handz.example/${'a'.repeat(5000)}`, 'free', 'urlTooLong'],
    ['https://links.handz.example/%ZZ', 'free', 'malformedURL'],
  ];
  for (const [url, state, code] of cases) {
    const resolution = await resolveBothWays(url, state);
    assert.equal(resolution.outcome, 'notFound', url);
    assert.equal(resolution.problem?.code, code, `${url}: ${JSON.stringify(resolution.problem)}`);
  }
});

test('app versions: a route newer than the app is updateRequired with the store page and a fallback the app has', async () => {
  const inbox = `https://links.handz.example/inbox/${sampleUUID}`;
  const old = await resolveBothWays(inbox, 'free', { appVersion: '1.0', platform: 'ios' });
  assert.equal(old.outcome, 'updateRequired');
  assert.equal(old.route, 'Library/InboxItem');
  assert.deepEqual(old.update, { platform: 'ios', requiredVersion: '1.2', storeURL: 'https://apps.apple.com/app/id6470000001' });
  assert.equal(old.fallback?.route, 'Library/Home');
  const plan = navigationPlan(old, 'free');
  assert.equal(plan.target?.route, 'Library/Home', 'the plan shows the fallback');
  assert.deepEqual(plan.update, old.update);
  assert.deepEqual(navigationState(plan, { state: 'free' }), {
    index: 0,
    routes: [{ name: 'Tabs', state: { index: 0, routes: [{ name: 'library', state: { index: 1, routes: [
      { name: 'Tab/Library', params: {} }, { name: 'Library/Home', params: {} }] } }] } }],
  });
  // The client's own appVersion is sent with every resolution; a call's overrides it.
  const versioned = new LinkdClient({ baseURL: daemon.baseURL, appVersion: '1.0', platform: 'android' });
  const android = await resolveBothWays(inbox, 'pro', {}, versioned, { appVersion: '1.0', platform: 'android' });
  assert.equal(android.outcome, 'updateRequired');
  assert.equal(android.update?.requiredVersion, '1.3');
  assert.equal((await versioned.resolve(inbox, { state: 'pro', appVersion: '1.3' })).outcome, 'route');
  // Every seed URL as an old app, in one state of each app: still the server's JSON whole.
  let updates = 0;
  for (const app of seedApps()) {
    for (const url of app.urls) {
      const resolution = await resolveBothWays(url, app.states[app.states.length - 1], { appVersion: '1.0', platform: 'ios' });
      if (resolution.outcome === 'updateRequired') updates += 1;
    }
  }
  assert.ok(updates >= 3, `${updates} updateRequired answers`);
});

test('the Handz walkthrough (docs/client.md): a shared flow signed out and signed in, revoked, and sign-in resumed', async () => {
  const key = await daemon.clientKey('handz');
  const sharer = new LinkdClient({ baseURL: daemon.baseURL, apiKey: key });
  const flowId = '6f1c2a8e-1d2b-4c55-9a7e-1c2d3e4f5a6b';
  const link = await sharer.createShareLink({ params: { flowId }, owner: 'u1', title: 'Guard pass flow' });
  assert.match(link.url, /^https:\/\/links\.handz\.example\/s\//);

  const signedOut = navigationPlan(await resolveBothWays(link.url, 'signedOut'), 'signedOut');
  assert.equal(signedOut.outcome, 'route');
  assert.equal(signedOut.tab, undefined);
  assert.equal(signedOut.tabBarVisible, false);
  assert.deepEqual(signedOut.root, { route: 'Auth/WelcomeGate', params: { flowId } });
  assert.deepEqual(signedOut.pushed, [{ route: 'ShareLink/FlowView', params: { flowId } }]);
  assert.equal(signedOut.step, 'push');
  assert.equal(signedOut.closeReturnsTo, 'Auth/WelcomeGate');
  assert.deepEqual(signedOut.afterActions.import, { route: 'Library/FlowDetail', params: { flowId } });

  const free = await resolveBothWays(link.url, 'free');
  const freePlan = navigationPlan(free, 'free');
  assert.equal(freePlan.tab, 'library');
  assert.equal(freePlan.tabBarVisible, true);
  assert.equal(freePlan.root?.route, 'Tab/Library');
  assert.deepEqual(freePlan.pushed.at(-1), { route: 'ShareLink/FlowView', params: { flowId } });
  assert.equal(freePlan.closeReturnsTo, 'Tab/Library');
  assert.deepEqual(navigationActions(free, { state: 'free', tabsScreen: 'Main', tabScreenName: (t) => `${t}Tab` }), [{
    type: 'RESET',
    payload: { index: 0, routes: [{ name: 'Main', state: { index: 0, routes: [{ name: 'libraryTab', state: {
      index: freePlan.pushed.length, routes: [freePlan.root, ...freePlan.pushed].map((s) => ({ name: s.route, params: { flowId } })),
    } }] } }] },
  }]);

  await sharer.revokeShareLink(link.id);
  for (const [state, cta] of [['signedOut', 'Auth/WelcomeGate'], ['free', 'Tab/Library']]) {
    const plan = navigationPlan(await resolveBothWays(link.url, state), state);
    assert.equal(plan.outcome, 'linkUnavailable');
    assert.equal(plan.target?.route, 'ShareLink/Unavailable');
    assert.equal(plan.message, 'This link is no longer available.');
    assert.equal(plan.callToAction, cta);
  }

  // A flow's own link, signed out: intercepted by the Welcome Gate, resumed after sign-in in the Library tab.
  const intercepted = await resolveBothWays(`https://links.handz.example/flows/${flowId}`, 'signedOut');
  const plan = navigationPlan(intercepted, 'signedOut');
  assert.equal(plan.outcome, 'intercept');
  assert.equal(plan.target?.route, 'Auth/WelcomeGate');
  assert.equal(plan.resumeAfterSignIn?.route, 'Library/FlowDetail');
  assert.deepEqual(plan.resumeAfterSignIn?.params, { flowId });
  const resumed = await client.resume(plan.resumeAfterSignIn, 'free');
  assert.equal(resumed.outcome, 'route');
  assert.equal(resumed.route, 'Library/FlowDetail');
  assert.deepEqual(resumed.stack, ['Tab/Library', 'Library/Home']);

  // COIN's Canvas: full screen over Recents, the tab bar hidden; a modal presentation on top of the tabs.
  const canvas = await resolveBothWays('coinapp://coin/123', 'signedIn');
  const canvasPlan = navigationPlan(canvas, 'signedIn');
  assert.equal(canvasPlan.step, 'present');
  assert.equal(canvasPlan.presentation, 'fullScreen');
  assert.equal(canvasPlan.tabBarVisible, false);
  const [reset] = navigationActions(canvas, { state: 'signedIn' });
  assert.deepEqual(reset.payload.routes.map((r) => r.name), ['Tabs', 'Canvas']);
  assert.deepEqual(reset.payload.routes[1].params, { coinId: '123' });
});

test('the server sent every key the Resolution schema documents, and the client kept them (with the tests above)', () => {
  const documented = documentedKeyPaths('Resolution');
  const missing = [...documented].filter((p) => !seen.has(p)).sort();
  const undocumented = [...seen].filter((p) => !documented.has(p)).sort();
  assert.deepEqual(undocumented, [], 'the server sends keys docs/openapi.yaml does not document');
  assert.deepEqual(missing, [], 'keys no answer of these tests carried: the fully populated Resolution was not reached');
});
