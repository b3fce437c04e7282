// Passage vectors leave out what the lexical index leaves out (docs/decisions.md "Boilerplate is
// not knowledge"): a help centre whose pages all end with the same "Still stuck? Contact support"
// block is embedded (src/knowledge/embed-job.ts) without that block — the embeddings server is
// never sent it and no stored passage holds it — while each page's own text is embedded. Against a
// loopback server speaking the OpenAI embeddings wire format; PGlite, and PostgreSQL with
// TEST_DATABASE_URL.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { passageEmbeddings } from "../../src/db/schema/index.ts";
import { embedPendingDocs } from "../../src/knowledge/embed-job.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { type FakeEmbeddings, fakeEmbeddings } from "../support/fake-embeddings.ts";

const FOOTER = "## Still stuck?\nContact our support team, we answer within a day.\n[Back to all articles](/index.html)";

const PAGES = [
  { title: "Shipping times", body: `## Delivery\nParcels arrive within 3 to 5 business days by courier.\n\n${FOOTER}` },
  { title: "Returns", body: `## Sending shoes back\nReturn unworn shoes within 30 days with the prepaid label.\n\n${FOOTER}` },
  { title: "Payment options", body: `## What we accept\nPay by credit card, PayPal or invoice.\n\n${FOOTER}` },
  { title: "Sizes", body: `## Finding your size\nMeasure your foot in centimetres and compare it with the size table.\n\n${FOOTER}` },
];

let server: FakeEmbeddings;
let app: TestApp;
let orgId: string;

beforeAll(async () => {
  server = fakeEmbeddings({});
  app = await createTestApp({ LLM_PROVIDER: "builtin", EMBEDDINGS_URL: server.baseUrl, EMBEDDINGS_MODEL: "fake-embed" });
  const org = await seedOrg(app);
  orgId = org.org_id;
  const member = await signIn(app, org.admin_email, org.password);
  for (const page of PAGES) {
    const res = await app.request("/api/docs", { method: "POST", headers: { authorization: `Bearer ${member}` }, json: page });
    expect(res.status).toBe(201);
  }
}, 120_000);
afterAll(async () => {
  await app.close();
  server.close();
});

test("a footer every page shares is neither sent to the embeddings server nor stored as a passage; each page's own text is", async () => {
  const run = await embedPendingDocs(app.deps);
  expect(run.docs).toBe(PAGES.length);
  expect(server.inputs.length).toBeGreaterThanOrEqual(PAGES.length);
  for (const input of server.inputs) {
    expect(input).not.toContain("Still stuck");
    expect(input).not.toContain("Contact our support team");
    expect(input).not.toContain("Back to all articles");
  }
  const rows = await app.deps.db
    .select({ text: passageEmbeddings.text, headings: passageEmbeddings.headings })
    .from(passageEmbeddings)
    .where(eq(passageEmbeddings.orgId, orgId));
  expect(rows.some((r) => r.text.includes("Contact our support team") || r.headings.includes("Still stuck?"))).toBe(false);
  for (const sentence of ["Parcels arrive within 3 to 5", "Return unworn shoes", "Pay by credit card", "Measure your foot"])
    expect(rows.filter((r) => r.text.includes(sentence))).toHaveLength(1);
});
