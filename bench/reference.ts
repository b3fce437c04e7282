// An earlier revision of svc-agents, checked out beside this one (git worktree, sharing this
// node_modules), so the benchmark can measure "before" and "now" side by side in one run on one
// machine: ratios, not figures remembered from another day. BENCH_REFERENCE names the revision
// (default: REFERENCE_REVISION); BENCH_REFERENCE=none skips it.
import { existsSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { cleanups, ROOT, spawnChild } from "./runner.ts";

/** The revision before the tool-server performance work (docs/decisions.md "Performance"): the "before" it was measured against. */
export const REFERENCE_REVISION = "2381955";

async function git(args: string[]): Promise<{ code: number; out: string }> {
  const proc = spawnChild(["git", "-C", ROOT, ...args], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout as ReadableStream<Uint8Array>).text(),
    new Response(proc.stderr as ReadableStream<Uint8Array>).text(),
    proc.exited,
  ]);
  return { code, out: (code === 0 ? out : err).trim() };
}

type Checkout = { root: string; label: string } | { skipped: string };
/** One checkout per run, shared by the scenarios that measure beside it (tool server, chat). */
let checkout: Promise<Checkout> | undefined;

export function referenceCheckout(work: string): Promise<Checkout> {
  return (checkout ??= checkoutOnce(work));
}

async function checkoutOnce(work: string): Promise<Checkout> {
  const wanted = process.env.BENCH_REFERENCE || REFERENCE_REVISION;
  if (wanted === "none") return { skipped: "BENCH_REFERENCE=none" };
  if (!Bun.which("git")) return { skipped: "no git on PATH" };
  const sha = await git(["rev-parse", "--verify", "--quiet", `${wanted}^{commit}`]);
  if (sha.code !== 0 || !sha.out) return { skipped: `revision ${wanted} is not in this clone` };
  const root = join(work, "reference");
  const added = await git(["worktree", "add", "--detach", root, sha.out]);
  if (added.code !== 0) return { skipped: `git worktree add failed: ${added.out.slice(0, 200)}` };
  cleanups.push(async () => void (await git(["worktree", "remove", "--force", root])));
  if (!existsSync(join(root, "node_modules"))) symlinkSync(join(ROOT, "node_modules"), join(root, "node_modules"), "dir");
  return { root, label: `ours at ${sha.out.slice(0, 7)}` };
}
