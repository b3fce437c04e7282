// The admin commands: parsing argv into a Command, and executing one against the services.
// The CLI runs them in its own process; a running embedded server runs them for
// `--via-server` (src/cli/admin-socket.ts), since PGlite admits one process per DATA_DIR.
import { type ParseArgsConfig, parseArgs } from "node:util";
import { systemActor } from "../kit/actor.ts";
import type { Deps } from "../deps.ts";
import { FEATURE_FLAGS, isFeatureFlag } from "../kit/flags.ts";
import { isUuid } from "../kit/ids.ts";
import { adminResetPassword } from "../orgs/password-reset.ts";
import { createOrg, setFeatureFlag, validateCreateOrg } from "../orgs/service.ts";
import { setIdentityVerification } from "../orgs/widget-access.ts";
import { evaluate } from "../agents/evaluate.ts";
import { parseQuestionSet } from "../agents/question-set.ts";
import { stat } from "node:fs/promises";
import { AppError, messageOf } from "../errors.ts";

export const USAGE = `usage: svc-agents [serve]
       svc-agents migrate
       svc-agents org create --name <name> --admin-email <email> --admin-password <password> [--flag <feature_flag>]...
       svc-agents org flag --org <org_id> --name <feature_flag> --on|--off
       svc-agents org identity --org <org_id> --on|--off
       svc-agents sources sync <source_id>
       svc-agents [--via-server] eval --org <org_id> --questions <file.jsonl|.csv|.txt> [--agent <agent_id>]
       svc-agents [--via-server] user reset-password --email <email> [--password-stdin]
       svc-agents healthcheck
       svc-agents [--via-server] backup --out <file>
       svc-agents restore --in <file> [--force]`;

export class UsageError extends Error {}

/** The largest question file `eval` reads. */
const EVAL_FILE_BYTES = 8 * 1024 * 1024;

export type Command =
  | { kind: "serve" }
  | { kind: "migrate" }
  | { kind: "help" }
  | { kind: "healthcheck" }
  | { kind: "org-create"; name: string; adminEmail: string; adminPassword: string; flags: string[] }
  | { kind: "org-flag"; orgId: string; name: string; enabled: boolean }
  | { kind: "org-identity"; orgId: string; enabled: boolean }
  | { kind: "sources-sync"; sourceId: string }
  | { kind: "eval"; orgId: string; agentId?: string; questions: string }
  | { kind: "user-reset-password"; email: string; passwordStdin: boolean }
  | { kind: "backup"; out: string }
  | { kind: "restore"; in: string; force: boolean };

function options(args: string[], spec: NonNullable<ParseArgsConfig["options"]>) {
  try {
    return parseArgs({ args, options: spec, strict: true, allowPositionals: false }).values as Record<string, string | string[] | boolean | undefined>;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** `/admin_email` → `--admin-email`, `/flags/0` → `--flag`: validation paths in CLI words. */
function optionOf(path: string): string {
  return `--${path
    .replace(/^\/flags\/\d+$/, "/flag")
    .slice(1)
    .replace(/_/g, "-")}`;
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
  if (first === "healthcheck") {
    if (argv.length > 1) throw new UsageError(`unexpected argument ${argv[1]}`);
    return { kind: "healthcheck" };
  }
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
    if (!isUuid(orgId)) throw new UsageError("--org must be an organisation id (a UUID)");
    if (Boolean(v.on) === Boolean(v.off)) throw new UsageError("give exactly one of --on and --off");
    const name = required(v, "name");
    if (!isFeatureFlag(name)) throw new UsageError(`--name: unknown feature flag ${JSON.stringify(name)}; known: ${Object.keys(FEATURE_FLAGS).join(", ")}`);
    return { kind: "org-flag", orgId, name, enabled: Boolean(v.on) };
  }
  if (first === "org" && second === "identity") {
    // Identity verification of widget requests (docs/interface.md 5).
    const v = options(rest, { org: { type: "string" }, on: { type: "boolean" }, off: { type: "boolean" } });
    const orgId = required(v, "org");
    if (!isUuid(orgId)) throw new UsageError("--org must be an organisation id (a UUID)");
    if (Boolean(v.on) === Boolean(v.off)) throw new UsageError("give exactly one of --on and --off");
    return { kind: "org-identity", orgId, enabled: Boolean(v.on) };
  }
  if (first === "sources" && second === "sync") {
    // A knowledge source synced now, its progress on stderr (README "Knowledge sources").
    if (rest.length !== 1) throw new UsageError("sources sync takes one source id");
    if (!isUuid(rest[0]!)) throw new UsageError("the source id must be a UUID");
    return { kind: "sources-sync", sourceId: rest[0]! };
  }
  if (first === "eval") {
    const v = options(argv.slice(1), { org: { type: "string" }, agent: { type: "string" }, questions: { type: "string" } });
    const orgId = required(v, "org");
    if (!isUuid(orgId)) throw new UsageError("--org must be an organisation id (a UUID)");
    const agentId = typeof v.agent === "string" ? v.agent : undefined;
    if (agentId !== undefined && !isUuid(agentId)) throw new UsageError("--agent must be an agent id (a UUID)");
    return { kind: "eval", orgId, ...(agentId ? { agentId } : {}), questions: required(v, "questions") };
  }
  if (first === "user" && second === "reset-password") {
    // Without --password-stdin: a one-time link valid for an hour; with it, the password read from standard input.
    const v = options(rest, { email: { type: "string" }, "password-stdin": { type: "boolean" } });
    const email = required(v, "email");
    if (!email.includes("@") || email.length > 320) throw new UsageError("--email must be an email address");
    return { kind: "user-reset-password", email, passwordStdin: Boolean(v["password-stdin"]) };
  }
  if (first === "backup") {
    const v = options(argv.slice(1), { out: { type: "string" } });
    return { kind: "backup", out: required(v, "out") };
  }
  if (first === "restore") {
    const v = options(argv.slice(1), { in: { type: "string" }, force: { type: "boolean" } });
    return { kind: "restore", in: required(v, "in"), force: Boolean(v.force) };
  }
  throw new UsageError(`unknown command: ${argv.slice(0, 2).join(" ")}`);
}

export type AdminCommand = Extract<Command, { kind: "migrate" | "org-create" | "org-flag" | "org-identity" | "eval" | "user-reset-password" }>;

export function isAdminCommand(command: Command): command is AdminCommand {
  return (
    command.kind === "migrate" ||
    command.kind === "org-create" ||
    command.kind === "org-flag" ||
    command.kind === "org-identity" ||
    command.kind === "eval" ||
    command.kind === "user-reset-password"
  );
}

/** A password read from standard input: one line, its line ending dropped. */
export function passwordFromInput(input: string): string {
  return input.replace(/\r?\n$/, "");
}

/**
 * Runs an admin command on open, migrated services; returns what it prints on stdout. Throws AppError.
 * `stdin` is what the command read from standard input (only `user reset-password --password-stdin` reads it).
 */
export async function executeAdmin(
  deps: Pick<
    Deps,
    "cipher" | "config" | "db" | "guard" | "invalidation" | "knowledge" | "log" | "metrics" | "now" | "passwords" | "statements" | "timers" | "tools"
  >,
  command: AdminCommand,
  stdin = "",
): Promise<string> {
  switch (command.kind) {
    case "migrate":
      return ""; // opening the services applied every pending migration
    case "org-create": {
      const created = await createOrg(deps, { name: command.name, adminEmail: command.adminEmail, adminPassword: command.adminPassword, flags: command.flags });
      return `${JSON.stringify(created)}\n`;
    }
    case "org-flag": {
      const flags = await setFeatureFlag(deps, command.orgId, systemActor("cli"), command.name, command.enabled);
      return `${JSON.stringify({ org_id: command.orgId, flag: command.name, enabled: command.enabled, feature_flags: flags })}\n`;
    }
    case "eval": {
      // The question file is read where the command runs (with --via-server, by the server: give an absolute path).
      const size = await stat(command.questions).then(
        (s) => s.size,
        () => -1,
      );
      if (size < 0) throw new UsageError(`--questions: cannot read ${command.questions}`);
      if (size > EVAL_FILE_BYTES) throw new UsageError(`--questions: the file is larger than ${EVAL_FILE_BYTES} bytes`);
      let questions;
      try {
        // The formats the dashboard takes (JSON Lines, CSV with a header, plain lines), told apart the same way.
        questions = parseQuestionSet(await Bun.file(command.questions).text(), command.questions).questions;
      } catch (error) {
        const details = error instanceof AppError ? (error.details ?? []) : [];
        throw new UsageError(`--questions: ${details.map((d) => `line ${d.path.slice(1) || "—"}: ${d.message}`).join("; ") || messageOf(error)}`);
      }
      const run = await evaluate(deps, command.orgId, command.agentId, questions);
      const lines = run.results.map((r) =>
        JSON.stringify({ question: r.question, answered: r.answered, confidence: r.confidence, correct: r.correct, sources: r.sources, reply: r.reply }),
      );
      return `${[...lines, JSON.stringify({ agent_id: run.agentId, totals: run.totals })].join("\n")}\n`;
    }
    case "org-identity": {
      const identity = await setIdentityVerification(deps, command.orgId, systemActor("cli"), command.enabled);
      return `${JSON.stringify({ org_id: command.orgId, identity_verification: identity.enabled })}\n`;
    }
    case "user-reset-password": {
      const done = await adminResetPassword(deps, { email: command.email, password: command.passwordStdin ? passwordFromInput(stdin) : undefined });
      return `${JSON.stringify(done)}\n`;
    }
  }
}
