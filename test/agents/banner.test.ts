// A fresh start prints the demo agent's id, and that id is the
// demo org's active agent in the agents API, with its help articles in place. (The README's
// "Try a connector" walkthrough continues from here.)
import { afterAll, describe, expect, test } from "bun:test";
import { DEMO_DOCS } from "../../src/orgs/demo.ts";
import { engine, seedDataDir } from "../support/db.ts";
import { bannerPassword, type RunningServer, startServer, tempDir } from "../support/process.ts";

let server: RunningServer | undefined;
afterAll(() => {
  server?.proc.kill("SIGKILL");
});

describe.skipIf(engine !== "pglite")("start banner", () => {
  test("names the demo agent, which GET /api/agents lists as active", async () => {
    // A migrated, empty database (the cached dump): the start seeds the demo as a first start does.
    const dataDir = tempDir();
    await seedDataDir(dataDir);
    server = await startServer({ DATA_DIR: dataDir });
    const field = (label: string) => new RegExp(`^${label}:\\s+(\\S+)`, "m").exec(server!.stdout())?.[1];
    const agentId = field("Demo agent");
    expect(agentId).toMatch(/^[0-9a-f-]{36}$/);
    const signIn = await fetch(`${server.url}/api/auth/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: field("Demo admin"), password: bannerPassword(server.stdout()) }),
    });
    const { token } = (await signIn.json()) as { token: string };
    const headers = { authorization: `Bearer ${token}` };
    const { agents } = (await (await fetch(`${server.url}/api/agents`, { headers })).json()) as { agents: { id: string; status: string }[] };
    expect(agents).toEqual([expect.objectContaining({ id: agentId, status: "active" })]);
    const { docs } = (await (await fetch(`${server.url}/api/docs`, { headers })).json()) as { docs: unknown[] };
    expect(docs.length).toBe(DEMO_DOCS.length);
    expect(await server.stop()).toBe(0);
  }, 90_000);
});
