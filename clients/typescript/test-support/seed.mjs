// Test support: the seed apps' links (examples/*.yaml, read with PyYAML): every URL pattern of every route, its
// optional segments expanded, on each https host and custom scheme, with sample params of the right types; links that
// lead nowhere; an unknown share token; and each shareable route with params for a share link.
import { join } from 'node:path';
import { repoRoot, readYAML } from './daemon.mjs';

export const seedAppNames = ['handz', 'coin', 'ordentus', 'story'];
export const sampleUUID = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';

/** A sample value of a param type, as the Swift tests' `AppleLinkCandidates.sample`. */
export function sample(type = 'string') {
  return { uuid: sampleUUID, int: '42', slug: 'a-slug', string: 'abc' }[type] ?? 'abc';
}

/** The variants of a pattern with its optional segments (`seg?`) each present or not. */
function expand(pattern) {
  const segments = pattern.split('/').filter((s) => s !== '');
  let variants = [[]];
  for (const segment of segments) {
    const optional = segment.endsWith('?');
    const core = optional ? segment.slice(0, -1) : segment;
    variants = variants.flatMap((v) => (optional ? [v, [...v, core]] : [[...v, core]]));
  }
  return variants;
}

/** One segment filled with a sample; records the param's value in `params`. */
function fill(segment, params) {
  const param = /^:([A-Za-z_][A-Za-z0-9_]*)(?:\((\w+)\))?$/.exec(segment);
  if (param) {
    params[param[1]] = sample(param[2]);
    return params[param[1]];
  }
  if (segment.startsWith('*')) {
    params[segment.slice(1)] = 'a/b';
    return 'a/b';
  }
  return segment;
}

/** The seed apps: `{ app, states, urls, shareables: [{ route, params }] }`. */
export function seedApps() {
  return seedAppNames.map((name) => {
    const manifest = readYAML(join(repoRoot, 'examples', `${name}.yaml`));
    const hosts = manifest.hosts ?? [];
    const schemes = manifest.schemes ?? [];
    const urls = [];
    const shareables = [];
    for (const route of manifest.routes ?? []) {
      const query = Object.entries(route.query ?? {})
        .filter(([, spec]) => typeof spec === 'object' && spec.required)
        .map(([key, spec]) => `${key}=${sample(spec.type)}`)
        .sort()
        .join('&');
      const params = {};
      for (const [key, type] of Object.entries(route.params ?? {})) params[key] = sample(typeof type === 'string' ? type : type?.type);
      for (const pattern of route.patterns ?? []) {
        for (const variant of expand(pattern)) {
          const path = variant.map((segment) => fill(segment, params)).join('/');
          const suffix = query === '' ? '' : `?${query}`;
          for (const host of hosts) urls.push(`https://${host}/${path}${suffix}`);
          for (const scheme of schemes) urls.push(`${scheme}://${path}${suffix}`);
        }
      }
      if (route.shareable) shareables.push({ route: route.id, params: { ...params } });
    }
    for (const host of hosts) urls.push(`https://${host}/zz-not-a-route`);
    for (const scheme of schemes) urls.push(`${scheme}://zz/not/a/route`);
    for (const host of manifest.share?.hosts ?? []) urls.push(`https://${host}/s/AAAAAAAAAAAAAAAAAAAAAA`);
    return { app: manifest.app, states: manifest.states, urls, shareables };
  });
}
