// The load generator's own process (bench/runner.ts spawns it, so that it never shares a
// JavaScript thread with the server it measures): a closed loop (load.ts), or an open loop
// (open-loop.ts) when LoadOptions.rate is set. It prints one LoadResult as JSON.
import { type LoadOptions, runLoad } from "./load.ts";
import { runOpenLoop } from "./open-loop.ts";

if (import.meta.main) {
  const arg = process.argv[2];
  if (!arg) {
    process.stderr.write("usage: bun bench/load-process.ts '<LoadOptions as JSON>'\n");
    process.exit(2);
  }
  const options = JSON.parse(arg) as LoadOptions;
  const result = options.rate ? await runOpenLoop({ ...options, rate: options.rate }) : await runLoad(options);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0); // do not wait for idle keep-alive sockets to time out
}
