// Throughput: closed loop over keep-alive connections (bench/load.ts), one server running at a
// time, ours next to raw Bun.serve. To compare a new endpoint, add it to SCENARIOS (and to
// bench/baseline-server.ts if a raw equivalent makes sense).
import { type Measurement, printComparison } from "../report.ts";
import { type BenchContext, baselineServer, HEALTHZ, ourServer, rssMiB, runLoad, type Scenario, type ServerSpec, startServer } from "../runner.ts";

const SCENARIOS: Scenario[] = [HEALTHZ];

export async function throughput({ work, dataDir }: BenchContext): Promise<void> {
  const reference = "raw Bun.serve";
  const targets: { spec: ServerSpec; baseline: boolean }[] = [
    { spec: baselineServer(), baseline: true },
    { spec: ourServer("ours, PGlite, LOG_LEVEL=error", { DATA_DIR: dataDir, LOG_LEVEL: "error" }), baseline: false },
    // info is the default level: one JSON access-log line per request, written to a file here.
    { spec: ourServer("ours, PGlite, LOG_LEVEL=info", { DATA_DIR: dataDir, LOG_LEVEL: "info" }), baseline: false },
  ];
  const measurements: Measurement[] = [];
  for (const target of targets) {
    const server = await startServer(target.spec, work);
    try {
      for (const scenario of SCENARIOS) {
        if (target.baseline && !scenario.baseline) continue;
        const { result, loadCpuPct } = await runLoad(server, scenario);
        measurements.push({ scenario: scenario.name, target: target.spec.name, result, loadCpuPct, rssAfterMiB: rssMiB(server.pid) });
      }
    } finally {
      await server.stop();
    }
  }
  printComparison("Throughput: closed loop over keep-alive connections (bench/load.ts)", measurements, [reference]);
  if (measurements.some((m) => m.loadCpuPct > 90))
    console.log("note: loadgen CPU near or above 100 % means the generator was likely the bottleneck there; that req/s is a lower bound for the server.");
}
