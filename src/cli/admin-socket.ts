// Admin commands against a running embedded server. PGlite is single-process, so while `serve`
// holds DATA_DIR nobody else may open the database; instead the server listens on a Unix socket
// in DATA_DIR (the directory is 0700 and the socket 0600: only the account running the server
// can connect) and executes admin commands sent with `--via-server`. Without that flag the CLI
// fails fast and says so.
import { chmodSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Server } from "bun";
import type { Database } from "../db/client.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { BackupRefused, createBackup } from "./backup-file.ts";
import { executeAdmin, isAdminCommand, parseCommand, UsageError } from "./commands.ts";

export interface AdminReply {
  code: number;
  stdout: string;
  stderr: string;
}

export function adminSocketPath(dataDir: string): string {
  return join(dataDir, "admin.sock");
}

export function listenAdminSocket(deps: Deps, database: Database): { stop(): void } {
  const path = adminSocketPath(deps.config.dataDir);
  rmSync(path, { force: true }); // a socket file left by a killed server
  const server: Server<unknown> = Bun.serve({
    unix: path,
    development: false, // never Bun's development error page
    async fetch(request, self) {
      if (new URL(request.url).pathname === "/backup") {
        self.timeout(request, 0); // nothing is sent until the backup is taken (seconds); Bun's 10 s idle cut must not apply
        return backupResponse(deps, database);
      }
      const reply = await handle(deps, request).catch((error): AdminReply => {
        if (error instanceof UsageError) return { code: 2, stdout: "", stderr: error.message };
        if (error instanceof AppError) return { code: 1, stdout: "", stderr: error.message };
        deps.log.error("admin command failed", { error: String(error) });
        return { code: 1, stdout: "", stderr: "the server could not run the command; see its log" };
      });
      return Response.json(reply);
    },
  });
  chmodSync(path, 0o600);
  return {
    stop() {
      server.stop(true);
      rmSync(path, { force: true });
    },
  };
}

async function handle(deps: Deps, request: Request): Promise<AdminReply> {
  const { argv, stdin } = (await request.json()) as { argv: unknown; stdin?: unknown };
  if (!Array.isArray(argv) || !argv.every((a) => typeof a === "string")) throw new UsageError("argv must be a list of strings");
  if (stdin !== undefined && typeof stdin !== "string") throw new UsageError("stdin must be a string");
  const command = parseCommand(argv);
  if (!isAdminCommand(command)) throw new UsageError(`${command.kind} cannot run through the server`);
  deps.log.info("admin command", { command: command.kind });
  return { code: 0, stdout: await executeAdmin(deps, command, stdin ?? ""), stderr: "" };
}

/** POST /backup: the backup file's bytes (README "Backup and restore"), or an AdminReply saying why not. */
async function backupResponse(deps: Pick<Deps, "config" | "log" | "now">, database: Database): Promise<Response> {
  try {
    deps.log.info("admin command", { command: "backup" });
    const started = performance.now();
    const file = await createBackup(database, deps.config, deps.now());
    deps.log.info("backup taken", { bytes: file.length, ms: Math.round(performance.now() - started) });
    return new Response(file, { headers: { "content-type": "application/x-tar" } });
  } catch (error) {
    if (error instanceof BackupRefused) return Response.json({ code: 1, stdout: "", stderr: error.message } satisfies AdminReply);
    deps.log.error("backup failed", { error: String(error) });
    return Response.json({ code: 1, stdout: "", stderr: "the server could not take the backup; see its log" } satisfies AdminReply);
  }
}

/** Asks the server holding `dataDir` for a backup; throws BackupRefused with its reason when it cannot. */
export async function fetchBackup(dataDir: string): Promise<Uint8Array<ArrayBuffer>> {
  const res = await fetch("http://localhost/backup", { unix: adminSocketPath(dataDir), method: "POST" } as RequestInit).catch((error: { code?: string }) => {
    if (error.code === "ENOENT" || error.code === "ECONNREFUSED" || error.code === "FailedToOpenSocket")
      throw new BackupRefused(`no svc-agents server is running on ${dataDir} (could not reach its admin socket)`);
    throw new BackupRefused(`the server's admin socket failed during the backup (${error.code ?? String(error)})`);
  });
  if (res.headers.get("content-type") !== "application/x-tar") throw new BackupRefused(((await res.json()) as AdminReply).stderr);
  return new Uint8Array(await res.arrayBuffer());
}

/** Sends an admin command's argv (already parsed and checked locally), and what it read from standard input, to the server holding `dataDir`. */
export async function sendToServer(dataDir: string, argv: string[], stdin?: string): Promise<AdminReply> {
  const res = await fetch("http://localhost/admin", {
    unix: adminSocketPath(dataDir),
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ argv, ...(stdin !== undefined ? { stdin } : {}) }),
    signal: AbortSignal.timeout(30_000),
  } as RequestInit);
  return (await res.json()) as AdminReply;
}
