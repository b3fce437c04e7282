// Hybrid retrieval with an embeddings server (README "Measuring answers", docs/decisions.md
// "Knowledge retrieval"), against a loopback server speaking the OpenAI embeddings wire format
// whose vectors make "reimbursement for a double payment" mean "refund of a duplicate charge"
// without a word in common: the background job embeds the org's passages; a question with no
// lexical overlap is answered from the page that means it only with hybrid on; an edit re-embeds
// only the passages it changed and changes the answer; a deleted page's vectors go with it; a
// failing server leaves answers lexical. Runs on PGlite, and on PostgreSQL with TEST_DATABASE_URL.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { retrieve } from "../../src/agents/pipeline/knowledge.ts";
import { loadConfig } from "../../src/config.ts";
import { passageEmbeddings } from "../../src/db/schema/index.ts";
import type { Deps } from "../../src/deps.ts";
import { embedPendingDocs } from "../../src/knowledge/embed-job.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { type FakeEmbeddings, fakeEmbeddings } from "../support/fake-embeddings.ts";

const CONCEPTS = { reimbursement: "refund", refunds: "refund", double: "duplicate", twice: "duplicate", payment: "charge", charged: "charge" };
const QUESTION = "Can I get a reimbursement for a double payment?";

let server: FakeEmbeddings;
let app: TestApp;
let orgId: string;
let key: string;
let member: string;
const ids: Record<string, string> = {};

const PAGES = {
  refunds: { title: "Refunds", body: "## Charged twice\nWe return the duplicate charge to your card within 5 business days." },
  shipping: { title: "Shipping times", body: "## Delivery\nParcels arrive within 3 to 5 business days by courier." },
  password: { title: "Reset your password", body: "## Forgotten password\nUse the reset link on the sign-in page." },
};

async function chat(message: string) {
  const res = await app.request("/api/sdk/chat", { method: "POST", headers: { authorization: `Bearer ${key}` }, json: { message } });
  expect(res.status).toBe(200);
  return (await res.json()) as { text: string; sources: { doc_id: string }[]; confidence: number };
}

async function status() {
  const res = await app.request("/api/knowledge/embeddings", { headers: { authorization: `Bearer ${member}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as {
    configured: boolean;
    model?: string;
    documents: number;
    embedded: number;
    refused: number;
    last_error?: { message: string; at: string };
  };
}

/** The same deps without an embeddings server: retrieval as it is without EMBEDDINGS_*. */
const lexicalOnly = (): Deps => ({ ...app.deps, config: { ...app.deps.config, embeddings: undefined } });

beforeAll(async () => {
  server = fakeEmbeddings(CONCEPTS);
  app = await createTestApp({
    LLM_PROVIDER: "builtin",
    EMBEDDINGS_URL: server.baseUrl,
    EMBEDDINGS_MODEL: "fake-embed",
    EMBEDDINGS_API_KEY: "sk-test-embeddings",
    EMBEDDINGS_BATCH: "2",
  });
  const org = await seedOrg(app);
  orgId = org.org_id;
  key = org.widget_key;
  member = await signIn(app, org.admin_email, org.password);
  for (const [name, page] of Object.entries(PAGES)) {
    const res = await app.request("/api/docs", { method: "POST", headers: { authorization: `Bearer ${member}` }, json: page });
    expect(res.status).toBe(201);
    ids[name] = ((await res.json()) as { id: string }).id;
  }
}, 120_000);
afterAll(async () => {
  await app.close();
  server.close();
});

describe("configuration", () => {
  test("EMBEDDINGS_URL needs a model and an http(s) URL; unset, there is no embeddings server", () => {
    expect(loadConfig({}).embeddings).toBeUndefined();
    expect(() => loadConfig({ EMBEDDINGS_URL: "http://127.0.0.1:11434/v1" })).toThrow("EMBEDDINGS_MODEL is required");
    expect(() => loadConfig({ EMBEDDINGS_URL: "ftp://example.com", EMBEDDINGS_MODEL: "m" })).toThrow("EMBEDDINGS_URL must be an absolute http(s) URL");
    expect(() => loadConfig({ EMBEDDINGS_URL: "http://h/v1", EMBEDDINGS_MODEL: "m", EMBEDDINGS_MIN_SIMILARITY: "1.5" })).toThrow("EMBEDDINGS_MIN_SIMILARITY");
    expect(loadConfig({ EMBEDDINGS_URL: "http://h/v1/", EMBEDDINGS_MODEL: "m" }).embeddings).toMatchObject({
      baseUrl: "http://h/v1",
      model: "m",
      batch: 64,
      questionTimeoutMs: 1500,
      minSimilarity: 0.5,
    });
  });
});

describe("hybrid retrieval", () => {
  test("the job embeds every passage in batches, with the model and the key; the status shows the progress", async () => {
    expect(await status()).toEqual({ configured: true, model: "fake-embed", documents: 3, embedded: 0, refused: 0 });
    const run = await embedPendingDocs(app.deps);
    expect(run).toEqual({ docs: 3, passages: 3 });
    expect(server.requests.map((r) => r.count)).toEqual([1, 1, 1]); // one passage per page; batches never mix pages' requests beyond EMBEDDINGS_BATCH
    expect(server.requests.every((r) => r.model === "fake-embed" && r.authorization === "Bearer sk-test-embeddings")).toBe(true);
    expect(server.inputs.find((i) => i.includes("duplicate charge"))).toBe(
      "Refunds\nCharged twice\nWe return the duplicate charge to your card within 5 business days.",
    );
    expect(await status()).toEqual({ configured: true, model: "fake-embed", documents: 3, embedded: 3, refused: 0 });
    expect(await embedPendingDocs(app.deps)).toEqual({ docs: 0, passages: 0 }); // nothing left to do
  });

  test("a question sharing no word with the page that means it is answered from that page only with hybrid on, as a lead", async () => {
    expect(await retrieve(lexicalOnly(), orgId, QUESTION)).toEqual([]);
    const passages = await retrieve(app.deps, orgId, QUESTION);
    expect(passages[0]?.docId).toBe(ids.refunds!);
    const answer = await chat(QUESTION);
    expect(answer.sources[0]?.doc_id).toBe(ids.refunds!);
    expect(answer.text).toContain('This article may help: "Refunds"');
    expect(answer.text).toContain("duplicate charge");
    // Found by meaning alone: lexical evidence is what confidence reads, so a person is offered.
    expect(answer.confidence).toBeLessThan(0.5);
  });

  test("where both rankings agree, the answer and its evidence are the lexical ones", async () => {
    const hybrid = await retrieve(app.deps, orgId, "How do I reset my forgotten password?");
    const lexical = await retrieve(lexicalOnly(), orgId, "How do I reset my forgotten password?");
    expect(hybrid[0]?.docId).toBe(ids.password!);
    expect(hybrid[0]).toEqual(lexical[0]!);
  });

  test("an edit re-embeds only the passages it changed, and the answer follows the new text", async () => {
    server.inputs.length = 0;
    const res = await app.request(`/api/docs/${ids.shipping}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${member}` },
      json: { body: `${PAGES.shipping.body}\n\n## Charged twice for shipping\nWe refund a duplicate shipping charge at once.` },
    });
    expect(res.status).toBe(200);
    const edit = await app.request(`/api/docs/${ids.refunds}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${member}` },
      json: { body: "## Store credit\nReturns are given as store credit." },
    });
    expect(edit.status).toBe(200);
    expect((await status()).embedded).toBe(1);
    // Until the job has run, the edited pages' old vectors are not used.
    expect((await retrieve(app.deps, orgId, QUESTION)).map((p) => p.docId)).toEqual([]);
    expect(await embedPendingDocs(app.deps)).toEqual({ docs: 2, passages: 2 });
    expect(server.inputs.filter((i) => i !== QUESTION).sort()).toEqual([
      "Refunds\nStore credit\nReturns are given as store credit.",
      "Shipping times\nCharged twice for shipping\nWe refund a duplicate shipping charge at once.",
    ]);
    const answer = await chat(QUESTION);
    expect(answer.sources[0]?.doc_id).toBe(ids.shipping!);
    expect(answer.text).toContain("duplicate shipping charge");
    expect((await status()).embedded).toBe(3);
  });

  test("a deleted page's vectors are deleted with it", async () => {
    const count = async () =>
      (await app.deps.db.select({ id: passageEmbeddings.id }).from(passageEmbeddings).where(eq(passageEmbeddings.docId, ids.password!))).length;
    expect(await count()).toBe(1);
    expect((await app.request(`/api/docs/${ids.password}`, { method: "DELETE", headers: { authorization: `Bearer ${member}` } })).status).toBe(204);
    expect(await count()).toBe(0);
    expect(await status()).toMatchObject({ documents: 2, embedded: 2 });
  });

  test("a failing server: the job records the error and throws; questions are answered lexically", async () => {
    server.fail = true;
    const res = await app.request("/api/docs", {
      method: "POST",
      headers: { authorization: `Bearer ${member}` },
      json: { title: "Gift cards", body: "Gift cards never expire." },
    });
    expect(res.status).toBe(201);
    const failure = await embedPendingDocs(app.deps).then(
      () => null,
      (error: Error) => error,
    );
    expect(failure?.message).toContain("the embeddings server answered 500");
    const now = await status();
    expect(now).toMatchObject({ documents: 3, embedded: 2 });
    expect(now.last_error?.message).toContain("the model is not loaded");
    const lexical = await chat("Do gift cards expire?");
    expect(lexical.text).toContain("Gift cards never expire.");
    expect(app.logs.some((l) => l.msg === "question embedding failed; answering lexically" && !JSON.stringify(l).includes("gift"))).toBe(true);
    // The question by meaning alone finds nothing without its vector.
    expect((await chat(QUESTION)).sources).toEqual([]);
    server.fail = false;
    expect(await embedPendingDocs(app.deps)).toEqual({ docs: 1, passages: 1 });
    expect((await status()).last_error).toBeUndefined();
  });

  test("a failure of our own (here the database refusing the write) is recorded as internal, never with its statement or the passage text", async () => {
    const res = await app.request("/api/docs", {
      method: "POST",
      headers: { authorization: `Bearer ${member}` },
      json: { title: "Loyalty points", body: "Points expire after a year." },
    });
    expect(res.status).toBe(201);
    const db = new Proxy(app.deps.db, {
      get: (target, name) =>
        name === "transaction"
          ? () => Promise.reject(new Error('Failed query: insert into "passage_embeddings" params: Points expire after a year.'))
          : Reflect.get(target, name),
    });
    const failure = await embedPendingDocs({ ...app.deps, db }).then(
      () => null,
      (error: Error) => error,
    );
    expect(failure?.message).toContain("Failed query"); // thrown to the job runner, which logs it
    const said = (await status()).last_error?.message ?? "";
    expect(said).toStartWith("an internal error stopped the run");
    expect(said).not.toContain("Points expire");
    expect(await embedPendingDocs(app.deps)).toEqual({ docs: 1, passages: 1 });
  });

  test("a document whose input the server refuses (400) is passed over and named; the others go on; an edit tries it again", async () => {
    server.refuseWord = "Overlong";
    const post = async (title: string, body: string) => {
      const res = await app.request("/api/docs", { method: "POST", headers: { authorization: `Bearer ${member}` }, json: { title, body } });
      expect(res.status).toBe(201);
      return ((await res.json()) as { id: string }).id;
    };
    const refused = await post("Overlong terms", "The whole contract, pasted in one go.");
    await post("Opening hours", "We answer from 9 to 5 on weekdays.");
    // The refused one is the oldest change, so it comes first: the run does not stop at it.
    expect(await embedPendingDocs(app.deps)).toEqual({ docs: 1, passages: 1 });
    const after = await status();
    expect(after).toMatchObject({ documents: 6, embedded: 5, refused: 1 });
    expect(after.last_error?.message).toContain("“Overlong terms” was not embedded: the embeddings server answered 400");
    // The next run does not send it again.
    const sent = server.requests.length;
    expect(await embedPendingDocs(app.deps)).toEqual({ docs: 0, passages: 0 });
    expect(server.requests.length).toBe(sent);
    // An edit is a new version: tried again, and embedded once the server takes it.
    server.refuseWord = undefined;
    const edited = await app.request(`/api/docs/${refused}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${member}` },
      json: { body: "The contract, in short: cancel any time." },
    });
    expect(edited.status).toBe(200);
    expect(await embedPendingDocs(app.deps)).toEqual({ docs: 1, passages: 1 });
    expect(await status()).toMatchObject({ documents: 6, embedded: 6, refused: 0 });
    expect((await status()).last_error).toBeUndefined();
  });
});
