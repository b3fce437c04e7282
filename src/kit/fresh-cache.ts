// A cache of loaded values, each good for `ttlMs` from the moment its load began — the bound on
// how stale a value may be when an invalidation is lost. Concurrent callers share one load. Under
// steady traffic nobody waits for a reload: a call in the last `aheadMs` of a value's life gets the
// value (still within its bound) and starts the next load in the background. Without that, every
// expiry made every request of that moment queue behind one load — the tail latency of the tool
// server's bearer check and tool snapshot (docs/decisions.md "Performance").
//
// `delete` and `clear` (invalidations) also void loads in flight: a load that began before an
// invalidation never lands in the cache after it.

export interface FreshCache<V> {
  get(key: string): Promise<V>;
  delete(key: string): void;
  clear(): void;
}

export interface FreshCacheOptions<V> {
  ttlMs: number;
  /** How long before expiry a call starts the next load in the background. */
  aheadMs: number;
  maxEntries: number;
  /** The clock, in ms (deps.now, so tests move it). */
  now: () => number;
  load: (key: string) => Promise<V>;
}

interface Entry<V> {
  value: Promise<V>;
  until: number;
  refreshing: boolean;
}

export function createFreshCache<V>(options: FreshCacheOptions<V>): FreshCache<V> {
  const entries = new Map<string, Entry<V>>();
  // Bumped by every invalidation: a load started under an older generation is not kept.
  let generation = 0;

  function start(key: string, at: number): Entry<V> {
    const entry: Entry<V> = { value: options.load(key), until: at + options.ttlMs, refreshing: false };
    entry.value.catch(() => entries.get(key) === entry && entries.delete(key));
    return entry;
  }

  function refreshAhead(key: string, current: Entry<V>, at: number): void {
    current.refreshing = true;
    const began = generation;
    const next = start(key, at);
    next.value.then(
      () => {
        if (began === generation && entries.get(key) === current) entries.set(key, next);
      },
      () => {
        current.refreshing = false;
      },
    );
  }

  return {
    get(key) {
      const at = options.now();
      const hit = entries.get(key);
      if (hit && hit.until > at) {
        if (!hit.refreshing && at >= hit.until - options.aheadMs) refreshAhead(key, hit, at);
        return hit.value;
      }
      if (entries.size >= options.maxEntries) for (const [k, v] of entries) if (v.until <= at || entries.size >= options.maxEntries) entries.delete(k);
      const entry = start(key, at);
      entries.set(key, entry);
      return entry.value;
    },
    delete(key) {
      generation++;
      entries.delete(key);
    },
    clear() {
      generation++;
      entries.clear();
    },
  };
}
