// Seeded randomness for the engine's property tests (test/knowledge/engine-*.test.ts): a small
// PRNG (mulberry32) so every random corpus, query and edit sequence is the same on every run, and
// `forSeeds`, which runs a property for a series of seeds and names the seed that failed.
// PROPERTY_SEED=<n> runs the series from that seed instead (to reproduce one failure: the first seed
// of the series is the one printed).

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [lo, hi] (both included). */
  int(lo: number, hi: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

export function seeded(seed: number): Rng {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (items) => items[Math.floor(next() * items.length)]!,
    chance: (p) => next() < p,
  };
}

const FIRST_SEED = Number(process.env.PROPERTY_SEED ?? 1);

/** Runs `property` for `runs` seeds; a failure is rethrown with its seed in the message (and printed). */
export function forSeeds(runs: number, property: (rng: Rng, seed: number) => void): void {
  for (let seed = FIRST_SEED; seed < FIRST_SEED + runs; seed++) {
    try {
      property(seeded(seed), seed);
    } catch (error) {
      const message = `property failed for seed ${seed} (rerun with PROPERTY_SEED=${seed})`;
      console.error(message);
      throw new Error(`${message}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }
}
