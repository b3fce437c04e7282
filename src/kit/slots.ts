// A bounded number of pieces of work at once, with a bounded line of callers waiting their turn
// (first come, first served). Past the line a caller is refused at once (`Busy`): waiting is never
// unbounded, in count or — with the caller's signal — in time. The state lives in the instance
// (built once per Deps, src/compose.ts), never in a module.

/** Every slot is taken and the line is full. */
export class Busy extends Error {}

export interface Slots {
  /**
   * Resolves with `release` (call it exactly once) when a slot is free; `ahead` is 0 when one was
   * free at once, else how many held or awaited a slot when the caller arrived. Rejects with Busy when the line is full, and with the
   * signal's reason when it aborts while waiting (the caller then leaves the line).
   */
  acquire(signal?: AbortSignal): Promise<{ release: () => void; ahead: number }>;
  /** Held slots and callers waiting, now. */
  load(): { running: number; waiting: number };
}

export function createSlots(limits: { running: number; waiting: number }): Slots & { idle(): boolean } {
  let running = 0;
  const line: { grant: () => void; signal?: AbortSignal; onAbort: () => void }[] = [];
  const releaser = () => {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      running--;
      const next = line.shift();
      if (next) {
        next.signal?.removeEventListener("abort", next.onAbort);
        running++;
        next.grant();
      }
    };
  };
  return {
    acquire(signal) {
      signal?.throwIfAborted();
      if (running < limits.running) {
        running++;
        return Promise.resolve({ release: releaser(), ahead: 0 });
      }
      const ahead = running + line.length;
      if (line.length >= limits.waiting) return Promise.reject(new Busy());
      return new Promise((resolve, reject) => {
        const entry = {
          signal,
          grant: () => resolve({ release: releaser(), ahead }),
          onAbort: () => {
            const at = line.indexOf(entry);
            if (at >= 0) line.splice(at, 1);
            reject(signal!.reason);
          },
        };
        signal?.addEventListener("abort", entry.onAbort, { once: true });
        line.push(entry);
      });
    },
    load: () => ({ running, waiting: line.length }),
    idle: () => running === 0 && line.length === 0,
  };
}

/** Slots per key (an org, a member): each key has its own limits; a key's entry is dropped when idle. */
export interface KeyedSlots {
  acquire(key: string, signal?: AbortSignal): Promise<{ release: () => void; ahead: number }>;
  load(key: string): { running: number; waiting: number };
}

export function createKeyedSlots(limits: { running: number; waiting: number }): KeyedSlots {
  const byKey = new Map<string, ReturnType<typeof createSlots>>();
  const drop = (key: string) => {
    const slots = byKey.get(key);
    if (slots?.idle()) byKey.delete(key);
  };
  return {
    load: (key) => byKey.get(key)?.load() ?? { running: 0, waiting: 0 },
    async acquire(key, signal) {
      let slots = byKey.get(key);
      if (!slots) byKey.set(key, (slots = createSlots(limits)));
      try {
        const { release, ahead } = await slots.acquire(signal);
        return {
          ahead,
          release: () => {
            release();
            drop(key);
          },
        };
      } catch (error) {
        drop(key);
        throw error;
      }
    },
  };
}
