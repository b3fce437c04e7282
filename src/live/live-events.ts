// Waking the readers of live conversation events (README "Live conversation"). The events
// themselves are rows (src/inbox/ticket-events.ts); this only tells readers when to look. A commit
// in this process wakes local readers at once; the writer's `pg_notify` (sent inside the
// transaction, so PostgreSQL delivers it only on commit) reaches every instance LISTENing on the
// same database, including this one — a second wake finds nothing new, which is harmless. A reader
// also looks on every heartbeat, so a notification lost while a LISTEN connection reconnects costs
// at most one heartbeat of delay, never an event.
import type { Database } from "../db/client.ts";
import { messageOf } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { LiveEvents, LiveListener } from "../ports/live.ts";
import { createSignals, SIGNAL_CHANNEL } from "./signals.ts";

export const LIVE_CHANNEL = "svc_ticket_events";

export interface RunningLiveEvents extends LiveEvents {
  start(): Promise<void>;
  /** Closes every open stream (clients reconnect, to another instance if this one is going away) and stops listening. */
  stop(): Promise<void>;
}

export function createLiveEvents(options: {
  log: Logger;
  listen?: Database["listen"];
  /** Sends a NOTIFY on the signals' channel (typing and presence, ./signals.ts). */
  notify?: (channel: string, payload: string) => Promise<void>;
  now?: () => Date;
}): RunningLiveEvents {
  const listeners = new Map<string, Set<LiveListener>>();
  const perClient = new Map<string, number>();
  let open = 0;
  let unlisten: (() => Promise<void>) | undefined;
  let unlistenSignals: (() => Promise<void>) | undefined;
  const notify = options.notify;
  const signals = createSignals({
    now: options.now ?? (() => new Date()),
    log: options.log,
    notify: notify ? (payload) => notify(SIGNAL_CHANNEL, payload) : undefined,
    listenersOf: (key) => listeners.get(key) ?? [],
  });

  function wake(key: string) {
    const set = listeners.get(key);
    if (!set) return;
    for (const listener of [...set]) listener.wake();
  }

  return {
    wake,
    subscribe(key, listener) {
      let set = listeners.get(key);
      if (!set) listeners.set(key, (set = new Set()));
      set.add(listener);
      signals.added(key, listener);
      let subscribed = true;
      return () => {
        if (!subscribed) return;
        subscribed = false;
        set.delete(listener);
        if (set.size === 0 && listeners.get(key) === set) listeners.delete(key);
        signals.removed(key, listener);
      };
    },
    typing: (key, from, data) => signals.typing(key, from, data),
    admit(client, caps) {
      const held = perClient.get(client) ?? 0;
      if (held >= caps.perClient || open >= caps.max) return null;
      perClient.set(client, held + 1);
      open++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        open--;
        const left = (perClient.get(client) ?? 1) - 1;
        if (left <= 0) perClient.delete(client);
        else perClient.set(client, left);
      };
    },
    get open() {
      return open;
    },
    async start() {
      if (!options.listen || unlisten) return;
      try {
        unlisten = await options.listen(LIVE_CHANNEL, (payload) => wake(payload));
        unlistenSignals = await options.listen(SIGNAL_CHANNEL, (payload) => signals.received(payload));
      } catch (error) {
        // E.g. a transaction-mode pooler: streams still get other instances' events on their heartbeat.
        options.log.warn("live events from other instances arrive on the heartbeat only", { error: messageOf(error) });
      }
    },
    async stop() {
      for (const set of [...listeners.values()]) for (const listener of [...set]) listener.close();
      listeners.clear();
      await unlisten?.().catch(() => {});
      await unlistenSignals?.().catch(() => {});
      unlisten = undefined;
      unlistenSignals = undefined;
    },
  };
}
