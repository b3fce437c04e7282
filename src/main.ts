#!/usr/bin/env bun
// Command line: `serve` (default), `migrate`, `org create`, `org flag`. The compiled binary
// (dist/svc-agents) runs this file. Exit codes: 0 done, 1 failed, 2 invalid arguments.
import { type ParseArgsConfig, parseArgs } from "node:util";
import { type Config, ConfigError, loadConfig } from "./config.ts";
import { DataDirBusyError } from "./db/lock.ts";
import { AppError } from "./errors.ts";
import { createLogger, type Logger } from "./log.ts";
import { createOrg, FEATURE_FLAGS, isFeatureFlag, setFeatureFlag, validateCreateOrg } from "./orgs/service.ts";
import { openServices, serve } from "./server.ts";

export const USAGE = `usage: svc-agents [serve]
       svc-agents migrate
       svc-agents org create --name <name> --admin-email <email> --admin-password <password> [--flag <feature_flag>]...
       svc-agents org flag --org <org_id> --name <feature_flag> --on|--off`;

class UsageError extends Error {}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Command =
  | { kind: "serve" }
  | { kind: "migrate" }
  | { kind: "help" }
  | { kind: "org-create"; name: string; adminEmail: string; adminPassword: string; flags: string[] }
  | { kind: "org-flag"; orgId: string; name: string; enabled: boolean };

function options(args: string[], spec: NonNullable<ParseArgsConfig["options"]>) {
  try {
    return parseArgs({ args, options: spec, strict: true, allowPositionals: false }).values as Record<string, string | string[] | boolean | undefined>;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** `/admin_email` → `--admin-email`, `/flags/0` → `--flag`: validation paths in CLI words. */
function optionOf(path: string): string {
  return `--${path.replace(/^\/flags\/\d+$/, "/flag").slice(1).replace(/_/g, "-")}`;
}

function required(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== "string" || value === "") throw new UsageError(`--${name} is required`);
  return value;
}

export function parseCommand(argv: string[]): Command {
  const [first, second, ...rest] = argv;
  if (first === undefined || first === "serve") {
    if (argv.length > 1) throw new UsageError(`unexpected argument ${argv[1]}`);
    return { kind: "serve" };
  }
  if (first === "help" || first === "--help" || first === "-h") return { kind: "help" };
  if (first === "migrate") {
    if (argv.length > 1) throw new UsageError(`unexpected argument ${argv[1]}`);
    return { kind: "migrate" };
  }
  if (first === "org" && second === "create") {
    const v = options(rest, {
      name: { type: "string" },
      "admin-email": { type: "string" },
      "admin-password": { type: "string" },
      flag: { type: "string", multiple: true },
    });
    const command = {
      kind: "org-create" as const,
      name: required(v, "name"),
      adminEmail: required(v, "admin-email"),
      adminPassword: required(v, "admin-password"),
      flags: (v.flag as string[] | undefined) ?? [],
    };
    const problems = validateCreateOrg(command);
    if (problems.length > 0) throw new UsageError(problems.map((p) => `${optionOf(p.path)}: ${p.message}`).join("; "));
    return command;
  }
  if (first === "org" && second === "flag") {
    const v = options(rest, { org: { type: "string" }, name: { type: "string" }, on: { type: "boolean" }, off: { type: "boolean" } });
    const orgId = required(v, "org");
    if (!UUID.test(orgId)) throw new UsageError("--org must be an organisation id (a UUID)");
    if (Boolean(v.on) === Boolean(v.off)) throw new UsageError("give exactly one of --on and --off");
    const name = required(v, "name");
    if (!isFeatureFlag(name)) throw new UsageError(`--name: unknown feature flag ${JSON.stringify(name)}; known: ${Object.keys(FEATURE_FLAGS).join(", ")}`);
    return { kind: "org-flag", orgId, name, enabled: Boolean(v.on) };
  }
  throw new UsageError(`unknown command: ${argv.slice(0, 2).join(" ")}`);
}

async function withServices<T>(config: Readonly<Config>, log: Logger, run: (deps: Awaited<ReturnType<typeof openServices>>["deps"]) => Promise<T>) {
  const services = await openServices(config, log);
  try {
    return await run(services.deps);
  } finally {
    await services.close();
  }
}

async function main(argv: string[]): Promise<number> {
  let command: Command;
  try {
    command = parseCommand(argv);
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
  const log = createLogger(config.logLevel);
  try {
    switch (command.kind) {
      case "serve": {
        const running = await serve(config, log);
        const onSignal = () => void running.stop().then(() => process.exit(0));
        process.once("SIGTERM", onSignal);
        process.once("SIGINT", onSignal);
        return -1; // keep running
      }
      case "migrate":
        await withServices(config, log, async () => {});
        process.stderr.write("svc-agents: migrations are up to date\n");
        return 0;
      case "org-create": {
        const created = await withServices(config, log, (deps) =>
          createOrg(deps, { name: command.name, adminEmail: command.adminEmail, adminPassword: command.adminPassword, flags: command.flags }),
        );
        process.stdout.write(`${JSON.stringify(created)}\n`);
        return 0;
      }
      case "org-flag": {
        const flags = await withServices(config, log, (deps) => setFeatureFlag(deps, command.orgId, command.name, command.enabled));
        process.stdout.write(`${JSON.stringify({ org_id: command.orgId, flag: command.name, enabled: command.enabled, feature_flags: flags })}\n`);
        return 0;
      }
    }
  } catch (error) {
    if (error instanceof AppError || error instanceof DataDirBusyError) {
      process.stderr.write(`svc-agents: ${error.message}\n`);
      return 1;
    }
    process.stderr.write(`svc-agents: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

if (import.meta.main) {
  const code = await main(process.argv.slice(2));
  if (code >= 0) process.exit(code);
}
