// Live conversations (README "Live conversation"): BENCH_STREAMS open event streams (default
// 1,000) spread over BENCH_CONVERSATIONS conversations (default 50), all held by one instance;
// the server's RSS before and after they open; then one person's reply per conversation, posted
// one at a time, and the time from sending the reply (its POST includes the write and the commit)
// to its arrival on every stream of that conversation: p50/p99. On PGlite one instance does both;
// on PostgreSQL the streams are held by instance A and the replies posted on instance B, so each
// arrival crosses LISTEN/NOTIFY. Then BENCH_STALLED_STREAMS streams (default 150) on one
// conversation whose clients never read (raw sockets), BENCH_STALLED_REPLIES replies of about
// 30 KB to it (default 300), and the server's RSS at its peak and after, with the event streams
// still open by svc_open_streams{kind="events"}: each stream holds at most its bound
// (STREAM_BUFFER_BYTES), and those that take nothing are ended. Printed, never asserted.
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { summarize } from "../load.ts";
import { BENCH_PASSWORD } from "../mcp.ts";
import { fixed, printTable } from "../report.ts";
import { type BenchContext, BUN, createBenchOrg, ourServer, options, ROOT, type Running, rssMiB, spawnChild, startServer } from "../runner.ts";

const STREAMS = Number(process.env.BENCH_STREAMS || 1000);
const CONVERSATIONS = Math.min(STREAMS, Number(process.env.BENCH_CONVERSATIONS || 50));
const LIMITS = {
  SDK_RATE_LIMIT_PER_KEY_IP_PER_MINUTE: "100000000",
  SDK_RATE_LIMIT_PER_ORG_PER_MINUTE: "100000000",
  SDK_TICKETS_PER_KEY_IP_PER_MINUTE: "100000000",
  SDK_STREAMS_PER_KEY_IP: "1000",
  SDK_STREAMS_MAX: String(Math.max(STREAMS + 10, 5000)),
  METRICS_TOKEN: "bench-metrics-token-0123456789abcdef",
};
const STALLED = Number(process.env.BENCH_STALLED_STREAMS || 150);
const STALLED_REPLIES = Number(process.env.BENCH_STALLED_REPLIES || 300);

/** svc_open_streams{kind="events"} of a server. */
async function openEventStreams(server: Running): Promise<number | undefined> {
  const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${LIMITS.METRICS_TOKEN}` } });
  const line = (await res.text()).split("\n").find((l) => l.startsWith('svc_open_streams{kind="events"}'));
  return line ? Number(line.split(" ")[1]) : 0;
}

/** A stream whose client never reads: a raw socket, paused once the request is written. */
function stalledStream(server: Running, key: string, sessionId: string): Socket {
  const { hostname, port } = new URL(server.url);
  const socket = connect(Number(port), hostname, () => {
    socket.write(`GET /api/sdk/conversations/${sessionId}/events HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${key}\r\n\r\n`);
    socket.pause();
  });
  socket.on("error", () => {});
  return socket;
}

/** Non-reading streams on one conversation, ~30 KB replies to it: RSS before, at its peak and after, and the event streams left open. */
async function stalledStreams(
  a: Running,
  b: Running,
  key: string,
  member: Record<string, string>,
  conversation: { sessionId: string; ticketId: string },
): Promise<string[]> {
  const sockets = Array.from({ length: STALLED }, () => stalledStream(a, key, conversation.sessionId));
  try {
    await Bun.sleep(options.idleS * 1000);
    const opened = await openEventStreams(a);
    const before = rssMiB(a.pid);
    let peak = before ?? 0;
    const big = "€".repeat(9_990);
    for (let i = 0; i < STALLED_REPLIES; i++) {
      const res = await fetch(`${b.url}/api/tickets/${conversation.ticketId}/replies`, {
        method: "POST",
        headers: member,
        body: JSON.stringify({ body: `${i} ${big}` }),
      });
      if (res.status !== 201) throw new Error(`reply: ${res.status} ${await res.text()}`);
      peak = Math.max(peak, rssMiB(a.pid) ?? 0);
    }
    await Bun.sleep(options.idleS * 1000 + 2 * 20_000); // the default heartbeat: a stream that takes nothing is ended within two
    return [String(opened ?? "—"), fixed(before, 0), fixed(peak, 0), fixed(rssMiB(a.pid), 0), String((await openEventStreams(a)) ?? "—")];
  } finally {
    for (const socket of sockets) socket.destroy();
  }
}

/** The stream holder (bench/stream-holder.ts): arrivals by reply text, as epoch milliseconds. */
interface Holder {
  proc: Bun.Subprocess;
  arrivals: Map<string, number[]>;
  opened: Promise<number>;
  waiters: Set<() => void>;
}

function startHolder(server: Running, key: string, sessions: string[]): Holder {
  const proc = spawnChild([BUN, join(ROOT, "bench/stream-holder.ts"), JSON.stringify({ url: server.url, key, sessions })], {
    env: { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: String(sessions.length + 64) },
    stdout: "pipe",
    stderr: "inherit",
  });
  const holder: Holder = { proc, arrivals: new Map(), opened: Promise.resolve(0), waiters: new Set() };
  holder.opened = new Promise((resolve, reject) => {
    void (async () => {
      let buffer = "";
      const decoder = new TextDecoder();
      for await (const chunk of proc.stdout as ReadableStream<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let at = buffer.indexOf("\n"); at !== -1; at = buffer.indexOf("\n")) {
          const line = JSON.parse(buffer.slice(0, at)) as { open?: number; text?: string; at?: number };
          buffer = buffer.slice(at + 1);
          if (line.open !== undefined) resolve(line.open);
          else if (line.text !== undefined) {
            holder.arrivals.set(line.text, [...(holder.arrivals.get(line.text) ?? []), line.at!]);
            for (const w of holder.waiters) w();
          }
        }
      }
      reject(new Error("the stream holder exited"));
    })();
  });
  return holder;
}

/** Waits until `count` streams got `text` (or 15 s passed); their arrival times. */
function arrivals(holder: Holder, text: string, count: number): Promise<number[]> {
  return new Promise((resolve) => {
    const check = () => {
      const got = holder.arrivals.get(text) ?? [];
      if (got.length < count) return false;
      holder.waiters.delete(check);
      clearTimeout(timer);
      resolve(got);
      return true;
    };
    const timer = setTimeout(() => {
      holder.waiters.delete(check);
      resolve(holder.arrivals.get(text) ?? []);
    }, 15_000);
    if (!check()) holder.waiters.add(check);
  });
}

async function run(label: string, env: { LOG_LEVEL: string } & Record<string, string>, work: string, twoInstances: boolean): Promise<string[]> {
  const org = await createBenchOrg(env, label, { name: "Live bench", email: "live-bench@example.com", flags: [] });
  const a = await startServer(ourServer(`${label} A`, env), work);
  const b = twoInstances ? await startServer(ourServer(`${label} B`, env), work) : a;
  try {
    const signIn = await fetch(`${b.url}/api/auth/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: org.email, password: BENCH_PASSWORD }),
    });
    const member = { authorization: `Bearer ${((await signIn.json()) as { token: string }).token}`, "content-type": "application/json" };
    const conversations: { sessionId: string; ticketId: string }[] = [];
    for (let i = 0; i < CONVERSATIONS; i++) {
      const res = await fetch(`${a.url}/api/sdk/chat`, {
        method: "POST",
        headers: { authorization: `Bearer ${org.widgetKey}`, "content-type": "application/json" },
        body: JSON.stringify({ message: "I want to talk to a person", mode: "livehelp" }),
      });
      const body = (await res.json()) as { session_id: string; routing: { ticket_id: string } };
      conversations.push({ sessionId: body.session_id, ticketId: body.routing.ticket_id });
    }
    process.stderr.write(`conversations (${label}): ${conversations.length} conversations handed to a person\n`);
    await Bun.sleep(options.idleS * 1000);
    const before = rssMiB(a.pid);
    const sessions = Array.from({ length: STREAMS }, (_, i) => conversations[i % CONVERSATIONS]!.sessionId);
    const holder = startHolder(a, org.widgetKey, sessions);
    const opened = await holder.opened;
    process.stderr.write(`conversations (${label}): ${opened} streams open\n`);
    await Bun.sleep(options.idleS * 1000);
    const after = rssMiB(a.pid);

    const latencies: number[] = [];
    const posts: number[] = [];
    let missing = 0;
    try {
      for (const [c, conversation] of conversations.entries()) {
        const text = `reply ${c}`;
        const holders = sessions.filter((sid) => sid === conversation.sessionId).length;
        const sent = performance.timeOrigin + performance.now();
        const res = await fetch(`${b.url}/api/tickets/${conversation.ticketId}/replies`, {
          method: "POST",
          headers: member,
          body: JSON.stringify({ body: text }),
        });
        posts.push(performance.timeOrigin + performance.now() - sent);
        if (res.status !== 201) throw new Error(`reply: ${res.status} ${await res.text()}`);
        const got = await arrivals(holder, text, holders);
        missing += holders - got.length;
        for (const at of got) latencies.push(at - sent);
      }
    } finally {
      holder.proc.kill();
    }
    const stalled = await stalledStreams(a, b, org.widgetKey, member, conversations[0]!);
    const lat = summarize(latencies, missing, undefined, 1);
    const post = summarize(posts, 0, undefined, 1);
    const growth = before !== undefined && after !== undefined ? after - before : undefined;
    return [
      label,
      String(opened),
      fixed(before, 0),
      fixed(after, 0),
      growth === undefined ? "—" : `${fixed(growth, 1)} (${fixed((growth * 1024) / opened, 1)} KiB/stream)`,
      fixed(post.p50Ms, 2),
      fixed(lat.p50Ms, 2),
      fixed(lat.p99Ms, 2),
      String(missing),
      ...stalled,
    ];
  } finally {
    await a.stop();
    if (b !== a) await b.stop();
  }
}

export async function conversations({ work, pg }: BenchContext): Promise<void> {
  const rows: string[][] = [];
  rows.push(await run("PGlite, one instance", { DATA_DIR: join(work, "live-data"), LOG_LEVEL: "error", ...LIMITS }, work, false));
  if ("url" in pg)
    rows.push(
      await run("PostgreSQL, streams on A, replies on B", { DATABASE_URL: pg.url, SECRET_KEY: pg.secretKey, LOG_LEVEL: "error", ...LIMITS }, work, true),
    );
  else console.log(`\nconversations: PostgreSQL rows skipped: ${pg.skipped}`);
  printTable(
    `Live conversation: ${STREAMS} open event streams over ${CONVERSATIONS} conversations on one instance; one reply per conversation, from sending the reply to its arrival on every stream of it; then ${STALLED} streams that never read and ${STALLED_REPLIES} replies of about 30 KB (svc_open_streams{kind="events"} after)`,
    [
      "target",
      "streams",
      "RSS before MiB",
      "RSS after MiB",
      "growth MiB",
      "reply POST p50 ms",
      "arrival p50 ms",
      "arrival p99 ms",
      "not arrived",
      "non-reading streams",
      "their RSS before MiB",
      "peak MiB",
      "after MiB",
      "still open",
    ],
    rows,
  );
}
