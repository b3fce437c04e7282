// Password hashing: argon2id through Bun.password. The server uses Bun's defaults (m=65536 KiB,
// t=2, p=1); the parameters come with deps, so the test suite, which signs in hundreds of times,
// injects cheap ones (test/support/app.ts) while every process it spawns keeps the real cost.
// Hashes carry their parameters (PHC string), so verification follows whatever made the hash.

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, hash: string): Promise<boolean>;
  /**
   * A hash of a random password nobody knows, with the same parameters as real ones: verified
   * for an account that does not exist, so a missing account costs the same work.
   */
  dummy(): Promise<string>;
}

export function createPasswordHasher(params: { memoryCost?: number; timeCost?: number } = {}): PasswordHasher {
  const options = { algorithm: "argon2id" as const, ...params };
  // Started at once (at boot, in the background), so the first unknown account costs no extra hash.
  const dummy = Bun.password.hash(crypto.randomUUID(), options);
  return {
    hash: (password) => Bun.password.hash(password, options),
    verify: (password, hash) => Bun.password.verify(password, hash),
    dummy: () => dummy,
  };
}
