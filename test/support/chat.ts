// Shared set-up for the chat tests: an org with a knowledge base, widget requests, stream reading.
import { createDoc } from "../../src/knowledge/docs.ts";
import { seedOrg, type TestApp } from "./app.ts";

export type ChatOrg = Awaited<ReturnType<typeof seedOrg>>;

export const RESET_DOC = {
  title: "Reset your password",
  url: "https://help.example.com/reset-password",
  body: [
    "# Reset your password",
    "",
    "If you forgot your password, open the sign-in page and choose **Forgot password**.",
    "We email you a reset link that stays valid for 30 minutes. Open it and choose a new password.",
    "",
    "## Two-factor codes",
    "",
    "Lost your phone? Use one of the backup codes you saved when you turned two-factor authentication on.",
  ].join("\n"),
};

export const BILLING_DOC = {
  title: "Invoices and billing",
  url: "https://help.example.com/invoices",
  body: "Invoices are emailed on the first day of each month. Download past invoices from Settings, then Billing.",
};

export async function seedChatOrg(app: TestApp, options: { docs?: boolean } = {}): Promise<ChatOrg> {
  const org = await seedOrg(app);
  if (options.docs !== false) {
    await createDoc(app.deps, org.org_id, RESET_DOC);
    await createDoc(app.deps, org.org_id, BILLING_DOC);
  }
  return org;
}

export function chat(app: TestApp, org: ChatOrg, body: Record<string, unknown>, path = "/api/sdk/chat", headers: Record<string, string> = {}) {
  return app.request(path, { json: body, headers: { authorization: `Bearer ${org.widget_key}`, ...headers } });
}

export async function chatJson(app: TestApp, org: ChatOrg, body: Record<string, unknown>) {
  const res = await chat(app, org, body);
  const json = (await res.json()) as any;
  if (res.status !== 200) throw new Error(`chat failed: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Reads a streamed body chunk by chunk (as decoded text pieces). */
export async function readChunks(response: Response): Promise<string[]> {
  const decoder = new TextDecoder();
  const out: string[] = [];
  const reader = response.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(decoder.decode(value, { stream: true }));
  }
}

/** The JSON of every record of one kind in a stream body. */
export function records(body: string, kind: "ACTION" | "ACTIONS" | "ERROR"): unknown[] {
  return [...body.matchAll(new RegExp(`\\x1e__${kind}__([^\\x1e]*)\\x1e`, "g"))].map((m) => JSON.parse(m[1]!));
}
