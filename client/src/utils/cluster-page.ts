// Where the browser goes when its lab lives on another relay of a cluster (docs/SCALING.md): the
// same page (path, query, fragment) on that relay's origin, which serves it or redirects to the
// lab's owner. Pure, so the rules are tested without a browser.

export interface PageLocation {
  origin: string;
  pathname: string;
  search: string;
  hash: string;
}

/** The current page on another relay; null when that is where we already are or the address is bad. */
export function pageAt(relayUrl: string, here: PageLocation): string | null {
  let target: URL;
  try {
    target = new URL(here.pathname + here.search + here.hash, relayUrl);
  } catch {
    return null;
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return null;
  return target.origin === here.origin ? null : target.toString();
}

/** The relay to try when ours stays unreachable: the first live one that is not this page's. */
export function fallbackRelay(
  relays: readonly { url: string }[],
  here: PageLocation,
): string | null {
  for (const r of relays) if (pageAt(r.url, here)) return r.url;
  return null;
}
