// Chat knowledge through POST /api/sdk/chat with the builtin provider: a message without content
// gets no knowledge answer; a follow-up is answered from the page the conversation is about; a
// typo and a written-together variant still find their page; an edit is seen by the next question.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";

let app: TestApp;
let key: string;
let member: string;
const ids: Record<string, string> = {};

const PAGES = {
  passport: {
    title: "Renew a passport",
    body: "## Who can renew\nAdults whose last passport was issued in the past 15 years can renew by mail.\n\n## Processing times\nRoutine service takes 6 to 8 weeks. Expedited service takes 2 to 3 weeks for an extra fee.",
  },
  license: {
    title: "Exchange a driver license",
    body: "## Non-citizen applicants\nA non-citizen with a foreign license must pass a road test.\n\n## Processing times\nA new license card arrives by mail within 2 weeks.",
  },
  disability: {
    title: "Disability benefits",
    body: "## Who qualifies\nWorkers who paid Social Security taxes and have a medical condition expected to last a year can get disability benefits.",
  },
  plates: { title: "Personalized plates", body: "## Order personalized plates\nChoose a combination of letters online and pay the yearly fee." },
};

async function chat(body: Record<string, unknown>) {
  const res = await app.request("/api/sdk/chat", { method: "POST", headers: { authorization: `Bearer ${key}` }, json: body });
  expect(res.status).toBe(200);
  return (await res.json()) as { text: string; sources: { doc_id: string }[]; confidence: number; session_id: string };
}

beforeAll(async () => {
  app = await createTestApp({ LLM_PROVIDER: "builtin" });
  const org = await seedOrg(app);
  key = org.widget_key;
  member = await signIn(app, org.admin_email, org.password);
  for (const [name, page] of Object.entries(PAGES)) {
    const res = await app.request("/api/docs", { method: "POST", headers: { authorization: `Bearer ${member}` }, json: page });
    expect(res.status).toBe(201);
    ids[name] = ((await res.json()) as { id: string }).id;
  }
}, 60_000);
afterAll(() => app.close());

describe("chat knowledge", () => {
  for (const message of ["yes", "ok", "hello"])
    test(`"${message}" alone gets no knowledge answer`, async () => {
      const answer = await chat({ message });
      expect(answer.sources).toEqual([]);
      expect(answer.text).not.toContain("From ");
    });

  test("a follow-up sent with conversation_history is answered from the page of the earlier turn", async () => {
    // "How long does it take?" alone could be either page's processing times.
    const history = [
      { speaker: "user", text: "I want to renew my passport" },
      { speaker: "agent", text: "You can renew by mail." },
    ];
    const answer = await chat({ message: "How long does it take to process?", conversation_history: history });
    expect(answer.sources[0]?.doc_id).toBe(ids.passport!);
    expect(answer.text).toContain("6 to 8 weeks");
    const other = await chat({
      message: "How long does it take to process?",
      conversation_history: [{ speaker: "user", text: "I need to exchange my driver license" }],
    });
    expect(other.sources[0]?.doc_id).toBe(ids.license!);
  });

  test("the same in a session the server knows: the earlier customer turn counts", async () => {
    const first = await chat({ message: "Can I renew my passport by mail?" });
    expect(first.sources[0]?.doc_id).toBe(ids.passport!);
    const next = await chat({ message: "How long does it take to process?", session_id: first.session_id });
    expect(next.sources[0]?.doc_id).toBe(ids.passport!);
    const other = await chat({ message: "Can I exchange my driver license?" });
    expect(other.sources[0]?.doc_id).toBe(ids.license!);
    expect((await chat({ message: "How long does it take to process?", session_id: other.session_id })).sources[0]?.doc_id).toBe(ids.license!);
  });

  test("a typo and a written-together variant still find their page", async () => {
    expect((await chat({ message: "Can I get disablilty benefits?" })).sources[0]?.doc_id).toBe(ids.disability!);
    expect((await chat({ message: "I am a noncitizen, can I exchange my license?" })).sources[0]?.doc_id).toBe(ids.license!);
    expect((await chat({ message: "non citizen road test" })).sources[0]?.doc_id).toBe(ids.license!);
  });

  test("an edit, a draft and a deletion are seen by the next question", async () => {
    const ask = async () => (await chat({ message: "What does the vanity sticker cost?" })).sources.map((s) => s.doc_id);
    expect(await ask()).not.toContain(ids.plates!);
    const patch = (body: Record<string, unknown>) =>
      app.request(`/api/docs/${ids.plates}`, { method: "PATCH", headers: { authorization: `Bearer ${member}` }, json: body });
    expect((await patch({ body: "## Vanity sticker\nThe vanity sticker costs 60 dollars a year." })).status).toBe(200);
    expect((await ask())[0]).toBe(ids.plates!);
    expect((await patch({ status: "draft" })).status).toBe(200);
    expect(await ask()).not.toContain(ids.plates!);
    expect((await patch({ status: "published" })).status).toBe(200);
    expect((await ask())[0]).toBe(ids.plates!);
    expect((await app.request(`/api/docs/${ids.plates}`, { method: "DELETE", headers: { authorization: `Bearer ${member}` } })).status).toBe(204);
    expect(await ask()).not.toContain(ids.plates!);
  });
});
