// Shared steps of the knowledge-source tests.
import type { TestApp } from "../support/app.ts";

/** Starts a sync (unless `start` is false: one runs already) and polls the source until it is no longer syncing. */
export async function syncAndWait(app: TestApp, token: string, id: string, start = true): Promise<any> {
  const headers = { authorization: `Bearer ${token}` };
  if (start) {
    const res = await app.request(`/api/knowledge/sources/${id}/sync`, { method: "POST", headers });
    if (res.status !== 202) throw new Error(`sync now: ${res.status} ${await res.text()}`);
  }
  for (;;) {
    const res = await app.request(`/api/knowledge/sources/${id}`, { headers });
    const body = (await res.json()) as any;
    if (body.status !== "syncing") return body;
    await Bun.sleep(20);
  }
}
