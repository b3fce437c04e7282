// Typing and presence across instances (README "Live conversation", "Typing and presence"): two
// servers on one PostgreSQL. The customer's widget stream is held by A, the member's page follows
// the conversation on B: B hears the customer arrive (also when its stream opens after they did),
// type and leave; the member joins and types on B, and the widget on A hears their name. Nothing
// of it is a row: it travels as NOTIFY (src/live/signals.ts).
import { afterAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { createTestDatabase, engine, type TestDatabase } from "../support/db.ts";
import { bannerPassword, type RunningServer, startServer } from "../support/process.ts";
import { readEvents } from "../support/sse.ts";

const running: RunningServer[] = [];
let db: TestDatabase | undefined;
afterAll(async () => {
  for (const s of running) s.proc.kill("SIGKILL");
  await db?.close();
});

describe.skipIf(engine !== "postgres")("typing and presence on two instances", () => {
  test("presence and typing cross from A to B and back", async () => {
    db = await createTestDatabase();
    const env = { DATABASE_URL: db.url!, SECRET_KEY: randomBytes(32).toString("base64"), SEED_DEMO: "1" };
    const a = await startServer(env);
    running.push(a);
    const field = (label: string) => new RegExp(`^${label}:\\s+(\\S+)`, "m").exec(a.stdout())?.[1];
    const email = field("Demo admin")!;
    const password = bannerPassword(a.stdout()) ?? field("Password")!;
    const widget = { authorization: `Bearer ${field("Widget key")!}`, "content-type": "application/json" };
    const b = await startServer(env);
    running.push(b);

    const answer = (await (
      await fetch(`${a.url}/api/sdk/chat`, { method: "POST", headers: widget, body: JSON.stringify({ message: "How do I reset my password?" }) })
    ).json()) as { session_id: string; text: string };
    expect(answer.text.length).toBeGreaterThan(0);
    const signIn = await fetch(`${b.url}/api/auth/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password }),
    });
    const member = { authorization: `Bearer ${((await signIn.json()) as { token: string }).token}`, "content-type": "application/json" };
    const { conversations } = (await (await fetch(`${b.url}/api/conversations?limit=1`, { headers: member })).json()) as { conversations: { id: string }[] };
    const id = conversations[0]!.id;
    const online = (events: ReturnType<typeof readEvents>, value: boolean, from = 0) =>
      events.waitFor((e) => e.event === "presence" && JSON.parse(e.data).online === value, from);

    const early = readEvents(await fetch(`${b.url}/api/conversations/${id}/presence`, { headers: member }));
    await online(early, false);
    const abort = new AbortController();
    const customer = readEvents(await fetch(`${a.url}/api/sdk/conversations/${answer.session_id}/events`, { headers: widget, signal: abort.signal }));
    await customer.waitForComment((c) => c === "open");
    await online(early, true);
    // A member's stream opened after the customer arrived asks, and A answers.
    const late = readEvents(await fetch(`${b.url}/api/conversations/${id}/presence`, { headers: member }));
    await online(late, true);

    // The customer types on A; B hears it.
    const typed = await fetch(`${a.url}/api/sdk/conversations/${answer.session_id}/typing`, {
      method: "POST",
      headers: widget,
      body: JSON.stringify({ typing: true }),
    });
    expect(await typed.json()).toEqual({ sent: true });
    expect(JSON.parse((await late.waitFor((e) => e.event === "typing")).data)).toEqual({ typing: true });

    // The member joins and types on B; the widget on A hears their name.
    const joined = (await (await fetch(`${b.url}/api/conversations/${id}/join`, { method: "POST", headers: member })).json()) as { ticket_id: string };
    await customer.waitFor((e) => e.event === "ticket" && JSON.parse(e.data).joined !== undefined);
    await fetch(`${b.url}/api/tickets/${joined.ticket_id}/typing`, { method: "POST", headers: member, body: JSON.stringify({ typing: true }) });
    expect(JSON.parse((await customer.waitFor((e) => e.event === "typing")).data)).toEqual({ typing: true, name: "Support team" });

    // The widget goes away from A: B hears the customer leave.
    abort.abort();
    await online(late, false, 1);
    early.close();
    late.close();
  }, 120_000);
});
