// The public help centre at light load: one request at a time over loopback (a keep-alive
// connection, as a reader's browser), GET /healthz beside an article page, a search results page
// and the widget's search, on a help centre of BENCH_HELP_ARTICLES generated articles (default
// 500) in two collections. Each request BENCH_HELP_RUNS times (default 300) after 20 that are not
// counted: p50 and p99 per engine, and each p50 as a multiple of /healthz's. Printed, never asserted.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAppHandler } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { saveHelpCentre } from "../../src/helpcentre/settings.ts";
import { articleRef } from "../../src/helpcentre/urls.ts";
import { systemActor } from "../../src/kit/actor.ts";
import { createDoc } from "../../src/knowledge/docs.ts";
import { createLogger } from "../../src/log.ts";
import { createOrg } from "../../src/orgs/service.ts";
import { openServices } from "../../src/server.ts";
import { fixed, printTable } from "../report.ts";
import type { BenchContext } from "../runner.ts";

const ARTICLES = Number(process.env.BENCH_HELP_ARTICLES || 500);
const RUNS = Number(process.env.BENCH_HELP_RUNS || 300);
const WORDS =
  "account billing refund invoice order parcel delivery courier return label password reset login team member invite export report widget colour language card bank transfer subscription plan upgrade downgrade cancel receipt address warehouse stock".split(
    " ",
  );

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;
}

/** A deterministic article: a title of three words, an intro, two sections with a list and a table. */
function article(i: number): { title: string; body: string } {
  const w = (k: number) => WORDS[(i * 7 + k * 13) % WORDS.length]!;
  const sentence = (k: number) => `${w(k)} ${w(k + 1)} ${w(k + 2)} and ${w(k + 3)} for your ${w(k + 4)}.`;
  return {
    title: `${w(0)} ${w(1)} ${w(2)} ${i}`,
    body: `${sentence(0)} ${sentence(5)}\n\n## How does ${w(3)} work?\n\n- ${sentence(9)}\n- ${sentence(11)}\n\n| Step | What |\n|---|---|\n| 1 | ${w(6)} |\n| 2 | ${w(7)} |\n\n## Can I ${w(8)}?\n\n${sentence(14)} ${sentence(17)}\n`,
  };
}

async function measure(label: string, env: Record<string, string>): Promise<string[][]> {
  const config = loadConfig({
    NODE_ENV: "production",
    LOG_LEVEL: "warn",
    BASE_URL: "http://127.0.0.1:3000",
    SECRET_KEY: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64"),
    ...env,
  });
  const { deps, close } = await openServices(config, createLogger("warn"));
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: createAppHandler(deps) });
  try {
    const org = await createOrg(deps, { name: "Bench", adminEmail: "bench@example.com", adminPassword: `pw-${crypto.randomUUID()}` });
    let first: { id: string; title: string } | undefined;
    for (let i = 0; i < ARTICLES; i++) {
      const doc = await createDoc(deps, org.org_id, { ...article(i), tags: [i % 2 === 0 ? "guides" : "billing"] });
      first ??= doc;
    }
    await saveHelpCentre(deps, org.org_id, systemActor("bench"), {
      enabled: true,
      slug: "bench",
      custom_domain: null,
      collections: ["guides", "billing"],
      footer: "",
    });
    const base = `http://127.0.0.1:${server.port}`;
    const targets = [
      ["GET /healthz", "/healthz"],
      ["an article page", `/help/bench/articles/${articleRef(first!)}`],
      ["a search results page", "/help/bench/search?q=refund+invoice"],
      ["the widget's search (JSON)", `/api/help/${org.org_id}/search?q=parcel+courier`],
    ] as const;
    const results: { name: string; p50: number; p99: number }[] = [];
    for (const [name, path] of targets) {
      const times: number[] = [];
      for (let i = 0; i < RUNS + 20; i++) {
        const began = performance.now();
        const res = await fetch(`${base}${path}`);
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status}`);
        if (i >= 20) times.push(performance.now() - began);
      }
      times.sort((a, b) => a - b);
      results.push({ name, p50: percentile(times, 0.5), p99: percentile(times, 0.99) });
    }
    const healthz = results[0]!.p50;
    return results.map((r) => [label, r.name, fixed(r.p50, 2), fixed(r.p99, 2), `${fixed(r.p50 / healthz, 1)}×`]);
  } finally {
    server.stop(true);
    await close();
  }
}

export async function helpCentre(context: BenchContext): Promise<void> {
  const rows: string[][] = [];
  if ("url" in context.pg) rows.push(...(await measure("PostgreSQL", { DATABASE_URL: context.pg.url })));
  else console.log(`help centre on PostgreSQL skipped: ${context.pg.skipped}`);
  rows.push(...(await measure("PGlite", { DATA_DIR: mkdtempSync(join(tmpdir(), "svc-bench-help-")) })));
  printTable(
    `Help centre at light load: one request at a time over loopback, ${ARTICLES} articles, ${RUNS} requests each`,
    ["engine", "request", "p50 ms", "p99 ms", "p50 / healthz"],
    rows,
  );
}
