// Live conversations (README "Live conversation"): BENCH_STREAMS open event streams (default
// 1,000) spread over BENCH_CONVERSATIONS conversations (default 50), all held by one instance;
// the server's RSS before and after they open; then one person's reply per conversation, posted
// one at a time, and the time from sending the reply (its POST includes the write and the commit)
// to its arrival on every stream of that conversation: p50/p99. On PGlite one instance does both;
// on PostgreSQL the streams are held by instance A and the replies posted on instance B, so each
// arrival crosses LISTEN/NOTIFY. Printed, never asserted.
import { join } from "node:path";
import { createParser } from "eventsource-parser";
import { summarize } from "../load.ts";
import { BENCH_PASSWORD } from "../mcp.ts";
import { fixed, printTable } from "../report.ts";
import { type BenchContext, createBenchOrg, ourServer, options, type Running, rssMiB, startServer } from "../runner.ts";

const STREAMS = Number(process.env.BENCH_STREAMS || 1000);
const CONVERSATIONS = Math.min(STREAMS, Number(process.env.BENCH_CONVERSATIONS || 50));
const LIMITS = {
  SDK_RATE_LIMIT_PER_KEY_IP_PER_MINUTE: "100000000",
  SDK_RATE_LIMIT_PER_ORG_PER_MINUTE: "100000000",
  SDK_TICKETS_PER_KEY_IP_PER_MINUTE: "100000000",
  SDK_STREAMS_PER_KEY_IP: "1000",
  SDK_STREAMS_MAX: String(Math.max(STREAMS + 10, 5000)),
};

interface Stream {
  conversation: number;
  arrived: Map<string, number>;
  waiters: Set<() => void>;
  abort: AbortController;
}

async function openStream(server: Running, key: string, sessionId: string, conversation: number): Promise<Stream> {
  const stream: Stream = { conversation, arrived: new Map(), waiters: new Set(), abort: new AbortController() };
  const res = await fetch(`${server.url}/api/sdk/conversations/${sessionId}/events`, { headers: { authorization: `Bearer ${key}` }, signal: stream.abort.signal });
  if (res.status !== 200) throw new Error(`events: ${res.status} ${await res.text()}`);
  const parser = createParser({
    onEvent(event) {
      if (event.event !== "message") return;
      stream.arrived.set((JSON.parse(event.data) as { text: string }).text, performance.now());
      for (const w of stream.waiters) w();
    },
  });
  void (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body!) parser.feed(decoder.decode(chunk, { stream: true }));
    } catch {}
  })();
  return stream;
}

function arrival(stream: Stream, text: string, timeoutMs = 15_000): Promise<number | null> {
  return new Promise((resolve) => {
    const check = () => {
      const at = stream.arrived.get(text);
      if (at === undefined) return false;
      stream.waiters.delete(check);
      clearTimeout(timer);
      resolve(at);
      return true;
    };
    const timer = setTimeout(() => {
      stream.waiters.delete(check);
      resolve(null);
    }, timeoutMs);
    if (!check()) stream.waiters.add(check);
  });
}

async function run(label: string, env: { LOG_LEVEL: string } & Record<string, string>, work: string, twoInstances: boolean): Promise<string[]> {
  const org = await createBenchOrg(env, label, { name: "Live bench", email: "live-bench@example.com", flags: [] });
  const a = await startServer(ourServer(`${label} A`, env), work);
  const b = twoInstances ? await startServer(ourServer(`${label} B`, env), work) : a;
  try {
    const signIn = await fetch(`${b.url}/api/auth/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: org.email, password: BENCH_PASSWORD }) });
    const member = { authorization: `Bearer ${((await signIn.json()) as { token: string }).token}`, "content-type": "application/json" };
    const conversations: { sessionId: string; ticketId: string }[] = [];
    for (let i = 0; i < CONVERSATIONS; i++) {
      const res = await fetch(`${a.url}/api/sdk/chat`, { method: "POST", headers: { authorization: `Bearer ${org.widgetKey}`, "content-type": "application/json" }, body: JSON.stringify({ message: "I want to talk to a person", mode: "livehelp" }) });
      const body = (await res.json()) as { session_id: string; routing: { ticket_id: string } };
      conversations.push({ sessionId: body.session_id, ticketId: body.routing.ticket_id });
    }
    process.stderr.write(`conversations (${label}): ${conversations.length} conversations handed to a person\n`);
    await Bun.sleep(options.idleS * 1000);
    const before = rssMiB(a.pid);
    const streams: Stream[] = [];
    for (let i = 0; i < STREAMS; i += 50) {
      const batch = Array.from({ length: Math.min(50, STREAMS - i) }, (_, j) => (i + j) % CONVERSATIONS);
      streams.push(...(await Promise.all(batch.map((c) => openStream(a, org.widgetKey, conversations[c]!.sessionId, c)))));
    }
    process.stderr.write(`conversations (${label}): ${streams.length} streams open\n`);
    await Bun.sleep(options.idleS * 1000);
    const after = rssMiB(a.pid);

    const latencies: number[] = [];
    const posts: number[] = [];
    let missing = 0;
    for (const [c, conversation] of conversations.entries()) {
      const text = `reply ${c}`;
      const holders = streams.filter((s) => s.conversation === c);
      const sent = performance.now();
      const res = await fetch(`${b.url}/api/tickets/${conversation.ticketId}/replies`, { method: "POST", headers: member, body: JSON.stringify({ body: text }) });
      posts.push(performance.now() - sent);
      if (res.status !== 201) throw new Error(`reply: ${res.status} ${await res.text()}`);
      for (const at of await Promise.all(holders.map((s) => arrival(s, text)))) {
        if (at === null) missing++;
        else latencies.push(at - sent);
      }
    }
    for (const s of streams) s.abort.abort();
    const lat = summarize(latencies, missing, undefined, 1);
    const post = summarize(posts, 0, undefined, 1);
    const growth = before !== undefined && after !== undefined ? after - before : undefined;
    return [
      label,
      String(streams.length),
      fixed(before, 0),
      fixed(after, 0),
      growth === undefined ? "—" : `${fixed(growth, 1)} (${fixed((growth * 1024) / streams.length, 1)} KiB/stream)`,
      fixed(post.p50Ms, 2),
      fixed(lat.p50Ms, 2),
      fixed(lat.p99Ms, 2),
      String(missing),
    ];
  } finally {
    await a.stop();
    if (b !== a) await b.stop();
  }
}

export async function conversations({ work, pg }: BenchContext): Promise<void> {
  const rows: string[][] = [];
  rows.push(await run("PGlite, one instance", { DATA_DIR: join(work, "live-data"), LOG_LEVEL: "error", ...LIMITS }, work, false));
  if ("url" in pg) rows.push(await run("PostgreSQL, streams on A, replies on B", { DATABASE_URL: pg.url, SECRET_KEY: pg.secretKey, LOG_LEVEL: "error", ...LIMITS }, work, true));
  else console.log(`\nconversations: PostgreSQL rows skipped: ${pg.skipped}`);
  printTable(
    `Live conversation: ${STREAMS} open event streams over ${CONVERSATIONS} conversations on one instance; one reply per conversation, from sending the reply to its arrival on every stream of it`,
    ["target", "streams", "RSS before MiB", "RSS after MiB", "growth MiB", "reply POST p50 ms", "arrival p50 ms", "arrival p99 ms", "not arrived"],
    rows,
  );
}
