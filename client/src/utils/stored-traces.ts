// Traces handed from one page to another in this browser (a grade's failing run to the replay
// page, opened in a new tab): kept in localStorage under a short key, the few newest only.
const PREFIX = 'election-lab:trace:';
const KEEP = 5;

/** Stores `text`; returns the key the replay page takes as `?stored=KEY` (null when storage refuses it). */
export function storeTrace(text: string, storage: Storage = localStorage): string | null {
  const key = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  const keys: string[] = [];
  for (let i = 0; i < storage.length; i++) {
    const k = storage.key(i);
    if (k?.startsWith(PREFIX)) keys.push(k);
  }
  keys.sort();
  for (const old of keys.slice(0, Math.max(0, keys.length - (KEEP - 1)))) storage.removeItem(old);
  try {
    storage.setItem(PREFIX + key, text);
    return key;
  } catch {
    return null;
  }
}

export function storedTrace(key: string, storage: Storage = localStorage): string | null {
  return /^[a-z0-9]{1,32}$/.test(key) ? storage.getItem(PREFIX + key) : null;
}
