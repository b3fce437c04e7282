// `svc-agents sources sync <source_id>`: syncs one knowledge source now, in this process, and
// shows its progress on stderr — a bar redrawn in place on a terminal, plain lines otherwise (a
// log, a pipe). Prints the source as the API shows it on stdout; exits 1 when the sync failed.
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { sourceView } from "../sources/model.ts";
import { claimSource, runSync } from "../sources/sync.ts";
import { sourceExists } from "../sources/service.ts";

export interface ProgressOut {
  write(text: string): void;
  isTTY?: boolean;
}

const WIDTH = 30;

export function progressLine(done: number, found: number, terminal: boolean): string {
  if (!terminal) return `synced ${done} of ${found} pages\n`;
  const filled = found > 0 ? Math.min(WIDTH, Math.round((done / found) * WIDTH)) : 0;
  return `\r[${"#".repeat(filled)}${".".repeat(WIDTH - filled)}] ${done}/${found} pages`;
}

export async function syncSourceCommand(
  deps: Pick<Deps, "cipher" | "config" | "db" | "guard" | "knowledge" | "log" | "now" | "timers">,
  id: string,
  err: ProgressOut,
): Promise<{ stdout: string; code: number }> {
  if (!(await sourceExists(deps, id))) throw AppError.notFound("No such knowledge source.");
  const claimed = await claimSource(deps, null, id); // 409 while a sync of it runs
  const terminal = Boolean(err.isTTY);
  let last = -1;
  const synced = await runSync(deps, claimed, undefined, (done, found) => {
    if (done === last) return;
    last = done;
    err.write(progressLine(done, found, terminal));
  });
  if (terminal && last >= 0) err.write("\n");
  const view = sourceView(synced);
  if (view.status === "failed") err.write(`sync failed: ${view.reason ?? "unknown reason"}\n`);
  return { stdout: `${JSON.stringify(view)}\n`, code: view.status === "failed" ? 1 : 0 };
}
