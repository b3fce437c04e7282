#!/usr/bin/env bun
// Command line: `serve` (default), `migrate`, `org create`, `org flag`, `healthcheck`, `backup`,
// `restore`. The
// compiled binary (dist/svc-agents) runs this file. Exit codes: 0 done, 1 failed, 2 invalid
// arguments. `--via-server` before an admin command sends it to the running embedded server.
import { isDriverWriteAfterClose } from "./db/unavailable.ts";
import { listenAdminSocket, sendToServer } from "./cli/admin-socket.ts";
import { runBackup, runRestore } from "./cli/backup-commands.ts";
import { type Command, executeAdmin, isAdminCommand, parseCommand, UsageError, USAGE } from "./cli/commands.ts";
import { syncSourceCommand } from "./cli/sources-sync.ts";
import { type Config, ConfigError, loadConfig } from "./config.ts";
import { DataDirBusyError } from "./db/lock.ts";
import { messageOf } from "./errors.ts";
import { createLogger } from "./log.ts";
import { openServices, serve } from "./server.ts";

async function main(args: string[]): Promise<number> {
  const viaServer = args[0] === "--via-server";
  const argv = viaServer ? args.slice(1) : args;
  let command: Command;
  try {
    command = parseCommand(argv);
    if (viaServer && !isAdminCommand(command) && command.kind !== "backup")
      throw new UsageError("--via-server goes with migrate, org create, org flag, org identity, eval, user reset-password or backup");
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`svc-agents: ${error.message}\n${USAGE}\n`);
    return 2;
  }
  if (command.kind === "help") {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let config: Readonly<Config>;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`svc-agents: configuration error: ${error.message}\n`);
    return 1;
  }
  // Unset, NODE_ENV means production (src/config.ts); say so to Bun and every library that reads it.
  process.env.NODE_ENV ??= config.nodeEnv;
  const log = createLogger(config.logLevel);
  try {
    if (command.kind === "serve") {
      const running = await serve(config, log);
      const admin = config.databaseUrl ? undefined : listenAdminSocket(running.deps, running.database);
      // The first SIGTERM/SIGINT stops gracefully and exits 0; a second one exits at once with 1
      // (in-flight work is cut: README "Faults and shutdown").
      let signalled = false;
      const onSignal = () => {
        if (signalled) process.exit(1);
        signalled = true;
        admin?.stop();
        void running.stop().then(() => process.exit(0));
      };
      // The one error a library throws where no caller can catch it, and that leaves the process
      // sound: postgres.js writing to a socket that closed (src/db/unavailable.ts). Logged, not fatal;
      // anything else still ends the process, as an uncaught error must.
      process.on("uncaughtException", (error) => {
        if (!isDriverWriteAfterClose(error)) {
          log.error("uncaught error", { error });
          process.exit(1);
        }
        log.warn("database connection closed under a write", { error });
      });
      process.on("SIGTERM", onSignal);
      process.on("SIGINT", onSignal);
      return -1; // keep running
    }
    if (command.kind === "healthcheck") {
      // For container HEALTHCHECKs (the runtime image has no curl): GET /healthz on this host.
      const res = await fetch(`http://127.0.0.1:${config.port}/healthz`, { signal: AbortSignal.timeout(3000) }).catch(() => null);
      return res?.status === 200 ? 0 : 1;
    }
    if (command.kind === "backup" || command.kind === "restore") {
      process.stdout.write(command.kind === "backup" ? await runBackup(config, command.out, viaServer) : await runRestore(config, command.in, command.force));
      return 0;
    }
    if (command.kind === "sources-sync") {
      const services = await openServices(config, log);
      try {
        const { stdout, code } = await syncSourceCommand(services.deps, command.sourceId, process.stderr);
        process.stdout.write(stdout);
        return code;
      } finally {
        await services.close();
      }
    }
    if (!isAdminCommand(command)) return 2;
    // Read before anything opens: `user reset-password --password-stdin` (the password never in argv).
    const stdin = command.kind === "user-reset-password" && command.passwordStdin ? await Bun.stdin.text() : undefined;
    if (viaServer) {
      if (config.databaseUrl) throw new UsageError("--via-server is for the embedded database; with DATABASE_URL run commands directly");
      const reply = await sendToServer(config.dataDir, argv, stdin).catch(() => {
        throw new Error(`no svc-agents server is running on ${config.dataDir} (could not reach its admin socket)`);
      });
      process.stdout.write(reply.stdout);
      if (reply.stderr) process.stderr.write(`svc-agents: ${reply.stderr}\n`);
      return reply.code;
    }
    const services = await openServices(config, log);
    try {
      process.stdout.write(await executeAdmin(services.deps, command, stdin));
      if (command.kind === "migrate") process.stderr.write("svc-agents: migrations are up to date\n");
      return 0;
    } finally {
      await services.close();
    }
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`svc-agents: ${error.message}\n${USAGE}\n`);
      return 2;
    }
    if (error instanceof DataDirBusyError) {
      process.stderr.write(`svc-agents: ${error.message}\n`);
      return 1;
    }
    process.stderr.write(`svc-agents: ${messageOf(error)}\n`);
    return 1;
  }
}

if (import.meta.main) {
  const code = await main(process.argv.slice(2));
  if (code >= 0) process.exit(code);
}
