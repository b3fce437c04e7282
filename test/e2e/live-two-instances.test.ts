// Two instances on one PostgreSQL: the widget's event stream is held by one, the person's reply is
// posted on the other and arrives once (NOTIFY wakes the reader, who reads the row); the stream is
// cut and resumed with Last-Event-ID on the other instance, and gets exactly what it missed.
import { afterAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { createTestDatabase, engine, type TestDatabase } from "../support/db.ts";
import { type RunningServer, startServer, tempDir, bannerPassword } from "../support/process.ts";
import { readEvents } from "../support/sse.ts";

const running: RunningServer[] = [];
let db: TestDatabase | undefined;
afterAll(async () => {
  for (const s of running) s.proc.kill("SIGKILL");
  await db?.close();
});

function banner(stdout: string) {
  const field = (label: string) => new RegExp(`^${label}:\\s+(\\S+)`, "m").exec(stdout)?.[1];
  // With standard output not a terminal, the banner names the file that holds the password.
  return { email: field("Demo admin")!, password: bannerPassword(stdout) ?? field("Password")!, widgetKey: field("Widget key")! };
}

describe.skipIf(engine !== "postgres")("two instances on one PostgreSQL", () => {
  test("a reply posted on B reaches the stream held by A once; cut and resumed on B with Last-Event-ID, nothing is missed or repeated", async () => {
    db = await createTestDatabase();
    const env = { DATABASE_URL: db.url!, SECRET_KEY: randomBytes(32).toString("base64"), SEED_DEMO: "1" };
    const a = await startServer(env);
    running.push(a);
    const printed = banner(a.stdout());
    const b = await startServer(env);
    running.push(b);

    const widget = { authorization: `Bearer ${printed.widgetKey}` };
    const chat = await fetch(`${a.url}/api/sdk/chat`, {
      method: "POST",
      headers: { ...widget, "content-type": "application/json" },
      body: JSON.stringify({ message: "I want to talk to a person" }),
    });
    expect(chat.status).toBe(200);
    const answer = (await chat.json()) as any;
    const ticketId = answer.routing.ticket_id as string;
    const conversation = (await (await fetch(`${a.url}/api/sdk/conversations/${answer.session_id}`, { headers: widget })).json()) as any;

    const signIn = await fetch(`${b.url}/api/auth/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: printed.email, password: printed.password }),
    });
    const member = { authorization: `Bearer ${((await signIn.json()) as any).token}`, "content-type": "application/json" };
    const reply = (url: string, body: string) =>
      fetch(`${url}/api/tickets/${ticketId}/replies`, { method: "POST", headers: member, body: JSON.stringify({ body }) });
    const texts = (events: ReturnType<typeof readEvents>) => events.events.filter((e) => e.event === "message").map((e) => JSON.parse(e.data).text as string);

    const onA = readEvents(
      await fetch(`${a.url}/api/sdk/conversations/${answer.session_id}/events`, { headers: { ...widget, "last-event-id": conversation.last_event_id } }),
    );
    await onA.waitForComment((c) => c === "open");
    expect((await reply(b.url, "first, from B")).status).toBe(201);
    await onA.waitFor((e) => e.event === "message");
    expect((await reply(b.url, "second, from B")).status).toBe(201);
    const second = await onA.waitFor((e) => e.event === "message" && JSON.parse(e.data).text === "second, from B");
    expect(texts(onA)).toEqual(["first, from B", "second, from B"]);
    onA.close();

    // Cut. Two replies while nobody listens, then the stream resumes on the other instance.
    expect((await reply(a.url, "third, while away")).status).toBe(201);
    expect((await reply(b.url, "fourth, while away")).status).toBe(201);
    const onB = readEvents(await fetch(`${b.url}/api/sdk/conversations/${answer.session_id}/events`, { headers: { ...widget, "last-event-id": second.id! } }));
    await onB.waitFor((e) => e.event === "message" && JSON.parse(e.data).text === "fourth, while away");
    expect((await reply(a.url, "fifth, from A")).status).toBe(201);
    await onB.waitFor((e) => e.event === "message" && JSON.parse(e.data).text === "fifth, from A");
    expect(texts(onB)).toEqual(["third, while away", "fourth, while away", "fifth, from A"]);
    const ids = onB.events.map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    expect(new Set(ids).size).toBe(ids.length);

    // A shutting instance ends its streams at once, so the widget reconnects elsewhere.
    const stopped = b.stop();
    await onB.ended;
    expect(await stopped).toBe(0);
  }, 120_000);
});

describe.skipIf(engine !== "pglite")("one embedded instance (PGlite: one process)", () => {
  test("a reply posted through the API reaches the open stream of the served process", async () => {
    const server = await startServer({ DATA_DIR: tempDir(), SEED_DEMO: "1" });
    running.push(server);
    const printed = banner(server.stdout());
    const widget = { authorization: `Bearer ${printed.widgetKey}` };
    const answer = (await (
      await fetch(`${server.url}/api/sdk/chat`, {
        method: "POST",
        headers: { ...widget, "content-type": "application/json" },
        body: JSON.stringify({ message: "I want to talk to a person" }),
      })
    ).json()) as any;
    const events = readEvents(await fetch(`${server.url}/api/sdk/conversations/${answer.session_id}/events`, { headers: widget }));
    await events.waitForComment((c) => c === "open");
    const signIn = await fetch(`${server.url}/api/auth/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: printed.email, password: printed.password }),
    });
    const member = { authorization: `Bearer ${((await signIn.json()) as any).token}`, "content-type": "application/json" };
    expect(
      (
        await fetch(`${server.url}/api/tickets/${answer.routing.ticket_id}/replies`, {
          method: "POST",
          headers: member,
          body: JSON.stringify({ body: "Hello from a person" }),
        })
      ).status,
    ).toBe(201);
    const message = await events.waitFor((e) => e.event === "message");
    expect(JSON.parse(message.data)).toMatchObject({ kind: "person", text: "Hello from a person" });
    const stopped = server.stop();
    await events.ended;
    expect(await stopped).toBe(0);
  }, 120_000);
});
