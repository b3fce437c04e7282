// A loopback shop help centre crawled from its sitemap whose every article ends with the same
// "Still stuck? Contact support … Back to all articles" block (docs/decisions.md "Boilerplate is not
// knowledge"): the block is kept in the stored pages, but no answer comes from it — no reply
// quotes it, no page is found for it — an off-topic question gets no knowledge answer, and "how do I
// contact support" finds the contact page by its own text.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { listDocs } from "../../src/knowledge/docs.ts";
import { searchIndex } from "../../src/knowledge/tools.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { syncAndWait } from "./helpers.ts";

const ARTICLES: Record<string, { title: string; text: string }> = {
  "/returns.html": { title: "Return policy", text: "You can return any unworn item within 30 days of delivery for a full refund." },
  "/shipping-ch.html": {
    title: "Shipping to Switzerland",
    text: "Parcels to Switzerland travel with Swiss Post and arrive in three to five working days; duties are prepaid.",
  },
  "/payment.html": { title: "Payment methods", text: "We accept Visa, Mastercard, American Express and PayPal. Business customers may pay by invoice." },
  "/sizes.html": { title: "Size guide", text: "Measure your chest and waist, then compare them with the size chart on each product page." },
  "/password.html": { title: "Reset your password", text: "Use the reset link on the sign-in page; the email with a new link arrives within minutes." },
  "/gift-cards.html": { title: "Gift cards", text: "Enter the gift card code at checkout. Gift cards are valid for two years from purchase." },
  "/wool.html": { title: "Caring for wool", text: "Wash wool garments by hand in cold water and dry them flat, away from the sun." },
  "/order-status.html": { title: "Where is my order?", text: "The tracking link in your shipping confirmation shows where your parcel is right now." },
  "/cancel.html": { title: "Cancelling an order", text: "An order can be cancelled from your account until it has been packed, usually within two hours." },
  "/exchange.html": {
    title: "Exchanging a size",
    text: "Ask for an exchange from your orders page; we send the new size once the first one is on its way back.",
  },
  "/contact.html": {
    title: "Contacting support",
    text: "To contact our support team, use the contact form on this page or call us on 0800 123 456, Monday to Friday from 9 am to 6 pm.",
  },
};

const FOOTER =
  '<h2>Still stuck? Contact support</h2><p>Our friendly team is happy to help with anything these articles do not answer, by email or live chat.</p><p><a href="/index.html">Back to all articles</a></p>';

function page(title: string, text: string): string {
  return `<!doctype html><html><head><title>${title}</title></head><body><main><article><h1>${title}</h1><p>${text}</p>${FOOTER}</article></main></body></html>`;
}

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let server: ReturnType<typeof Bun.serve>;
let origin = "";

async function chat(message: string) {
  const res = await app.request("/api/sdk/chat", { method: "POST", headers: { authorization: `Bearer ${org.widget_key}` }, json: { message } });
  expect(res.status).toBe(200);
  return (await res.json()) as { text: string; sources: { doc_id: string; url?: string; title: string }[]; confidence: number };
}

beforeAll(async () => {
  app = await createTestApp({ NODE_ENV: "development", WEBSITE_CRAWL_DELAY_MS: "0", LLM_PROVIDER: "builtin" });
  org = await seedOrg(app);
  const token = await signIn(app, org.admin_email, org.password);
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const path = new URL(request.url).pathname;
      if (path === "/robots.txt") return new Response("User-agent: *\n", { headers: { "content-type": "text/plain" } });
      if (path === "/sitemap.xml")
        return new Response(
          `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${Object.keys(ARTICLES)
            .map((p) => `<url><loc>${origin}${p}</loc></url>`)
            .join("")}</urlset>`,
          { headers: { "content-type": "application/xml" } },
        );
      const found = ARTICLES[path];
      if (!found) return new Response("not here", { status: 404 });
      return new Response(page(found.title, found.text), { headers: { "content-type": "text/html; charset=utf-8" } });
    },
  });
  origin = `http://127.0.0.1:${server.port}`;
  const created = await app.request("/api/knowledge/sources", {
    headers: { authorization: `Bearer ${token}` },
    json: { kind: "website", name: "Shop help centre", start_url: `${origin}/sitemap.xml` },
  });
  expect(created.status).toBe(201);
  const synced = await syncAndWait(app, token, ((await created.json()) as { id: string }).id, false);
  expect(synced.status).toBe("ready");
}, 60_000);

afterAll(async () => {
  server.stop(true);
  await app.close();
});

const FOOTER_WORDS = ["Still stuck", "happy to help", "Back to all articles"];

describe("a help centre whose every page ends with the same support block", () => {
  test("the block is stored with every page (the crawl keeps it; the index leaves it out)", async () => {
    const docs = await listDocs(app.deps, org.org_id, { limit: 50, offset: 0 });
    expect(docs).toHaveLength(Object.keys(ARTICLES).length);
    for (const doc of docs) expect(doc.body).toContain("Still stuck? Contact support");
  });

  test("an off-topic question gets no knowledge answer", async () => {
    const answer = await chat("How do I turn on two-factor authentication?");
    expect(answer.confidence).toBeLessThan(0.5);
    expect(answer.text).toStartWith("I'm sorry, I couldn't find an answer to that in our help articles");
    for (const words of FOOTER_WORDS) expect(answer.text).not.toContain(words);
  });

  test("'how do I contact support' finds the contact page by its own text", async () => {
    const answer = await chat("how do I contact support");
    expect(answer.sources[0]?.url).toBe(`${origin}/contact.html`);
    expect(answer.text).toContain("0800 123 456");
    for (const words of FOOTER_WORDS) expect(answer.text).not.toContain(words);
  });

  test("no reply quotes the block, and no page is found for its words alone", async () => {
    for (const question of ["Can I return a jumper?", "How long does shipping to Switzerland take?", "Which cards do you accept?", "Is there a live chat?"]) {
      const answer = await chat(question);
      for (const words of FOOTER_WORDS) expect(answer.text).not.toContain(words);
    }
    const footerOnly = await chat("Still stuck? Back to all articles");
    expect(footerOnly.confidence).toBeLessThan(0.5);
    for (const words of FOOTER_WORDS) expect(footerOnly.text).not.toContain(words);
    // search_docs: snippets come from the text the index holds.
    for (const hit of await searchIndex(app.deps, org.org_id, "contact support friendly team", 5))
      for (const words of FOOTER_WORDS) expect(hit.snippet).not.toContain(words);
  });
});
