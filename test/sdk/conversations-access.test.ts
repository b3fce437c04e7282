// Who may read a conversation and its events (the chat's binding rules), every new input bounded
// (at the limit passes, one over is 400), and the stream caps at their boundary.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/app.ts";
import { readEvents } from "../support/sse.ts";
import { chatJson, type ChatOrg, seedChatOrg } from "../support/chat.ts";
import { userToken } from "./helpers.ts";

let app: TestApp;
let org: ChatOrg;
let other: ChatOrg;
beforeAll(async () => {
  app = await createTestApp({ SDK_STREAMS_PER_KEY_IP: "2", SDK_STREAMS_MAX: "3" });
  org = await seedChatOrg(app, { docs: false });
  other = await seedChatOrg(app, { docs: false });
}, 30_000);
afterAll(() => app.close());

function get(path: string, headers: Record<string, string> = {}, options: { key?: string; ip?: string } = {}) {
  return app.request(path, { headers: { authorization: `Bearer ${options.key ?? org.widget_key}`, ...headers }, ip: options.ip ?? "198.51.100.1" });
}
const both = (sessionId: string) => [`/api/sdk/conversations/${sessionId}`, `/api/sdk/conversations/${sessionId}/events`];
async function code(res: Response) {
  const body = (await res.json()) as any;
  return `${res.status} ${body.error?.code}`;
}

describe("binding rules: no history and no events for anyone else", () => {
  test("another customer's session, no user at all, another org's key, an unknown session, no key", async () => {
    const { session_id } = await chatJson(app, org, { message: "hello", user_id: "owner-1" });
    for (const path of both(session_id)) {
      expect(await code(await get(path, { "x-user-id": "someone-else" }))).toBe("403 session_forbidden");
      expect(await code(await get(`${path}${path.includes("?") ? "&" : "?"}user_id=someone-else`))).toBe("403 session_forbidden");
      expect(await code(await get(path))).toBe("403 session_forbidden");
      expect(await code(await get(path, { "x-user-id": "owner-1" }, { key: other.widget_key }))).toBe("404 not_found");
      expect((await app.request(path)).status).toBe(401);
    }
    expect(await code(await get("/api/sdk/conversations/cs_nothing_here"))).toBe("404 not_found");
    expect((await get(both(session_id)[0]!, { "x-user-id": "owner-1" })).status).toBe(200);
  });

  test("a verified customer's session needs their user_token (header or query); another customer's token is refused", async () => {
    const token = await userToken(org.identity_secret, { user_id: "verified-1" });
    const { session_id } = await chatJson(app, org, { message: "hello", user_id: "verified-1", user_token: token });
    const [history, events] = both(session_id) as [string, string];
    expect(await code(await get(history, { "x-user-id": "verified-1" }))).toBe("403 user_token_required");
    expect(await code(await get(events, { "x-user-id": "verified-1" }))).toBe("403 user_token_required");
    expect(await code(await get(history))).toBe("403 user_token_required");
    const stranger = await userToken(org.identity_secret, { user_id: "verified-2" });
    expect(await code(await get(history, { "x-user-token": stranger }))).toBe("403 user_token_mismatch");
    expect(await code(await get(history, { "x-user-token": stranger, "x-user-id": "verified-2" }))).toBe("403 session_forbidden");
    expect(await code(await get(history, { "x-user-token": stranger, "x-user-id": "verified-1" }))).toBe("403 user_token_mismatch");
    const forged = await userToken("not-the-secret", { user_id: "verified-1" });
    expect(await code(await get(history, { "x-user-token": forged }))).toBe("403 user_token_invalid");
    expect((await get(history, { "x-user-token": token })).status).toBe(200);
    expect((await get(`${history}?user_token=${token}`)).status).toBe(200);
    const stream = await get(`${events}?user_token=${token}&user_id=verified-1`);
    expect(stream.status).toBe(200);
    readEvents(stream).close();
  });

  test("an anonymous visitor's session is read with its id alone (the id is the bearer secret)", async () => {
    const { session_id } = await chatJson(app, org, { message: "hello" });
    const res = await get(both(session_id)[0]!);
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).messages[0]).toMatchObject({ kind: "customer", text: "hello" });
  });
});

describe("bounded input: documented 400s, never a 5xx", () => {
  test("session_id, user_id, user_token and Last-Event-ID at their limits pass, one over is 400", async () => {
    const { session_id } = await chatJson(app, org, { message: "hello", user_id: "bounds-1" });
    expect((await get(`/api/sdk/conversations/${"s".repeat(128)}`)).status).toBe(404);
    expect(await code(await get(`/api/sdk/conversations/${"s".repeat(129)}`))).toBe("400 validation_failed");
    expect(await code(await get(both(session_id)[0]!, { "x-user-id": "u".repeat(256) }))).toBe("403 session_forbidden");
    expect(await code(await get(both(session_id)[0]!, { "x-user-id": "u".repeat(257) }))).toBe("400 validation_failed");
    expect(await code(await get(`${both(session_id)[0]!}?user_id=${"u".repeat(257)}`))).toBe("400 validation_failed");
    expect(await code(await get(both(session_id)[0]!, { "x-user-token": "t".repeat(4096) }))).toBe("403 user_token_invalid");
    expect(await code(await get(both(session_id)[0]!, { "x-user-token": "t".repeat(4097) }))).toBe("400 validation_failed");
    const events = both(session_id)[1]!;
    const ok = await get(events, { "x-user-id": "bounds-1", "last-event-id": "9".repeat(15) });
    expect(ok.status).toBe(200);
    readEvents(ok).close();
    for (const bad of ["9".repeat(16), "abc", "-1", "1.5", "1 2"])
      expect(await code(await get(events, { "x-user-id": "bounds-1", "last-event-id": bad }))).toBe("400 validation_failed");
    expect(await code(await get(`${events}?user_id=bounds-1&last_event_id=x`))).toBe("400 validation_failed");
  });
});

describe("stream caps (SDK_STREAMS_PER_KEY_IP=2, SDK_STREAMS_MAX=3)", () => {
  test("per widget key and address: the second stream opens, the third is 429 too_many_streams; closing one frees its place", async () => {
    const { session_id } = await chatJson(app, org, { message: "hello", user_id: "caps-1" });
    const open = (ip: string) => get(both(session_id)[1]!, { "x-user-id": "caps-1" }, { ip });
    const a = readEvents(await open("192.0.2.1"));
    const second = await open("192.0.2.1");
    expect(second.status).toBe(200);
    const b = readEvents(second);
    const third = await open("192.0.2.1");
    expect(third.status).toBe(429);
    expect(third.headers.get("retry-after")).not.toBeNull();
    expect(((await third.json()) as any).error.code).toBe("too_many_streams");
    a.close();
    await a.ended;
    const again = await open("192.0.2.1");
    expect(again.status).toBe(200);
    readEvents(again).close();
    b.close();
    await b.ended;
  });

  test("per process: the third stream opens, the fourth is 429 whatever its address", async () => {
    const { session_id } = await chatJson(app, org, { message: "hello", user_id: "caps-2" });
    const open = (ip: string) => get(both(session_id)[1]!, { "x-user-id": "caps-2" }, { ip });
    const readers = [];
    for (const ip of ["192.0.2.10", "192.0.2.10", "192.0.2.11"]) {
      const res = await open(ip);
      expect(res.status).toBe(200);
      readers.push(readEvents(res));
    }
    expect(app.deps.live.open).toBe(3);
    expect(await code(await open("192.0.2.12"))).toBe("429 too_many_streams");
    for (const r of readers) r.close();
    await Promise.all(readers.map((r) => r.ended));
  });
});

describe("from a customer's site", () => {
  test("the stream and its preflight are CORS-readable, with the identity and resume headers allowed", async () => {
    const { session_id } = await chatJson(app, org, { message: "hello" });
    const res = await get(both(session_id)[1]!, { origin: "https://shop.example" }, { ip: "198.51.100.77" });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    readEvents(res).close();
    const preflight = await app.request(both(session_id)[1]!, {
      method: "OPTIONS",
      headers: {
        origin: "https://shop.example",
        "access-control-request-method": "GET",
        "access-control-request-headers": "authorization,last-event-id,x-user-token,x-user-id",
      },
    });
    expect(preflight.status).toBe(204);
    const allowed = preflight.headers.get("access-control-allow-headers")!.toLowerCase();
    for (const header of ["authorization", "last-event-id", "x-user-token", "x-user-id"]) expect(allowed).toContain(header);
  });
});
