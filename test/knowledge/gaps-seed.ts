// An org whose customers asked questions that are knowledge gaps for each reason, through the real
// endpoints (chat, "Did that help?", asking for a person): shared by the gaps API and page tests.
import type { TestApp } from "../support/app.ts";

export interface GapsOrg {
  widget_key: string;
  /** The session id of each conversation, by name. */
  sessions: Record<string, string>;
}

export const GAP_DOCS = [
  { title: "Resetting your password", body: "## Reset\nChoose Forgot password on the sign-in page." },
  { title: "Changing your delivery address", body: "## Delivery address\nOpen Orders, choose the order and edit its delivery address before it ships." },
];

/** Seeds the docs with `auth` and asks the questions with `widgetKey`; returns the sessions. */
export async function askGapQuestions(app: TestApp, auth: { authorization: string }, widgetKey: string): Promise<Record<string, string>> {
  for (const doc of GAP_DOCS) {
    const res = await app.request("/api/docs", { method: "POST", headers: auth, json: doc });
    if (res.status !== 201) throw new Error(`doc: ${res.status}`);
  }
  const widget = { authorization: `Bearer ${widgetKey}` };
  const chat = async (message: string, session_id?: string) => {
    const res = await app.request("/api/sdk/chat", { method: "POST", headers: widget, json: { message, ...(session_id ? { session_id } : {}) } });
    if (res.status !== 200) throw new Error(`chat: ${res.status}`);
    return (await res.json()) as { session_id: string; confidence: number; routing?: { action: string } };
  };
  const feedback = async (session: string, helpful: boolean) => {
    const res = await app.request(`/api/sdk/conversations/${session}/feedback`, { method: "POST", headers: widget, json: { helpful } });
    if (res.status !== 200) throw new Error(`feedback: ${res.status}`);
  };
  const sessions: Record<string, string> = {};
  // Answered with confidence, then marked "No": not helpful.
  const reset = await chat("How do I reset my password?");
  if (reset.confidence < 0.5) throw new Error("the password question should be answered");
  await feedback(reset.session_id, false);
  sessions.notHelpful = reset.session_id;
  // Answered with confidence and marked "Yes": no gap.
  const thanked = await chat("How can I reset my password?");
  await feedback(thanked.session_id, true);
  sessions.helpful = thanked.session_id;
  // Answered with confidence, then the customer asks for a person: handed off.
  const address = await chat("How do I change my delivery address?");
  if (address.confidence < 0.5) throw new Error("the address question should be answered");
  const person = await chat("I want to talk to a human", address.session_id);
  if (person.routing?.action !== "live_help") throw new Error("asking for a person should route to live help");
  sessions.handedOff = address.session_id;
  // Below the threshold, and marked "No" too: both reasons.
  const tokyo = await chat("Do you have an office in Tokyo?");
  if (tokyo.confidence >= 0.5) throw new Error("the Tokyo question should be a low-confidence answer");
  await feedback(tokyo.session_id, false);
  sessions.lowAndNotHelpful = tokyo.session_id;
  const where = await chat("Where is your Tokyo office?");
  if (where.confidence >= 0.5) throw new Error("the second Tokyo question should be a low-confidence answer");
  sessions.low = where.session_id;
  // A person asked for first thing: no answer before it, no gap.
  sessions.personFirst = (await chat("I want to talk to a human")).session_id;
  return sessions;
}
