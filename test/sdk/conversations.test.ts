// GET /api/sdk/conversations/{session_id} and …/events: the conversation as its customer sees it,
// a person's reply live with their name (never a note), resuming with Last-Event-ID, the chat's
// binding rules, bounded input and the stream caps at their boundary.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { members } from "../../src/db/schema/index.ts";
import { addTicketMessage, updateTicket } from "../../src/inbox/tickets.ts";
import { stopLive } from "../../src/compose.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { readEvents } from "../support/sse.ts";
import { chatJson, type ChatOrg, seedChatOrg } from "../support/chat.ts";
import { userToken } from "./helpers.ts";

let app: TestApp;
let org: ChatOrg;
let other: ChatOrg;
let memberId: string;
beforeAll(async () => {
  app = await createTestApp({ SDK_STREAMS_PER_KEY_IP: "2", SDK_STREAMS_MAX: "3", SDK_STREAM_HEARTBEAT_SECONDS: "1" });
  org = await seedChatOrg(app, { docs: false });
  other = await seedChatOrg(app, { docs: false });
  const [member] = await app.deps.db.update(members).set({ name: "Dana Reyes" }).where(eq(members.email, org.admin_email)).returning();
  memberId = member!.id;
}, 30_000);
afterAll(() => app.close());

function get(path: string, key = org.widget_key, headers: Record<string, string> = {}, ip = "203.0.113.10") {
  return app.request(path, { headers: { authorization: `Bearer ${key}`, ...headers }, ip });
}
const member = () => ({ kind: "member" as const, memberId });

/** A conversation handed to a person: its session id and ticket id. */
async function handedOff(userId: string, extra: Record<string, unknown> = {}) {
  const answer = await chatJson(app, org, { message: "I want to talk to a person", user_id: userId, ...extra });
  return { sessionId: answer.session_id as string, ticketId: answer.routing.ticket_id as string };
}

describe("the conversation and its events", () => {
  test("history: customer messages and AI answers, the ticket, and a cursor; a person's reply arrives live with their name, a note never", async () => {
    const { sessionId, ticketId } = await handedOff("live-1");
    const res = await get(`/api/sdk/conversations/${sessionId}`, org.widget_key, { "x-user-id": "live-1" });
    expect(res.status).toBe(200);
    const view = (await res.json()) as any;
    expect(view.messages.map((m: any) => m.kind)).toEqual(["customer", "agent"]);
    expect(view.messages[0]).toMatchObject({ text: "I want to talk to a person", author: { name: "You" } });
    expect(view.ticket).toMatchObject({ status: "open" });

    const stream = await get(`/api/sdk/conversations/${sessionId}/events`, org.widget_key, { "x-user-id": "live-1", "last-event-id": view.last_event_id });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toStartWith("text/event-stream");
    expect(stream.headers.get("cache-control")).toBe("no-cache");
    expect(stream.headers.get("x-accel-buffering")).toBe("no");
    const events = readEvents(stream);
    await addTicketMessage(app.deps, { orgId: org.org_id, actor: member(), ticketId, kind: "note", body: "internal: refund approved" });
    await addTicketMessage(app.deps, { orgId: org.org_id, actor: member(), ticketId, kind: "reply", body: "Hi, Dana here. Let me look." });
    const reply = await events.waitFor((e) => e.event === "message");
    const data = JSON.parse(reply.data);
    expect(data).toMatchObject({ kind: "person", author: { name: "Dana Reyes" }, text: "Hi, Dana here. Let me look." });
    expect(JSON.stringify(data)).not.toContain(org.admin_email);
    expect(Number(reply.id)).toBeGreaterThan(Number(view.last_event_id));
    await updateTicket(app.deps, { orgId: org.org_id, actor: member(), ticketId, patch: { status: "resolved" } });
    const status = await events.waitFor((e) => e.event === "ticket");
    expect(JSON.parse(status.data)).toMatchObject({ status: "resolved" });
    expect(events.events.some((e) => e.data.includes("refund approved"))).toBe(false);
    events.close();

    // A reload: the reply is in the history, the note is not.
    const again = (await (await get(`/api/sdk/conversations/${sessionId}`, org.widget_key, { "x-user-id": "live-1" })).json()) as any;
    expect(again.messages.map((m: any) => m.kind)).toEqual(["customer", "agent", "person"]);
    expect(JSON.stringify(again)).not.toContain("refund approved");
    expect(again.ticket.status).toBe("resolved");
    expect(again.last_event_id).toBe(status.id);
  });

  test("resuming with Last-Event-ID gets exactly what was missed, in order, once", async () => {
    const { sessionId, ticketId } = await handedOff("live-2");
    const start = ((await (await get(`/api/sdk/conversations/${sessionId}`, org.widget_key, { "x-user-id": "live-2" })).json()) as any).last_event_id;
    const first = readEvents(await get(`/api/sdk/conversations/${sessionId}/events?user_id=live-2&last_event_id=${start}`));
    await addTicketMessage(app.deps, { orgId: org.org_id, actor: member(), ticketId, kind: "reply", body: "one" });
    const one = await first.waitFor((e) => e.event === "message");
    first.close();
    await first.ended;
    for (const body of ["two", "three"]) await addTicketMessage(app.deps, { orgId: org.org_id, actor: member(), ticketId, kind: "reply", body });
    const resumed = readEvents(await get(`/api/sdk/conversations/${sessionId}/events`, org.widget_key, { "x-user-id": "live-2", "last-event-id": one.id! }));
    await resumed.waitFor((e) => e.event === "message" && JSON.parse(e.data).text === "three");
    expect(resumed.events.filter((e) => e.event === "message").map((e) => JSON.parse(e.data).text)).toEqual(["two", "three"]);
    resumed.close();
  });

  test("the customer's own chat messages are not sent back to them; a message written elsewhere is", async () => {
    const { sessionId, ticketId } = await handedOff("live-3");
    const events = readEvents(await get(`/api/sdk/conversations/${sessionId}/events`, org.widget_key, { "x-user-id": "live-3" }));
    await chatJson(app, org, { message: "any news?", user_id: "live-3", session_id: sessionId });
    await addTicketMessage(app.deps, {
      orgId: org.org_id,
      actor: { kind: "system", name: "email" },
      ticketId,
      kind: "customer",
      body: "Sent from my phone: any news?",
    });
    const message = await events.waitFor((e) => e.event === "message");
    expect(JSON.parse(message.data)).toMatchObject({ kind: "customer", text: "Sent from my phone: any news?" });
    expect(events.events.filter((e) => e.event === "message")).toHaveLength(1);
    events.close();
  });

  test("a heartbeat comment keeps the stream alive; shutting down ends every stream cleanly", async () => {
    const { sessionId } = await handedOff("live-4");
    const events = readEvents(await get(`/api/sdk/conversations/${sessionId}/events`, org.widget_key, { "x-user-id": "live-4" }, "203.0.113.40"));
    expect(await events.waitForComment((c) => c === "heartbeat")).toBe("heartbeat");
    await stopLive(app.deps);
    await events.ended; // resolves: the server closed the body
    expect(app.deps.live.open).toBe(0);
  });
});
