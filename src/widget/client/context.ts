// What the widget's parts share: the key and base URL, the stored state, the DOM, the customer, the
// page's event listeners — one object, built once by ./main.ts and handed to each part.
import type { EventName } from "./api.ts";
import type { buildShell } from "./dom.ts";
import type { Identity, Json, Stored } from "./store.ts";

export type Shell = ReturnType<typeof buildShell>;

export interface Widget {
  key: string;
  base: string;
  state: Stored;
  save(): void;
  shell: Shell;
  /** The identified customer (SvcAgents("identify")), or null. */
  identity: Identity | null;
  liveHelpLabel: string;
  greeting: string;
  listeners: Record<EventName, ((data: unknown) => void)[]>;
  /** Context for the next chat request (docs/interface.md 2.5 `context`), sent once: the help articles read (./help.ts). */
  chatContext: Json | null;
  emit(name: EventName, data: unknown): void;
}

export function createWidget(key: string, base: string, opened: { state: Stored; save(): void }, shell: Shell): Widget {
  const listeners: Record<EventName, ((data: unknown) => void)[]> = { message: [], routed: [], open: [], close: [] };
  return {
    key,
    base,
    ...opened,
    shell,
    identity: null,
    liveHelpLabel: "Talk to a person",
    greeting: "Ask us anything. Answers come from our help articles; a person is one click away.",
    listeners,
    chatContext: null,
    emit(name, data) {
      for (const fn of listeners[name]) {
        try {
          fn(data);
        } catch (error) {
          console.error(error);
        }
      }
    },
  };
}

/** The headers of every call to the service: the publishable key, never a cookie. */
export const jsonHeaders = (w: Widget) => ({ Authorization: `Bearer ${w.key}`, "Content-Type": "application/json" });

/** user_id and user_token of the identified customer, for request bodies. */
export const who = (w: Widget): Json =>
  w.identity ? { user_id: w.identity.user_id, ...(w.identity.user_token ? { user_token: w.identity.user_token } : {}) } : {};

/** A JSON POST to the service; a non-2xx answer throws with its message, status and body. */
export async function post(w: Widget, path: string, body: Json): Promise<Json> {
  const res = await fetch(`${w.base}${path}`, { method: "POST", headers: jsonHeaders(w), body: JSON.stringify(body) });
  const json = (await res.json().catch(() => ({}))) as Json;
  if (!res.ok)
    throw Object.assign(new Error(((json.error as Json | undefined)?.message as string) ?? `HTTP ${res.status}`), { status: res.status, body: json });
  return json;
}
