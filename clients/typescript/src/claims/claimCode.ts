/**
 * One-time claim codes of deferred deep links (`docs/deferred-links.md`): 22 base64url characters (128 random bits),
 * made when a person without the app follows a link's store button. The app reads one once after install — on
 * Android from the Play Install Referrer, on iOS from what the person copied on the link's page — and trades it for
 * the link's resolution with `LinkdClient.claim`. (The Swift client's `ClaimCode`.)
 */

/** The name of the parameter that carries a code (`linkd_claim=CODE`), in a referrer or a claim link. */
export const CLAIM_REFERRER_PARAMETER = 'linkd_claim';
/** Characters in a code. */
export const CLAIM_CODE_LENGTH = 22;

const CODE_PATTERN = /^[A-Za-z0-9_-]{21}[AQgw]$/;

/**
 * Whether `text` (surrounding whitespace aside) is a claim code: 22 base64url characters whose last one is canonical
 * for 128 bits (`A`, `Q`, `g` or `w`).
 */
export function isClaimCode(text: string): boolean {
  return CODE_PATTERN.test(text.trim());
}

/** The code `text` spells (trimmed), or undefined. */
export function parseClaimCode(text: string): string | undefined {
  const trimmed = text.trim();
  return CODE_PATTERN.test(trimmed) ? trimmed : undefined;
}

/** Form decoding: `+` is a space, then percent-decoding; undefined for a malformed escape. */
function formDecoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/** The code in `name=value&…` text, from its `linkd_claim` parameter. */
function codeInQuery(text: string): string | undefined {
  for (const pair of text.split('&')) {
    const equals = pair.indexOf('=');
    if (equals < 0) continue;
    if (formDecoded(pair.slice(0, equals)) !== CLAIM_REFERRER_PARAMETER) continue;
    const value = formDecoded(pair.slice(equals + 1));
    return value === undefined ? undefined : parseClaimCode(value);
  }
  return undefined;
}

/**
 * The code in an Android install referrer (what `ReferrerDetails.getInstallReferrer()` returns, e.g. through
 * `react-native-play-install-referrer`): the value of `linkd_claim` among the referrer's `&`-separated parameters
 * (`utm_source=google-play&linkd_claim=…`), percent-decoded; also when the whole referrer arrives percent-encoded once
 * or twice more (`linkd_claim%3D…`). Undefined when it carries no well-formed code (an organic install).
 */
export function claimCodeFromInstallReferrer(referrer: string): string | undefined {
  let text = referrer.trim();
  for (let round = 0; round < 3; round += 1) {
    const code = codeInQuery(text);
    if (code !== undefined) return code;
    const decoded = formDecoded(text);
    if (decoded === undefined || decoded === text) return undefined;
    text = decoded;
  }
  return undefined;
}

/** The code a link carries: `linkd_claim` in its query or fragment, else its last path segment; or a bare code. */
function codeInLink(text: string): string | undefined {
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/.exec(text);
  if (match === null) return parseClaimCode(text);
  const [, , path = '', query, fragment] = match;
  if (query !== undefined) {
    const code = codeInQuery(query);
    if (code !== undefined) return code;
  }
  if (fragment !== undefined) {
    const code = codeInQuery(fragment);
    if (code !== undefined) return code;
  }
  const segments = path.replace(/^\/\/[^/]*/, '').split('/').filter((segment) => segment !== '');
  const last = segments[segments.length - 1] ?? '';
  return parseClaimCode(formDecoded(last) ?? last);
}

/**
 * The code in what a person pasted on first launch (iOS: the page of the link's App Store button offers the claim
 * link to copy, `https://links.example/s/<token>#linkd_claim=<code>`): a URL with `linkd_claim=CODE` in its query or
 * fragment or ending in `/CODE`, such a link inside other text, or the bare code. Undefined when there is none.
 */
export function claimCodeFromPasted(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed.length > 4096) return undefined;
  const bare = parseClaimCode(trimmed);
  if (bare !== undefined) return bare;
  for (const word of trimmed.split(/[\s"<>]+/)) {
    if (word === '') continue;
    const code = codeInLink(word);
    if (code !== undefined) return code;
  }
  return undefined;
}
