// An org's own speech servers (README "Voice and video"): PUT /api/speech (org:manage) checks each
// URL with the outbound guard, stores the keys encrypted and never returns them, forgets a key
// when its URL changes; the voice endpoints then go to the org's servers (through the guard), with
// the org's key, and /api/sdk/config says server speech is available.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { updateAgent } from "../../src/agents/service.ts";
import { orgSpeechSettings } from "../../src/db/schema/index.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { fakeSpeech, type FakeSpeech, toneWav } from "../support/fake-speech.ts";

describe("saved under the guard's production rules", () => {
  let app: TestApp;
  let org: Awaited<ReturnType<typeof seedOrg>>;
  let auth: Record<string, string>;
  beforeAll(async () => {
    app = await createTestApp();
    org = await seedOrg(app);
    auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
    app.hosts.set("speech.example.com", ["93.184.216.34"]);
    app.hosts.set("intranet.example.com", ["10.1.2.3"]);
  }, 60_000);
  afterAll(() => app.close());
  const put = (json: unknown) => app.request("/api/speech", { method: "PUT", json, headers: auth });

  test("keys stored encrypted and never returned; a new URL without a key forgets the old key; null removes a server", async () => {
    const res = await put({
      stt: { base_url: "https://speech.example.com/v1/", model: "whisper-large-v3", api_key: "sk-stt-secret" },
      tts: { base_url: "https://speech.example.com/v1", voice: "af_bella", api_key: "sk-tts-secret" },
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain("secret");
    expect(JSON.parse(text)).toEqual({
      stt: { base_url: "https://speech.example.com/v1", model: "whisper-large-v3", api_key_set: true },
      tts: { base_url: "https://speech.example.com/v1", model: null, voice: "af_bella", api_key_set: true },
      operator: { stt: false, tts: false },
    });
    const [row] = await app.deps.db.select().from(orgSpeechSettings).where(eq(orgSpeechSettings.orgId, org.org_id));
    expect(JSON.stringify(row)).not.toContain("secret");
    // The same URL keeps the key; another URL without a key forgets it.
    const kept = await (await put({ stt: { base_url: "https://speech.example.com/v1" }, tts: { base_url: "https://speech.example.com/v2" } })).json();
    expect([kept.stt.api_key_set, kept.tts.api_key_set]).toEqual([true, false]);
    expect(await (await put({ stt: null, tts: null })).json()).toMatchObject({ stt: null, tts: null });
    expect((await app.request("/api/speech", { headers: auth })).status).toBe(200);
  });

  test("a URL to a private address, with a query, or not https is 400 naming the field; nothing stored", async () => {
    for (const [stt, path] of [
      [{ base_url: "https://intranet.example.com/v1" }, "/stt/base_url"],
      [{ base_url: "http://speech.example.com/v1" }, "/stt/base_url"],
      [{ base_url: "https://speech.example.com/v1?x=1" }, "/stt/base_url"],
      [{ base_url: "https://speech.example.com/v1", api_key: "has space" }, "/stt/api_key"],
    ] as const) {
      const res = await put({ stt, tts: null });
      expect([stt.base_url, res.status]).toEqual([stt.base_url, 400]);
      expect(((await res.json()) as { error: { details: { path: string }[] } }).error.details.map((d) => d.path)).toContain(path);
    }
    expect((await app.request("/api/speech", { method: "PUT", json: { stt: null, tts: null } })).status).toBe(401);
  });

  test("the guard runs again on every request: a host that now resolves to a private address is refused, 503 speech_failed", async () => {
    app.hosts.set("flip.example.com", ["93.184.216.34"]);
    expect((await put({ stt: { base_url: "https://flip.example.com/v1" }, tts: null })).status).toBe(200);
    app.hosts.set("flip.example.com", ["127.0.0.1"]);
    const res = await app.request("/api/sdk/voice/transcribe", {
      method: "POST",
      body: toneWav(0.3) as Uint8Array<ArrayBuffer>,
      headers: { authorization: `Bearer ${org.widget_key}`, "content-type": "audio/wav" },
    });
    expect(res.status).toBe(503);
    const error = ((await res.json()) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("speech_failed");
    expect(error.message).toContain("not allowed");
  });
});

describe("used by the voice endpoints", () => {
  let app: TestApp;
  let speech: FakeSpeech;
  let org: Awaited<ReturnType<typeof seedOrg>>;
  beforeAll(async () => {
    speech = await fakeSpeech({ transcript: "Where is my parcel?" });
    // development: the guard lets loopback through, so the org's server can be the fake one.
    app = await createTestApp({ NODE_ENV: "development" });
    org = await seedOrg(app);
    const auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
    const res = await app.request("/api/speech", {
      method: "PUT",
      json: { stt: { base_url: speech.baseUrl, api_key: "sk-org-stt" }, tts: { base_url: speech.baseUrl, voice: "af_sky" } },
      headers: auth,
    });
    expect(res.status).toBe(200);
    await updateAgent(app.deps, org.org_id, { kind: "system", name: "test" }, org.agent_id, { voice_config: { enabled: true, stt: "server", tts: "server" } });
  }, 60_000);
  afterAll(async () => {
    speech.close();
    await app.close();
  });
  const send = (path: string, body: BodyInit, type: string) =>
    app.request(path, { method: "POST", body, headers: { authorization: `Bearer ${org.widget_key}`, "content-type": type } });

  test("transcribe and speech go to the org's servers with the org's key and voice; the config says server", async () => {
    const heard = await send("/api/sdk/voice/transcribe", toneWav(0.5) as Uint8Array<ArrayBuffer>, "audio/wav");
    expect(heard.status).toBe(200);
    expect(((await heard.json()) as { text: string }).text).toBe("Where is my parcel?");
    expect(speech.requests.at(-1)!.headers.authorization).toBe("Bearer sk-org-stt");
    const said = await send("/api/sdk/voice/speech", JSON.stringify({ text: "On its way." }), "application/json");
    expect(said.status).toBe(200);
    await said.arrayBuffer();
    expect(speech.requests.at(-1)!.fields).toMatchObject({ input: "On its way.", voice: "af_sky", model: "tts-1" });
    expect(speech.requests.at(-1)!.headers.authorization).toBeUndefined();
    const config = await (await app.request(`/api/sdk/config?org_id=${org.org_id}`)).json();
    expect(config.agent.voice_config).toMatchObject({ enabled: true, stt: "server", tts: "server" });
  });
});
