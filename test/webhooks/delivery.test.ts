// With a real receiver on loopback verifying every request with
// `standardwebhooks`: events after the SDK ticket route, a chat message asking for a person and a
// one-click unsubscribe; retries with the same webhook-id and growing delays on the test clock; the
// guard refusing private addresses at creation and at delivery; redirects not followed; secret
// rotation's overlap. Loopback is reachable only because the app runs with NODE_ENV=development
// (the guard's one relaxation, as in test/connectors).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { enrolCustomer } from "../../src/campaigns/enrolments.ts";
import { createCampaign, findCampaign, setCampaignStatus } from "../../src/campaigns/lifecycle.ts";
import { addTicketMessage, createTicket, updateTicket } from "../../src/inbox/tickets.ts";
import { createSender } from "../../src/compose.ts";
import type { Sender } from "../../src/outbox/loop.ts";
import { emitWebhookEvent } from "../../src/webhooks/events.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { statelessJsonServer } from "../support/mcp-servers.ts";
import { api, connectOk, FLAG } from "../connectors/helpers.ts";
import { recordingTransport, seedCustomer, seedSeriesOrg, type SeriesOrg, step } from "../campaigns/helpers.ts";
import { createEndpoint, deliveries, type Receiver, startReceiver } from "./helpers.ts";

let app: TestApp;
let sender: Sender;
const mail = recordingTransport();
const receivers: Receiver[] = [];

beforeAll(async () => {
  app = await createTestApp({ NODE_ENV: "development" });
  sender = createSender(app.deps, { transport: mail });
}, 60_000);
afterAll(async () => {
  await sender.stop();
  for (const r of receivers) r.close();
  await app.close();
}, 30_000);

async function setup(eventTypes: string[]) {
  const org = await seedSeriesOrg(app);
  const receiver = startReceiver(app);
  receivers.push(receiver);
  const endpoint = await createEndpoint(app, org.auth, receiver, eventTypes);
  return { org, receiver, endpoint };
}

const sdk = (org: SeriesOrg, path: string, json: unknown) => app.request(path, { json, headers: { authorization: `Bearer ${org.widget_key}` } });

describe("events after the change, signed and verifiable", () => {
  test("ticket.created after POST /api/sdk/tickets/create", async () => {
    const { org, receiver } = await setup(["ticket.created"]);
    const res = await sdk(org, "/api/sdk/tickets/create", { user_id: "u-1", subject: "Printer on fire", message: "Help" });
    expect(res.status).toBe(201);
    const ticket = (await res.json()) as any;
    await sender.tick();
    expect(receiver.received).toHaveLength(1);
    const [got] = receiver.received;
    expect(got!.verifiedWith).toEqual([true]);
    expect(got!.headers["content-type"]).toBe("application/json");
    expect(got!.headers["webhook-id"]).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(got!.headers["webhook-timestamp"]).toBe(String(Math.floor(app.clock.now.getTime() / 1000)));
    expect(got!.json.type).toBe("ticket.created");
    expect(got!.json.version).toBe(1);
    expect(got!.json.data.id).toBe(ticket.id);
    expect(got!.json.data.subject).toBe("Printer on fire");
    expect(got!.json.data.updated_at).toBe(ticket.updated_at ?? got!.json.data.created_at);
  });

  test("conversation.routed after a chat message asks for a person (with the ticket)", async () => {
    const { org, receiver } = await setup(["conversation.routed", "ticket.created"]);
    const res = await sdk(org, "/api/sdk/chat", { message: "I want to talk to a person" });
    expect(res.status).toBe(200);
    await sender.tick();
    const routed = receiver.received.filter((r) => r.json.type === "conversation.routed");
    expect(routed).toHaveLength(1);
    expect(routed[0]!.verifiedWith).toEqual([true]);
    expect(routed[0]!.json.data.reason).toBe("live_help");
    expect(routed[0]!.json.data.to).toBe("person");
    expect(routed[0]!.json.data.ticket.conversation_id).toBe(routed[0]!.json.data.conversation_id);
    expect(receiver.received.filter((r) => r.json.type === "ticket.created")).toHaveLength(1);
  });

  test("campaign.message.sent when a series email is sent; campaign.unsubscribed after a one-click unsubscribe", async () => {
    const { org, receiver } = await setup(["campaign.unsubscribed", "campaign.message.sent"]);
    const acting = { orgId: org.org_id, actor: { kind: "system" as const, name: "test" } };
    const c = await createCampaign(app.deps, { ...acting, input: { name: "Hooks", slug: "hooks", steps: [step("Hello")] } });
    await setCampaignStatus(app.deps, { ...acting, ref: c.id, to: "active" });
    const customer = await seedCustomer(app, org.org_id, { email: "hook-reader@example.com" });
    await enrolCustomer(app.deps, { ...acting, campaign: (await findCampaign(app.deps, org.org_id, c.id))!, endUser: customer, source: "api" });
    await sender.tick();
    const sent = mail.sent.find((m) => m.to === "hook-reader@example.com")!;
    const url = sent.headers["List-Unsubscribe"]!.slice(1, -1);
    await sender.tick();
    expect(receiver.received.map((r) => r.json.type)).toEqual(["campaign.message.sent"]);
    expect(receiver.received[0]!.json.data).toMatchObject({ campaign_id: c.id, customer_id: customer.id, subject: "Hello" });
    const res = await app.handle(
      new Request(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click" }),
    );
    expect(res.status).toBe(200);
    await sender.tick();
    expect(receiver.received).toHaveLength(2);
    const unsubscribed = receiver.received[1]!;
    expect(unsubscribed.verifiedWith).toEqual([true]);
    expect(unsubscribed.json.type).toBe("campaign.unsubscribed");
    expect(unsubscribed.json.data.customer_id).toBe(customer.id);
  });

  test("an unsubscribed type is not delivered; a rolled-back change announces nothing", async () => {
    const { org, receiver } = await setup(["campaign.unsubscribed"]);
    expect((await sdk(org, "/api/sdk/tickets/create", { user_id: "u-2", subject: "s", message: "m" })).status).toBe(201);
    // An event recorded in a transaction that rolls back leaves nothing to deliver.
    const rollback = app.deps.db.transaction(async (tx) => {
      await emitWebhookEvent(tx, {
        orgId: org.org_id,
        type: "campaign.unsubscribed",
        data: { customer_id: "x", updated_at: app.clock.now.toISOString() },
        now: app.clock.now,
      });
      throw new Error("the change failed");
    });
    expect(
      await rollback.then(
        () => "committed",
        (error: Error) => error.message,
      ),
    ).toBe("the change failed");
    await sender.tick();
    expect(receiver.received).toHaveLength(0);
    // The same call committed is delivered.
    await app.deps.db.transaction((tx) =>
      emitWebhookEvent(tx, {
        orgId: org.org_id,
        type: "campaign.unsubscribed",
        data: { customer_id: "y", updated_at: app.clock.now.toISOString() },
        now: app.clock.now,
      }),
    );
    await sender.tick();
    expect(receiver.received.map((r) => r.json.data.customer_id)).toEqual(["y"]);
  });
});

describe("retries, the guard, redirects", () => {
  test("500 twice then 200: three requests, one webhook-id, growing delays", async () => {
    const { org, receiver, endpoint } = await setup(["ticket.created"]);
    receiver.script.push(500, 500);
    await sdk(org, "/api/sdk/tickets/create", { user_id: "u-3", subject: "Retry me", message: "m" });
    await sender.tick();
    expect(receiver.received).toHaveLength(1);
    // Not due before the first wait (5 s, plus at most 10 % jitter).
    app.clock.advance(4_000);
    await sender.tick();
    expect(receiver.received).toHaveLength(1);
    app.clock.advance(2_000);
    await sender.tick();
    expect(receiver.received).toHaveLength(2);
    app.clock.advance(4 * 60_000);
    await sender.tick();
    expect(receiver.received).toHaveLength(2);
    app.clock.advance(2 * 60_000);
    await sender.tick();
    expect(receiver.received).toHaveLength(3);
    const ids = new Set(receiver.received.map((r) => r.headers["webhook-id"]));
    expect(ids.size).toBe(1);
    for (const r of receiver.received) expect(r.verifiedWith).toEqual([true]);
    const [a, b, c] = receiver.received.map((r) => r.at);
    expect(b! - a!).toBeLessThan(c! - b!);
    // Each retry carries a fresh timestamp (receivers refuse old ones) over the same body.
    expect(new Set(receiver.received.map((r) => r.headers["webhook-timestamp"])).size).toBe(3);
    expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1);

    const [log] = await deliveries(app, org.auth, endpoint.id);
    expect(log.status).toBe("succeeded");
    expect(log.webhook_id).toBe(receiver.received[0]!.headers["webhook-id"]);
    expect(log.attempts.map((x: any) => x.status_code)).toEqual([500, 500, 200]);
    expect(log.attempts.map((x: any) => x.success)).toEqual([false, false, true]);
    // The answer is kept truncated to 1 KiB.
    expect(log.attempts[0].response_body.length).toBe(1024);
    expect(log.next_retry_at).toBeNull();
  });

  test("a private address is refused at creation and at delivery", async () => {
    const org = await seedSeriesOrg(app);
    app.hosts.set("hooks.private.example", ["10.20.30.40"]);
    const refused = await app.request("/api/webhooks/endpoints", {
      headers: org.auth,
      json: { url: "https://hooks.private.example/in", event_types: ["ticket.created"] },
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain("blocked address");
    for (const url of ["http://10.0.0.1/hooks", "https://169.254.169.254/latest", "https://metadata.google.internal/x", "ftp://example.com/x"])
      expect((await app.request("/api/webhooks/endpoints", { headers: org.auth, json: { url, event_types: ["ticket.created"] } })).status).toBe(400);

    // Accepted while the name is loopback (development), then it resolves to a private address.
    const receiver = startReceiver(app, "hooks.flip.example");
    receivers.push(receiver);
    app.hosts.set("hooks.flip.example", ["127.0.0.1"]);
    const endpoint = await createEndpoint(app, org.auth, receiver, ["ticket.created"]);
    app.hosts.set("hooks.flip.example", ["10.20.30.40"]);
    await sdk(org, "/api/sdk/tickets/create", { user_id: "u-4", subject: "s", message: "m" });
    await sender.tick();
    expect(receiver.received).toHaveLength(0);
    const [log] = await deliveries(app, org.auth, endpoint.id);
    expect(log.status).toBe("pending");
    expect(log.attempts).toHaveLength(1);
    expect(log.attempts[0].status_code).toBeNull();
    expect(log.attempts[0].error).toContain("blocked address");
    expect(log.next_retry_at).not.toBeNull();
  });

  test("no answer within 15 s is a failed attempt, retried (the deadline follows the test clock)", async () => {
    const { org, receiver, endpoint } = await setup(["ticket.created"]);
    receiver.hang = true;
    await sdk(org, "/api/sdk/tickets/create", { user_id: "u-7", subject: "slow", message: "m" });
    const arrived = receiver.next();
    const tick = sender.tick();
    await arrived;
    app.clock.advance(14_999);
    expect(await deliveries(app, org.auth, endpoint.id).then((d) => d[0].attempts.length)).toBe(0);
    app.clock.advance(1);
    await tick;
    const [log] = await deliveries(app, org.auth, endpoint.id);
    expect(log.status).toBe("pending");
    expect(log.attempts[0].error).toBe("no answer within 15 s");
    expect(log.attempts[0].status_code).toBeNull();
    // The retry is answered: the log keeps both attempts.
    receiver.hang = false;
    app.clock.advance(6_000);
    await sender.tick();
    expect((await deliveries(app, org.auth, endpoint.id))[0].attempts.map((a: any) => a.status_code)).toEqual([null, 200]);
  });

  test("a binary answer is kept in the log (NUL replaced), never breaks the delivery", async () => {
    const { org, receiver, endpoint } = await setup(["ticket.created"]);
    receiver.answerBody = "ok\0\u0001binary";
    await sdk(org, "/api/sdk/tickets/create", { user_id: "u-8", subject: "s", message: "m" });
    await sender.tick();
    const [log] = await deliveries(app, org.auth, endpoint.id);
    expect(log.status).toBe("succeeded");
    expect(log.attempts[0].response_body).toBe("ok\uFFFD\u0001binary");
  });

  test("a redirect is not followed", async () => {
    const { org, receiver, endpoint } = await setup(["ticket.created"]);
    const target = startReceiver(app);
    receivers.push(target);
    receiver.script.push(307);
    receiver.answerHeaders = { location: target.url };
    await sdk(org, "/api/sdk/tickets/create", { user_id: "u-5", subject: "s", message: "m" });
    await sender.tick();
    expect(receiver.received).toHaveLength(1);
    expect(target.received).toHaveLength(0);
    const [log] = await deliveries(app, org.auth, endpoint.id);
    expect(log.status).toBe("pending");
    expect(log.attempts[0].error).toContain("redirects are not followed");
  });
});

describe("secret rotation", () => {
  test("during the overlap either secret verifies; after it only the new one", async () => {
    const { org, receiver, endpoint } = await setup(["ticket.created"]);
    const rotated = await app.request(`/api/webhooks/endpoints/${endpoint.id}/rotate-secret`, { method: "POST", headers: org.auth });
    expect(rotated.status).toBe(200);
    const next = (await rotated.json()) as any;
    expect(next.secret).toMatch(/^whsec_/);
    expect(next.secret).not.toBe(endpoint.secret);
    receiver.secrets.push(next.secret); // [old, new]
    // The secret is never shown again.
    expect(JSON.stringify(await (await app.request(`/api/webhooks/endpoints/${endpoint.id}`, { headers: org.auth })).json())).not.toContain("whsec_");

    await sdk(org, "/api/sdk/tickets/create", { user_id: "u-6", subject: "during", message: "m" });
    await sender.tick();
    expect(receiver.received[0]!.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(receiver.received[0]!.verifiedWith).toEqual([true, true]);

    app.clock.advance(24 * 3600_000 + 1000);
    await sdk(org, "/api/sdk/tickets/create", { user_id: "u-6", subject: "after", message: "m" });
    await sender.tick();
    const after = receiver.received.find((r) => r.json.data.subject === "after")!;
    expect(after.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
    expect(after.verifiedWith).toEqual([false, true]);
  });
});

describe("connector.status_changed", () => {
  test("announced when discovery connects a server and when it fails, committed with the status", async () => {
    const org = await seedOrg(app, { flags: [FLAG] });
    const auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
    const receiver = startReceiver(app);
    receivers.push(receiver);
    await createEndpoint(app, auth, receiver, ["connector.status_changed"]);
    const server = await statelessJsonServer();
    try {
      const connected = await connectOk(app, auth, { name: "Fixture", slug: "fixture", url: server.url });
      expect(connected.status).toBe("connected");
      await server.stop();
      app.clock.advance(1000);
      expect((await api(app, auth).refresh(connected.id)).status).toBe(200);
      await sender.tick();
      // Delivered concurrently, so in either order (ordering is not promised): sorted by updated_at, as a receiver would.
      const byTime = receiver.received.toSorted((x, y) => x.json.data.updated_at.localeCompare(y.json.data.updated_at));
      expect(byTime.map((r) => [r.json.data.previous_status, r.json.data.status])).toEqual([
        ["pending", "connected"],
        ["connected", "error"],
      ]);
      expect(receiver.received.every((r) => r.verifiedWith[0] === true && r.json.data.id === connected.id)).toBe(true);
      // A discovery that leaves the status as it was announces nothing.
      expect((await api(app, auth).refresh(connected.id)).status).toBe(200);
      await sender.tick();
      expect(receiver.received).toHaveLength(2);
    } finally {
      await server.stop().catch(() => {});
    }
  });
});

describe("customer.identified", () => {
  test("announced when an identify sets or changes a customer's fields; an identify that changes nothing announces nothing", async () => {
    const { org, receiver } = await setup(["customer.identified"]);
    expect((await sdk(org, "/api/sdk/users/identify", { user_id: "ada", email: "ada@example.com", name: "Ada" })).status).toBe(200);
    expect((await sdk(org, "/api/sdk/users/identify", { user_id: "ada", email: "ada@example.com", name: "Ada" })).status).toBe(200);
    app.clock.advance(1000);
    expect((await sdk(org, "/api/sdk/users/identify", { user_id: "ada", custom_fields: { plan: "pro" } })).status).toBe(200);
    await sender.tick();
    const events = receiver.received.map((r) => r.json).toSorted((a, b) => a.data.updated_at.localeCompare(b.data.updated_at));
    expect(events.map((e) => [e.type, e.data.external_id, e.data.email, e.data.traits])).toEqual([
      ["customer.identified", "ada", "ada@example.com", {}],
      ["customer.identified", "ada", "ada@example.com", { plan: "pro" }],
    ]);
    expect(events[0]!.data.verified).toBe(false);
    expect(receiver.received.every((r) => r.verifiedWith[0] === true)).toBe(true);
  });
});

describe("ticket events", () => {
  test("ticket.updated and ticket.message.created (replies and customer messages, never internal notes); conversation.escalated", async () => {
    const { org, receiver } = await setup(["ticket.updated", "ticket.message.created", "conversation.escalated"]);
    const actor = { kind: "member" as const, memberId: org.adminId };
    const ticket = await createTicket(app.deps, { orgId: org.org_id, actor, input: { subject: "Billing", message: "Hi", source: "api" } });
    await addTicketMessage(app.deps, { orgId: org.org_id, actor, ticketId: ticket.id, kind: "note", body: "internal: VIP customer" });
    await addTicketMessage(app.deps, { orgId: org.org_id, actor, ticketId: ticket.id, kind: "reply", body: "We are on it" });
    await updateTicket(app.deps, { orgId: org.org_id, actor, ticketId: ticket.id, patch: { status: "resolved", priority: "high" } });
    const conversationId = crypto.randomUUID();
    await createTicket(app.deps, {
      orgId: org.org_id,
      actor: { kind: "agent", agentId: null },
      input: { subject: "Angry", message: "transcript", source: "chat", conversationId, chatReason: "frustration" },
    });
    await sender.tick();
    const byType = Map.groupBy(receiver.received, (r) => r.json.type);
    expect(byType.get("ticket.message.created")!.map((r) => [r.json.data.message.kind, r.json.data.message.body])).toEqual([["reply", "We are on it"]]);
    expect(receiver.received.some((r) => r.body.includes("VIP"))).toBe(false);
    expect(byType.get("ticket.updated")!.map((r) => [r.json.data.status, r.json.data.priority, r.json.data.changed])).toEqual([
      ["resolved", "high", ["status", "priority"]],
    ]);
    expect(byType.get("conversation.escalated")!.map((r) => [r.json.data.conversation_id, r.json.data.reason, r.json.data.ticket.subject])).toEqual([
      [conversationId, "frustration", "Angry"],
    ]);
  });
});
