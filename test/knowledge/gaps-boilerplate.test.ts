// GET /api/knowledge/gaps counts the `boilerplate` reason (docs/decisions.md "Knowledge gaps:
// what counts as one"): a help centre whose pages all end with the same "Still stuck?" footer
// naming a phone line has no page about phoning; asked "What is your phone number?", the agent
// refuses (the footer is left out of what the index answers from), and the gap says the only text
// on it is page furniture. A question no text at all holds is a gap for low confidence alone; and
// once a page of its own says it, the same earlier answer is no longer counted as boilerplate.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";

const FOOTER = "## Still stuck?\nCall our phone line, open every weekday.\n[Back to all articles](/index.html)";
const PAGES = [
  { title: "Shipping times", body: `## Delivery\nParcels arrive within 3 to 5 business days by courier.\n\n${FOOTER}` },
  { title: "Returns", body: `## Sending shoes back\nReturn unworn shoes within 30 days with the prepaid label.\n\n${FOOTER}` },
  { title: "Payment options", body: `## What we accept\nPay by credit card, PayPal or invoice.\n\n${FOOTER}` },
  { title: "Sizes", body: `## Finding your size\nMeasure your foot in centimetres and compare it with the size table.\n\n${FOOTER}` },
];

interface Gap {
  questions: string[];
  count: number;
  by_reason: Record<string, number>;
  conversations: { reasons: string[] }[];
}

let app: TestApp;
let auth: { authorization: string };
let widget: { authorization: string };

async function chat(message: string) {
  const res = await app.request("/api/sdk/chat", { method: "POST", headers: widget, json: { message } });
  expect(res.status).toBe(200);
  return (await res.json()) as { confidence: number; sources: { title: string }[] };
}

async function gaps(): Promise<Gap[]> {
  const res = await app.request("/api/knowledge/gaps", { headers: auth });
  expect(res.status).toBe(200);
  return ((await res.json()) as { gaps: Gap[] }).gaps;
}

beforeAll(async () => {
  app = await createTestApp({ LLM_PROVIDER: "builtin" });
  const org = await seedOrg(app);
  auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
  widget = { authorization: `Bearer ${org.widget_key}` };
  for (const page of PAGES) {
    const res = await app.request("/api/docs", { method: "POST", headers: auth, json: page });
    expect(res.status).toBe(201);
  }
}, 90_000);
afterAll(() => app.close());

test("a question whose words only the shared footer holds is a gap for boilerplate; one no text holds is not", async () => {
  expect((await chat("What is your phone number?")).confidence).toBeLessThan(0.5);
  expect((await chat("Do you repair umbrellas?")).confidence).toBeLessThan(0.5);
  const list = await gaps();
  const phone = list.find((g) => g.questions.includes("What is your phone number?"));
  expect(phone?.by_reason).toEqual({ low_confidence: 1, not_helpful: 0, handed_off: 0, boilerplate: 1 });
  expect(phone!.conversations.map((c) => c.reasons)).toEqual([["low_confidence", "boilerplate"]]);
  const umbrellas = list.find((g) => g.questions.includes("Do you repair umbrellas?"));
  expect(umbrellas?.by_reason).toEqual({ low_confidence: 1, not_helpful: 0, handed_off: 0, boilerplate: 0 });
});

test("once a page of its own says it, the word is knowledge: the gap stays, the boilerplate reason goes", async () => {
  const res = await app.request("/api/docs", {
    method: "POST",
    headers: auth,
    json: { title: "Calling us", body: "## Phone\nOur phone line is open on weekdays from 9 to 5." },
  });
  expect(res.status).toBe(201);
  const phone = (await gaps()).find((g) => g.questions.includes("What is your phone number?"));
  expect(phone?.by_reason).toEqual({ low_confidence: 1, not_helpful: 0, handed_off: 0, boilerplate: 0 });
});
