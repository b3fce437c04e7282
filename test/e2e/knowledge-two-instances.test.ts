// Two instances on one PostgreSQL: a document created, edited and deleted through one instance is
// what the very next chat question on the other answers from — each instance's in-memory index is
// checked against the org's documents' version before every question (docs/decisions.md "Knowledge retrieval").
import { afterAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { createTestDatabase, engine, type TestDatabase } from "../support/db.ts";
import { type RunningServer, startServer, bannerPassword } from "../support/process.ts";

const running: RunningServer[] = [];
let db: TestDatabase | undefined;
afterAll(async () => {
  for (const s of running) s.proc.kill("SIGKILL");
  await db?.close();
}, 30_000);

function banner(stdout: string) {
  const field = (label: string) => new RegExp(`^${label}:\\s+(\\S+)`, "m").exec(stdout)?.[1];
  return { email: field("Demo admin")!, password: bannerPassword(stdout) ?? field("Password")!, widgetKey: field("Widget key")! };
}

describe.skipIf(engine !== "postgres")("knowledge on two instances", () => {
  test("a document created, edited and deleted on B is what the next question on A answers from", async () => {
    db = await createTestDatabase();
    const env = { DATABASE_URL: db.url!, SECRET_KEY: randomBytes(32).toString("base64"), SEED_DEMO: "1", LLM_PROVIDER: "builtin" };
    const a = await startServer(env);
    running.push(a);
    const printed = banner(a.stdout());
    const b = await startServer(env);
    running.push(b);

    const ask = async (message: string) => {
      const res = await fetch(`${a.url}/api/sdk/chat`, {
        method: "POST",
        headers: { authorization: `Bearer ${printed.widgetKey}`, "content-type": "application/json" },
        body: JSON.stringify({ message }),
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { sources: { doc_id: string }[] }).sources.map((s) => s.doc_id);
    };
    const signIn = await fetch(`${b.url}/api/auth/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: printed.email, password: printed.password }),
    });
    const member = { authorization: `Bearer ${((await signIn.json()) as { token: string }).token}`, "content-type": "application/json" };

    // A has built its index before the change.
    expect(await ask("Where is the rooftop lounge?")).toEqual([]);
    const created = await fetch(`${b.url}/api/docs`, {
      method: "POST",
      headers: member,
      body: JSON.stringify({ title: "Visiting our office", body: "## Rooftop lounge\nThe rooftop lounge is on the ninth floor." }),
    });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { id: string }).id;
    expect((await ask("Where is the rooftop lounge?"))[0]).toBe(id);

    const edited = await fetch(`${b.url}/api/docs/${id}`, {
      method: "PATCH",
      headers: member,
      body: JSON.stringify({ body: "## Garden terrace\nThe garden terrace is behind the reception." }),
    });
    expect(edited.status).toBe(200);
    expect(await ask("Where is the rooftop lounge?")).not.toContain(id);
    expect((await ask("Where is the garden terrace?"))[0]).toBe(id);

    expect((await fetch(`${b.url}/api/docs/${id}`, { method: "DELETE", headers: member })).status).toBe(204);
    expect(await ask("Where is the garden terrace?")).not.toContain(id);
  }, 120_000);
});
