// `npm run soak`: the soak with its schedule of faults, a printed table of what held, and
// docs/reliability.md with its charts. SOAK_SECONDS (default 600) sets the length of the load;
// under 300 s it runs the short schedule (one PostgreSQL restart, one instance killed). The raw
// result is kept in .cache/soak-result.json; `npm run soak -- --report` writes the page again from it.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { ROOT } from "../../test/support/process.ts";
import { canRunPrivatePostgres } from "./postgres.ts";
import { checkRows, opTable, printTable, writeReport } from "./report.ts";
import { runSoak, type SoakResult } from "./soak.ts";

const num = (name: string, fallback: number) => {
  const v = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(v) || v <= 0) throw new Error(`${name} must be a positive number`);
  return v;
};

const saved = join(ROOT, ".cache/soak-result.json");
let result: SoakResult & { seconds: number; machine: string; date: string };
if (process.argv.includes("--report")) {
  result = JSON.parse(readFileSync(saved, "utf8"));
} else {
  if (!canRunPrivatePostgres()) {
    console.error("soak: needs root and the PostgreSQL server binaries (/usr/lib/postgresql/*/bin) to run a private cluster");
    process.exit(1);
  }
  const seconds = num("SOAK_SECONDS", 600);
  const run = await runSoak({
    seconds,
    workers: num("SOAK_WORKERS", 8),
    pauseMs: num("SOAK_PAUSE_MS", 50),
    drainSeconds: num("SOAK_DRAIN_SECONDS", 480),
    boundSeconds: num("SOAK_REQUEST_BOUND_SECONDS", 10),
  });
  const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? "CPU"}, Linux, Bun ${Bun.version}`;
  result = { ...run, seconds, machine, date: `${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC` };
  mkdirSync(join(ROOT, ".cache"), { recursive: true });
  writeFileSync(saved, JSON.stringify(result));
}
console.log(`\n${printTable(opTable(result.samples))}\n\n${printTable(checkRows(result.checks))}\n`);
if (process.env.SOAK_WRITE_DOCS !== "0") {
  await writeReport(ROOT, result);
  console.log("wrote docs/reliability.md and docs/reliability/*.svg");
}
process.exit(result.checks.every((c) => c.held) ? 0 : 1);
