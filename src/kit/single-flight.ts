// One piece of work per key at a time: callers asking for a key already in flight share its
// promise. The map lives in the instance (built once per Deps), not in a module.

export interface SingleFlight<T> {
  run(key: string, work: () => Promise<T>): Promise<T>;
}

export function createSingleFlight<T>(): SingleFlight<T> {
  const inFlight = new Map<string, Promise<T>>();
  return {
    run(key, work) {
      const pending = inFlight.get(key);
      if (pending) return pending;
      const started = work().finally(() => inFlight.delete(key));
      inFlight.set(key, started);
      return started;
    },
  };
}
