// The readers every part of the configuration uses: a variable as a bounded whole number, one of a
// list, or a flag, each refused with a ConfigError that names it.

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable} ${problem}`);
  }
}

export type Env = Record<string, string | undefined>;

export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max)
    throw new ConfigError(name, `must be a whole number from ${min} to ${max} (got ${JSON.stringify(raw)})`);
  return Number(raw);
}

export function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!(allowed as readonly string[]).includes(raw)) throw new ConfigError(name, `must be one of ${allowed.join(", ")} (got ${JSON.stringify(raw)})`);
  return raw as T;
}

export function flag(env: Env, name: string, fallback: boolean): boolean {
  return oneOf(env, name, ["0", "1", "true", "false"] as const, fallback ? "1" : "0").match(/^(1|true)$/) !== null;
}
