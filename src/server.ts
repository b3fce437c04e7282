// Boot: open the database (taking the DATA_DIR lock in embedded mode), migrate, then — for
// `serve` — seed the demo org, listen, and shut down gracefully on SIGTERM/SIGINT.
import { metricsListener } from "./health/metrics-routes.ts";
import type { Server } from "bun";
import { createAppHandler } from "./app.ts";

import type { Config } from "./config.ts";
import { createFieldCipher } from "./crypto/fields.ts";
import { resolveSecretKey } from "./crypto/secret-key.ts";
import { type Database, openPglite, openPostgres } from "./db/client.ts";
import { acquireDataDirLock } from "./db/lock.ts";
import { migrate } from "./db/migrate.ts";
import { buildDeps, startJobs, stopLive } from "./compose.ts";
import { startInboundSmtp } from "./mail-in/smtp.ts";
import type { Deps } from "./deps.ts";
import { transcriptsSettled } from "./agents/turn.ts";
import { realTimers } from "./kit/timers.ts";
import { serverBodyCap } from "./http/body.ts";
import { listenerError } from "./http/handler.ts";
import { systemResolver } from "./net/guard.ts";
import type { Logger } from "./log.ts";
import { ensureDemo } from "./orgs/demo.ts";
import { demoPasswordLine, writeDemoPassword } from "./orgs/demo-password.ts";

export interface Services {
  deps: Deps;
  database: Database;
  close(): Promise<void>;
}

/** Opens and migrates the database and builds the dependencies every command needs. */
export async function openServices(config: Readonly<Config>, log: Logger): Promise<Services> {
  const secretKey = resolveSecretKey(config);
  let release = () => {};
  let database: Database;
  if (config.databaseUrl) {
    database = openPostgres(config.databaseUrl, {
      connectTimeoutSeconds: config.databaseConnectTimeoutSeconds,
      ...(config.databasePrepare ? {} : { prepare: false }),
    });
  } else {
    release = acquireDataDirLock(config.dataDir);
    try {
      database = await openPglite(`${config.dataDir}/pgdata`);
    } catch (error) {
      release();
      throw error;
    }
  }
  const close = async () => {
    await database.close();
    release();
  };
  try {
    const applied = await migrate(database.db);
    if (applied.length > 0) log.info("applied migrations", { migrations: applied });
  } catch (error) {
    await close();
    throw error;
  }
  const deps = await buildDeps({
    config,
    db: database.db,
    listen: database.listen,
    cipher: createFieldCipher(secretKey),
    log,
    now: () => new Date(),
    guard: { allowLoopback: config.nodeEnv === "development", resolver: systemResolver },
    timers: realTimers,
    processMetrics: true,
  }).catch(async (error) => {
    await close();
    throw error;
  });
  return { deps, database, close };
}

export async function serve(
  config: Readonly<Config>,
  log: Logger,
): Promise<{ server: Server<unknown>; deps: Deps; database: Database; stop(): Promise<void> }> {
  const services = await openServices(config, log);
  const { deps } = services;
  // Not a terminal (a container's or journal's log): the demo password goes to a file, not the log.
  const terminal = process.stdout.isTTY === true;
  const demo = config.seedDemo
    ? await ensureDemo(deps, { beforeCreate: terminal ? undefined : (password) => writeDemoPassword(config.dataDir, password) })
    : null;
  const handler = createAppHandler(deps);
  const server = Bun.serve({
    port: config.port,
    hostname: config.host,
    maxRequestBodySize: serverBodyCap(config.inbound, config.speech),
    // Bun cuts a request that sends nothing for `idleTimeout` seconds (default 10). The longest
    // legitimate silence is a tool call waiting on a connector or custom action (30 s deadline),
    // so the cut comes well after that.
    idleTimeout: 60,
    fetch: handler,
    // Whatever NODE_ENV says, never Bun's development error page (it shows source paths and lines).
    development: false,
    error: listenerError(log),
  });
  // METRICS_PORT: /metrics alone on a listener of its own, for a scraper on a private network,
  // behind the same front door (Host checks, request id, access log, errors in our shape).
  const metricsServer = config.metricsPort
    ? Bun.serve({ port: config.metricsPort, hostname: config.host, development: false, fetch: metricsListener(deps), error: listenerError(log) })
    : null;
  // Every periodic job: the outbox loop, discovery, housekeeping (src/compose.ts `jobs`).
  const jobs = startJobs(deps);
  // INBOUND_SMTP_PORT: customers' email into tickets (README "Email channel").
  const inboundSmtp = config.inbound.smtpPort ? await startInboundSmtp(deps) : null;

  const where = config.databaseUrl ? "PostgreSQL" : `embedded database in ${config.dataDir}`;
  const lines = [`svc-agents listening on ${config.baseUrl} (${where})`, `Sign in:     ${config.baseUrl}/signin`];
  if (inboundSmtp) lines.push(`Inbound mail: SMTP on port ${inboundSmtp.port} for @${config.inbound.domain}`);
  if (demo) {
    lines.push(`Demo admin:  ${demo.email}`);
    lines.push(demoPasswordLine({ password: demo.password, dataDir: config.dataDir, terminal }));
    lines.push(`Widget key:  ${demo.widgetKey}`);
    lines.push(`Demo page:   ${config.baseUrl}/demo   (the chat widget on a sample page)`);
    if (demo.agentId) lines.push(`Demo agent:  ${demo.agentId}   (GET ${config.baseUrl}/api/agents; switch its actions on: README "Try a connector")`);
  }
  process.stdout.write(`${lines.join("\n")}\n`);
  log.info("listening", { url: config.baseUrl, port: server.port, database: services.database.kind });

  // SIGTERM/SIGINT (README "Faults and shutdown"): stop listening at once; let requests, streams,
  // a discovery and outbox deliveries in flight finish, all within SHUTDOWN_GRACE_SECONDS; the
  // sender claims nothing more and hands back what it claimed but had not begun. After the grace
  // what is left is cut; a delivery cut there keeps its lease and is sent again by another
  // instance after it, as for a killed process.
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      metricsServer?.stop(true);
      await inboundSmtp?.close();
      await stopLive(deps); // event streams end now (clients reconnect elsewhere), not after the grace period
      const graceEnds = Date.now() + config.shutdownGraceSeconds * 1000;
      const graceful = Promise.all([server.stop(false), jobs.stop()]);
      const timedOut = await Promise.race([graceful.then(() => false), Bun.sleep(config.shutdownGraceSeconds * 1000).then(() => true)]);
      if (timedOut) await server.stop(true);
      // Chat replies are written after their stream closed (docs/interface.md 4.5): within what is left of the grace.
      await Promise.race([transcriptsSettled(deps), Bun.sleep(Math.max(0, graceEnds - Date.now()))]);
      await services.close();
      log.info("stopped", { forced: timedOut });
    })();
    return stopping;
  };
  return { server, deps, database: services.database, stop };
}
