// An event stream is bounded (README "Live conversation", "Bounded"): a client that does not take
// what it is sent is ended as soon as more than STREAM_BUFFER_BYTES wait for it beyond what its
// socket took, and what it missed comes back on a reconnect with Last-Event-ID. Over real sockets
// that never read (or read late), with replies of about 30 KB each. The heartbeat is the longest
// allowed (25 s), so no stream here is ended by a heartbeat's check while the replies are written.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect, type Socket } from "node:net";
import { createParser } from "eventsource-parser";
import { eq } from "drizzle-orm";
import { members } from "../../src/db/schema/index.ts";
import { addTicketMessage } from "../../src/inbox/tickets.ts";
import { STREAM_BUFFER_BYTES } from "../../src/live/event-stream.ts";
import { type ServedTestApp, serveTestApp } from "../support/app.ts";
import { chatJson, type ChatOrg, seedChatOrg } from "../support/chat.ts";
import { readEvents } from "../support/sse.ts";

let app: ServedTestApp;
let org: ChatOrg;
let memberId: string;
beforeAll(async () => {
  app = await serveTestApp({ SDK_STREAMS_PER_KEY_IP: "50", SDK_STREAM_HEARTBEAT_SECONDS: "25" });
  org = await seedChatOrg(app, { docs: false });
  const [member] = await app.deps.db.select({ id: members.id }).from(members).where(eq(members.email, org.admin_email));
  memberId = member!.id;
}, 30_000);
afterAll(() => app.close());

/** About 30 KB on the wire: nearly 10,000 characters (the most a message holds), of three bytes each. */
const BIG = "€".repeat(9_990);

async function handedOff(userId: string) {
  const answer = await chatJson(app, org, { message: "I want to talk to a person", user_id: userId });
  const sessionId = answer.session_id as string;
  const view = (await (
    await fetch(`${app.url}/api/sdk/conversations/${sessionId}`, { headers: { authorization: `Bearer ${org.widget_key}`, "x-user-id": userId } })
  ).json()) as { last_event_id: string };
  return { sessionId, ticketId: answer.routing.ticket_id as string, lastEventId: view.last_event_id };
}

async function reply(ticketId: string, n: number) {
  for (let i = 0; i < n; i++)
    await addTicketMessage(app.deps, { orgId: org.org_id, actor: { kind: "member", memberId }, ticketId, kind: "reply", body: `${i} ${BIG}` });
}

interface RawStream {
  socket: Socket;
  received: Buffer[];
  closed: Promise<void>;
}

/** Opens the event stream on a raw socket that reads nothing until told (HTTP/1.0: the body runs until the server closes). */
function openPaused(sessionId: string, userId: string, lastEventId: string): Promise<RawStream> {
  return new Promise((resolve, reject) => {
    const received: Buffer[] = [];
    let closedResolve = () => {};
    const closed = new Promise<void>((r) => (closedResolve = r));
    const socket = connect(app.server.port!, "127.0.0.1", () => {
      socket.write(
        `GET /api/sdk/conversations/${sessionId}/events HTTP/1.0\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${org.widget_key}\r\nX-User-Id: ${userId}\r\nLast-Event-ID: ${lastEventId}\r\n\r\n`,
      );
      socket.pause();
      resolve({ socket, received, closed });
    });
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    socket.on("error", () => {}); // a dropped connection is what some of these tests wait for
    socket.on("close", () => closedResolve());
    socket.once("error", reject);
  });
}

/** Opens the event stream on a raw socket that reads the response's head, and nothing after it. */
function openReadingHeadOnly(sessionId: string, userId: string, lastEventId: string): Promise<RawStream & { head: string }> {
  return new Promise((resolve, reject) => {
    const received: Buffer[] = [];
    let closedResolve = () => {};
    const closed = new Promise<void>((r) => (closedResolve = r));
    let head = "";
    const socket = connect(app.server.port!, "127.0.0.1", () =>
      socket.write(
        `GET /api/sdk/conversations/${sessionId}/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${org.widget_key}\r\nX-User-Id: ${userId}\r\nLast-Event-ID: ${lastEventId}\r\n\r\n`,
      ),
    );
    const onHead = (chunk: Buffer) => {
      head += chunk.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      socket.off("data", onHead);
      socket.pause();
      socket.on("data", (more: Buffer) => received.push(more));
      resolve({ socket, received, closed, head });
    };
    socket.on("data", onHead);
    socket.on("error", () => {});
    socket.on("close", () => closedResolve());
    socket.once("error", reject);
  });
}

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 60_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`waited too long for ${what}`);
    await Bun.sleep(25);
  }
}

async function openEventStreams(): Promise<number> {
  const body = (await app.deps.metrics.exposition()).body;
  const line = body.split("\n").find((l) => l.startsWith('svc_open_streams{kind="events"}'));
  return line ? Number(line.split(" ")[1]) : 0;
}

function retainedBytes(): number {
  Bun.gc(true);
  const memory = process.memoryUsage();
  return memory.heapUsed + memory.external;
}

describe("streams whose clients never read", () => {
  test('are counted in svc_open_streams{kind="events"}, ended once over the bound, and the memory they held is given back', async () => {
    const STREAMS = 8;
    const REPLIES = 400;
    const { sessionId, ticketId, lastEventId } = await handedOff("never-reads");
    const before = await openEventStreams();
    const streams: RawStream[] = [];
    for (let i = 0; i < STREAMS; i++) streams.push(await openPaused(sessionId, "never-reads", lastEventId));
    await until(async () => (await openEventStreams()) === before + STREAMS, "the streams to open");
    expect(app.deps.live.open).toBe(STREAMS);
    const baseline = retainedBytes();

    await reply(ticketId, REPLIES);
    // Every stream is ended although no client read a byte: none is counted any more, and each connection is closed.
    await until(async () => (await openEventStreams()) === before && app.deps.live.open === 0, "the server to end the streams");
    const written = STREAMS * REPLIES * BIG.length * 3;
    const grown = retainedBytes() - baseline;
    // Unbounded, the server kept most of `written` (about 96 MB) for the sockets; bounded, at most the bound per stream.
    expect(grown).toBeLessThan(Math.max(STREAMS * STREAM_BUFFER_BYTES * 2, written / 8));
    expect(app.logs.filter((l) => l.msg === "event stream ended: the client is not taking what it is sent").length).toBeGreaterThanOrEqual(STREAMS);
    // The connections are gone too: a client that reads now gets what was already on its way, then the cut, never the rest.
    for (const s of streams) s.socket.resume();
    await Promise.all(streams.map((s) => s.closed));
    for (const s of streams) expect(Buffer.concat(s.received).length).toBeLessThan(REPLIES * BIG.length * 3);
  }, 180_000);
});

describe("a stream whose client reads the response's head and nothing more", () => {
  test("is ended while the replies are still being written, as soon as the bound waits for it, and the server keeps no more than the bound", async () => {
    const REPLIES = 400;
    const { sessionId, ticketId, lastEventId } = await handedOff("reads-head-only");
    const before = await openEventStreams();
    const open = app.deps.live.open;
    const stream = await openReadingHeadOnly(sessionId, "reads-head-only", lastEventId);
    expect(stream.head.startsWith("HTTP/1.1 200")).toBe(true);
    await until(() => app.deps.live.open === open + 1, "the stream to open");
    const logged = app.logs.length;
    const baseline = retainedBytes();

    // Replies one at a time until the server has ended the stream: about 12 MB in all, far more
    // than the socket's buffers and the bound together.
    let posted = 0;
    while (posted < REPLIES && app.deps.live.open > open) {
      await reply(ticketId, 1);
      posted++;
    }
    expect(app.deps.live.open).toBe(open);
    expect(posted).toBeLessThan(REPLIES);
    expect(await openEventStreams()).toBe(before);
    const ended = app.logs.slice(logged).filter((l) => l.msg === "event stream ended: the client is not taking what it is sent");
    expect(ended.length).toBe(1);
    // What the server still held for it beyond the socket when it gave up: never more than the bound.
    expect(ended[0]!.unsent_bytes as number).toBeLessThanOrEqual(STREAM_BUFFER_BYTES);
    expect(retainedBytes() - baseline).toBeLessThan(Math.max(4 * STREAM_BUFFER_BYTES, (posted * BIG.length * 3) / 8));

    // Reading again, it gets at most what was already on its way, then the cut: never every reply.
    stream.socket.resume();
    await stream.closed;
    expect(Buffer.concat(stream.received).length).toBeLessThan(REPLIES * BIG.length * 3);
  }, 180_000);
});

describe("a slow stream", () => {
  test("is ended, and a reconnect with the last id it got brings every reply, each once, in order", async () => {
    const REPLIES = 250;
    const { sessionId, ticketId, lastEventId } = await handedOff("reads-late");
    const open = app.deps.live.open;
    const slow = await openPaused(sessionId, "reads-late", lastEventId);
    await until(() => app.deps.live.open === open + 1, "the stream to open");
    await reply(ticketId, REPLIES);
    await until(() => app.deps.live.open === open, "the server to end the slow stream");
    // Now it reads: what was queued for it, then the end of the body.
    slow.socket.resume();
    await slow.closed;
    // The cut resets the connection: what was still on its way may be lost with it, so it has
    // anything from nothing to a part of the replies.
    const text = Buffer.concat(slow.received).toString("utf8");
    const ids: number[] = [];
    const texts: string[] = [];
    const parser = createParser({
      onEvent(event) {
        if (event.event !== "message") return;
        ids.push(Number(event.id));
        texts.push((JSON.parse(event.data) as { text: string }).text.split(" ")[0]!);
      },
    });
    if (text.includes("\r\n\r\n")) parser.feed(text.slice(text.indexOf("\r\n\r\n") + 4));
    expect(ids.length).toBeLessThan(REPLIES); // it was ended before it got everything

    // The widget's reconnect: Last-Event-ID is the last complete event it parsed. Its backlog is
    // megabytes, more than the socket takes at once: the catch-up waits for it and is never cut.
    const res = await fetch(`${app.url}/api/sdk/conversations/${sessionId}/events`, {
      headers: { authorization: `Bearer ${org.widget_key}`, "x-user-id": "reads-late", "last-event-id": String(ids.at(-1) ?? lastEventId) },
    });
    expect(res.status).toBe(200);
    const rest = readEvents(res);
    await rest.waitFor((e) => e.event === "message" && (JSON.parse(e.data) as { text: string }).text.startsWith(`${REPLIES - 1} `));
    rest.close();
    for (const e of rest.events.filter((e) => e.event === "message")) {
      ids.push(Number(e.id));
      texts.push((JSON.parse(e.data) as { text: string }).text.split(" ")[0]!);
    }
    expect(texts).toEqual(Array.from({ length: REPLIES }, (_, i) => String(i)));
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(new Set(ids).size).toBe(REPLIES);
  }, 180_000);
});
