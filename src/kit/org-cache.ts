// A per-org cache of something built from an org's rows and kept current by a version counter
// (docs/decisions.md "Knowledge retrieval"): the knowledge index and the passage vectors. Every
// question reads the org's version (one row by its key) and asks for the value at that version;
// on a difference the value is brought up to date in place by its owner's `build`, which resolves
// to the version it now reflects (read before the rows it read, so a change committed during a
// build makes the next question's version differ). A build already running may have read the
// rows before this call's version: the call waits for it, then, if still behind, for one that
// starts after it (the first to start serves every caller waiting). Values are kept for the most
// recently asked orgs, bounded by what they weigh (characters, bytes): the org just asked is never
// the one dropped.
//
// Each kind of value is one `OrgCacheKind`; `OrgCaches` (built once per Deps by src/compose.ts)
// holds one cache per kind, made on first use, so the owner of a kind keeps its value's type
// to itself and no floor below it needs to name that type.

export interface OrgCacheKind<V> {
  /** What it holds, for logs and tests. */
  readonly name: string;
  /** Weight held across orgs before the least recently asked org's value is dropped. */
  readonly budget: number;
  /** A new, empty value for an org not held (built before its first use). */
  empty(): V;
  /** What a value weighs against `budget`, read after every call (values grow and shrink in place). */
  weight(value: V): number;
}

export interface OrgCache<V> {
  /**
   * The org's value at `version`: as held when it is already at that version, else after a build
   * that started after this call. `build` brings the value up to date in place and resolves to
   * the version it reflects; when it fails, every caller waiting on it gets its error and the next
   * call builds again.
   */
  get(orgId: string, version: number, build: (value: V) => Promise<number>): Promise<V>;
  /** Forgets the org's value; the next call starts from an empty one. */
  delete(orgId: string): void;
  /** The orgs held, least recently asked first. */
  orgs(): string[];
}

interface Held<V> {
  value: V;
  /** The version the value reflects; -1 until its first build. */
  version: number;
  building?: Promise<void>;
}

export function createOrgCache<V>(kind: OrgCacheKind<V>): OrgCache<V> {
  const held = new Map<string, Held<V>>();

  function evict(keep: string): void {
    let total = 0;
    for (const h of held.values()) total += kind.weight(h.value);
    for (const [id, h] of held) {
      if (total <= kind.budget || id === keep) break;
      held.delete(id);
      total -= kind.weight(h.value);
    }
  }

  return {
    async get(orgId, version, build) {
      let entry = held.get(orgId);
      if (entry) held.delete(orgId);
      else entry = { value: kind.empty(), version: -1 };
      held.set(orgId, entry); // most recently asked last
      if (entry.version !== version) {
        if (entry.building) await entry.building;
        if (entry.version !== version) {
          const e = entry;
          e.building ??= build(e.value)
            .then((reached) => {
              e.version = reached;
            })
            .finally(() => {
              e.building = undefined;
            });
          await e.building;
        }
      }
      evict(orgId);
      return entry.value;
    },
    delete(orgId) {
      held.delete(orgId);
    },
    orgs() {
      return [...held.keys()];
    },
  };
}

/** One cache per kind, made on first use: what `Deps` carries. */
export interface OrgCaches {
  of<V>(kind: OrgCacheKind<V>): OrgCache<V>;
}

export function createOrgCaches(): OrgCaches {
  // Keyed by the kind object itself, and written only below with the cache made for that very
  // kind: the value under a kind is always an `OrgCache` of that kind's value type, which is
  // what the one assertion below states (a map cannot carry a type per key).
  const made = new Map<object, unknown>();
  return {
    of<V>(kind: OrgCacheKind<V>): OrgCache<V> {
      let cache = made.get(kind) as OrgCache<V> | undefined;
      if (!cache) made.set(kind, (cache = createOrgCache(kind)));
      return cache;
    },
  };
}
