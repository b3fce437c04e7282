// What a live conversation says that is never stored (README "Live conversation", "Typing and
// presence"; docs/decisions.md "Joining an AI conversation"): whether the customer's widget has its
// event stream open (presence), and who is typing. Nothing here touches a table: a signal goes to
// the streams of this process at once, and to the other instances as a NOTIFY on SIGNAL_CHANNEL
// (PostgreSQL; on PGlite the one process is all there is). A signal that finds no stream, or a full
// one, is dropped — it says something about now, and now has passed by the time anyone could read it.
//
// Presence across instances: an instance says `here` when its first customer stream of a
// conversation opens and `gone` when its last closes; a member's stream, when it opens, asks, and
// every instance holding that customer answers `here`. So a member's page learns of every instance
// that has the customer. An instance that dies without saying `gone` (a crash, a cut network) leaves
// the customer shown as present until the member's stream reconnects (it asks afresh then).
import type { Logger } from "../log.ts";
import type { LiveListener, LiveSide } from "../ports/live.ts";

export const SIGNAL_CHANNEL = "svc_live_signals";
/** One typing signal per conversation, side and state in this many milliseconds; the rest are dropped. */
export const TYPING_INTERVAL_MS = 1000;
/** The longest typist's name a signal carries (a NOTIFY payload holds under 8000 bytes). */
export const TYPIST_NAME_MAX = 100;
/** Past this many remembered typing signals, the old ones are forgotten. */
const RECENT_MAX = 10_000;

type Wire = { i: string; k: string; t: "here" | "gone" | "ask" } | { i: string; k: string; t: "typing"; f: LiveSide; d: { typing: boolean; name?: string } };

interface Watch {
  /** Other instances that hold this conversation's customer. */
  remote: Set<string>;
  /** What the member's client was last told. */
  online: boolean | null;
}

export interface SignalOptions {
  now: () => Date;
  log: Logger;
  /** Sends a NOTIFY on SIGNAL_CHANNEL (absent: this process only). */
  notify?: (payload: string) => Promise<void>;
  /** The open streams of a key in this process. */
  listenersOf(key: string): Iterable<LiveListener>;
}

export function createSignals(options: SignalOptions) {
  const instance = crypto.randomUUID();
  const customers = new Map<string, number>();
  const watchers = new Map<string, Map<LiveListener, Watch>>();
  const recent = new Map<string, number>();

  const send = (wire: Record<string, unknown>) => {
    if (!options.notify) return;
    options.notify(JSON.stringify({ i: instance, ...wire })).catch((error) => options.log.debug("live signal not sent", { error: String(error) }));
  };
  const show = (key: string, listener: LiveListener, watch: Watch) => {
    const online = (customers.get(key) ?? 0) > 0 || watch.remote.size > 0;
    if (online === watch.online) return;
    watch.online = online;
    listener.signal?.("presence", { online });
  };
  const refresh = (key: string) => {
    for (const [listener, watch] of watchers.get(key) ?? []) show(key, listener, watch);
  };
  const deliver = (key: string, from: LiveSide, data: { typing: boolean; name?: string }) => {
    for (const listener of options.listenersOf(key)) if (listener.side && listener.side !== from) listener.signal?.("typing", data);
  };
  const remote = (key: string, from: string, here: boolean) => {
    for (const [listener, watch] of watchers.get(key) ?? []) {
      if (here) watch.remote.add(from);
      else watch.remote.delete(from);
      show(key, listener, watch);
    }
  };

  return {
    added(key: string, listener: LiveListener) {
      if (listener.side === "customer") {
        const n = (customers.get(key) ?? 0) + 1;
        customers.set(key, n);
        if (n === 1) {
          refresh(key);
          send({ k: key, t: "here" });
        }
      } else if (listener.side === "member") {
        let set = watchers.get(key);
        if (!set) watchers.set(key, (set = new Map()));
        const watch: Watch = { remote: new Set(), online: null };
        set.set(listener, watch);
        show(key, listener, watch);
        send({ k: key, t: "ask" });
      }
    },
    removed(key: string, listener: LiveListener) {
      if (listener.side === "customer") {
        const n = (customers.get(key) ?? 1) - 1;
        if (n > 0) customers.set(key, n);
        else {
          customers.delete(key);
          refresh(key);
          send({ k: key, t: "gone" });
        }
      } else if (listener.side === "member") {
        const set = watchers.get(key);
        set?.delete(listener);
        if (set?.size === 0) watchers.delete(key);
      }
    },
    typing(key: string, from: LiveSide, data: { typing: boolean; name?: string }): boolean {
      const at = options.now().getTime();
      const id = `${key}\n${from}\n${data.typing}`;
      const last = recent.get(id);
      if (last !== undefined && at - last < TYPING_INTERVAL_MS && at >= last) return false;
      if (recent.size >= RECENT_MAX) for (const [k, t] of recent) if (at - t >= TYPING_INTERVAL_MS || t > at) recent.delete(k);
      recent.set(id, at);
      const clean = { typing: data.typing, ...(data.name ? { name: data.name.slice(0, TYPIST_NAME_MAX) } : {}) };
      deliver(key, from, clean);
      send({ k: key, t: "typing", f: from, d: clean });
      return true;
    },
    /** A NOTIFY from any instance (this one's own are ignored); anything malformed is dropped. */
    received(payload: string) {
      let wire: Wire;
      try {
        wire = JSON.parse(payload) as Wire;
      } catch {
        return;
      }
      if (!wire || typeof wire.i !== "string" || typeof wire.k !== "string" || wire.i === instance) return;
      if (wire.t === "ask") {
        if ((customers.get(wire.k) ?? 0) > 0) send({ k: wire.k, t: "here" });
      } else if (wire.t === "here" || wire.t === "gone") remote(wire.k, wire.i, wire.t === "here");
      else if (wire.t === "typing" && (wire.f === "customer" || wire.f === "member") && typeof wire.d?.typing === "boolean") {
        const name = typeof wire.d.name === "string" ? wire.d.name.slice(0, TYPIST_NAME_MAX) : undefined;
        deliver(wire.k, wire.f, { typing: wire.d.typing, ...(name ? { name } : {}) });
      }
    },
  };
}
