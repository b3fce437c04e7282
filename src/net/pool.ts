// Keep-alive connections for the guard's pinned dials (src/net/guard.ts): which requests may use
// one, and how many there may be.
//
// The connections themselves are Bun's: `fetch` with `keepalive: true` parks a finished
// connection in its pool and hands it to a later request whose
//   - host as dialled — for us always the checked IP literal, never a name —,
//   - port,
//   - scheme (http and https have separate pools), and
//   - TLS configuration (interned by content; ours is `{ serverName }`, so the server name is part
//     of the key)
// are the same. test/net/pool.test.ts holds Bun to each of these (two names on one address over
// TLS never share a connection; a name re-resolving elsewhere dials the new address and the guard
// refuses a blocked one before any dial). Bun closes a parked connection after 5 minutes idle
// (fixed in its HTTP client) or when the server closes it first, and parks at most 64 per TLS
// configuration (one more finished connection is closed instead).
//
// What Bun does not bound, this ledger does: a request gets `keepalive: true` only while its key
// has fewer than `perKey` connections and all keys together fewer than `total`; otherwise it goes
// over a connection of its own that closes after the response (as every request did before
// pooling). The ledger counts connections from above: one is counted when a pooled request starts
// while every counted connection of its key is busy (so Bun would open one), and uncounted only
// when it surely closed (the request failed or its body errored) or when its key has been idle
// longer than Bun keeps a parked connection. A count that is too high only makes a request go
// unpooled, never lets more connections exist than the bound.
export interface PoolLimits {
  /** Connections per key (checked address, port, scheme, TLS server name). */
  perKey: number;
  /** Connections over all keys. */
  total: number;
  /** How long a parked connection may live idle: Bun's 5 minutes, plus a margin. */
  idleMs: number;
}

export const POOL_LIMITS: PoolLimits = { perKey: 32, total: 256, idleMs: 5 * 60_000 + 10_000 };

export interface PoolKey {
  scheme: "http:" | "https:";
  /** The checked address the request dials (an IP literal, IPv6 without brackets). */
  address: string;
  port: number;
  /** The TLS server name (https only; plain http connections carry no name). */
  serverName: string;
}

/** One request's use of the pool; `end` is called once, when its response is done with. */
export interface Lease {
  /** Whether the request may use (and leave behind) a keep-alive connection. */
  readonly keepalive: boolean;
  /** `closed`: the connection surely closed (the request failed, the body errored). */
  end(closed: boolean): void;
}

interface KeyState {
  /** Pooled requests in flight (each holds one connection). */
  busy: number;
  /** Connections that may exist for the key, busy or parked: never fewer than really exist. */
  connections: number;
  /** When `busy` last dropped to 0. */
  idleSince: number;
}

const UNPOOLED: Lease = { keepalive: false, end() {} };

export class ConnectionPool {
  private readonly keys = new Map<string, KeyState>();
  private connections = 0;

  constructor(
    readonly limits: PoolLimits = POOL_LIMITS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The ledger key: plain http connections are Bun's by address and port alone. */
  static keyOf(key: PoolKey): string {
    return key.scheme === "https:" ? `https|${key.address}|${key.port}|${key.serverName}` : `http|${key.address}|${key.port}`;
  }

  lease(key: PoolKey): Lease {
    const id = ConnectionPool.keyOf(key);
    let state = this.keys.get(id);
    if (state) this.expire(id, state);
    state = this.keys.get(id);
    if (!state || state.busy >= state.connections) {
      // Every counted connection is busy: Bun would open another one.
      if ((state?.connections ?? 0) >= this.limits.perKey) return UNPOOLED;
      if (this.connections >= this.limits.total) {
        this.sweep();
        if (this.connections >= this.limits.total) return UNPOOLED;
      }
      if (!state) {
        state = { busy: 0, connections: 0, idleSince: this.now() };
        this.keys.set(id, state);
      }
      state.connections++;
      this.connections++;
    }
    const held = state;
    held.busy++;
    let ended = false;
    return {
      keepalive: true,
      end: (closed) => {
        if (ended) return;
        ended = true;
        held.busy--;
        if (held.busy === 0) held.idleSince = this.now();
        if (closed && held.connections > 0) {
          held.connections--;
          this.connections--;
        }
        if (held.busy === 0 && held.connections === 0 && this.keys.get(id) === held) this.keys.delete(id);
      },
    };
  }

  /** Counted connections and pooled requests in flight, per ledger key (tests and diagnostics). */
  snapshot(): { connections: number; keys: Record<string, { busy: number; connections: number }> } {
    for (const [id, state] of [...this.keys]) this.expire(id, state);
    return { connections: this.connections, keys: Object.fromEntries([...this.keys].map(([id, s]) => [id, { busy: s.busy, connections: s.connections }])) };
  }

  /** A key idle longer than Bun keeps a parked connection has none left. */
  private expire(id: string, state: KeyState): void {
    if (state.busy > 0 || this.now() - state.idleSince < this.limits.idleMs) return;
    this.connections -= state.connections;
    this.keys.delete(id);
  }

  private sweep(): void {
    for (const [id, state] of [...this.keys]) this.expire(id, state);
  }
}

/** The process's ledger (Bun's pool is per process too). */
export const sharedPool = new ConnectionPool();
