// What every feature function may use, built once at boot (src/server.ts) or per test file
// (test/support/app.ts) and passed down explicitly. Nothing reaches for globals instead.
import type { Config } from "./config.ts";
import type { FieldCipher } from "./crypto/fields.ts";
import type { Db } from "./db/client.ts";
import type { Logger } from "./log.ts";
import type { SingleFlight } from "./kit/single-flight.ts";
import type { Timers } from "./kit/timers.ts";
import type { GuardOptions } from "./net/guard.ts";

export interface Deps {
  config: Readonly<Config>;
  db: Db;
  cipher: FieldCipher;
  log: Logger;
  /** The clock; tests move it instead of sleeping. */
  now: () => Date;
  /** How outbound requests to tenant-supplied URLs are checked (src/net/guard.ts); tests inject a resolver. */
  guard: GuardOptions;
  /** Deadlines of outbound work (connector discovery and calls); tests fire them by moving the clock. */
  timers: Timers;
  /** Connector OAuth refreshes in flight, so parallel calls that met a 401 share one refresh (src/connectors/credentials.ts). */
  connectorRefreshes: SingleFlight<Record<string, string>>;
}
