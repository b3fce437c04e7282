// The widget's public API on window (README "Widget SDK"): identify, open, close, track,
// createTicket, on, sessionId — also callable as `SvcAgents("identify", {...})`, and the calls the
// snippet's stub queued before the script loaded run once the widget is ready.
import type { Identity, Json, Stored } from "./store.ts";

export type EventName = "message" | "routed" | "open" | "close";

declare global {
  interface Window {
    SvcAgents?: unknown;
  }
}

export interface ApiContext {
  state: Stored;
  listeners: Record<EventName, ((data: unknown) => void)[]>;
  post(path: string, body: Json): Promise<Json>;
  /** user_id and user_token of the identified customer, for request bodies. */
  who(): Json;
  open(): void;
  close(): void;
  /** Takes `user` as the customer from now on (a different one starts a new conversation). */
  identify(user: Identity): void;
}

/** Puts the API on window; returns the function that runs the queued calls. */
export function installApi(ctx: ApiContext): () => void {
  const { state, listeners } = ctx;
  const api = {
    identify(user: Identity) {
      // not for customers: the embedding page's developer
      if (!user || typeof user.user_id !== "string") return Promise.reject(new TypeError("identify needs a user_id"));
      ctx.identify(user);
      // `locale` is the widget's language (README "Languages"), not a field of the customer record.
      const { locale: _locale, ...customer } = user;
      // The chat this visitor started before signing in becomes theirs, and so does its waiting ticket (README "Widget SDK").
      const body: Json = { ...customer, ...(state.sessionId ? { session_id: state.sessionId } : {}) };
      return ctx.post("/api/sdk/users/identify", body).catch((error: { body?: Json }) => {
        // A session the service no longer knows, or another customer's: identify without it (the next message starts a new chat).
        const code = (error.body?.error as Json | undefined)?.code;
        if (body.session_id === undefined || (code !== "session_not_found" && code !== "session_forbidden")) throw error;
        return ctx.post("/api/sdk/users/identify", { ...customer });
      });
    },
    open: () => ctx.open(),
    close: () => ctx.close(),
    track(name: string, properties?: Json) {
      const event: Json = { name, ...(properties ? { properties } : {}) };
      return ctx.post("/api/sdk/events", {
        events: [event],
        ...ctx.who(),
        anonymous_id: state.visitorId,
        ...(state.sessionId ? { session_id: state.sessionId } : {}),
      });
    },
    createTicket(ticket: { subject: string; message: string; email?: string; name?: string; priority?: string; custom_fields?: Json }) {
      return ctx.post("/api/sdk/tickets/create", { ...ticket, ...ctx.who(), ...(state.sessionId ? { session_id: state.sessionId } : {}) });
    },
    on(name: EventName, fn: (data: unknown) => void) {
      listeners[name]?.push(fn);
      return () => {
        listeners[name] = listeners[name].filter((f) => f !== fn);
      };
    },
    /** The current chat session (X-Session-Id), or null before the first message. */
    sessionId: () => state.sessionId,
  };
  const callable = Object.assign((method: keyof typeof api, ...args: unknown[]) => (api[method] as (...a: unknown[]) => unknown)(...args), api, {
    loaded: true,
  });
  const queued = (window.SvcAgents as { q?: IArguments[] } | undefined)?.q ?? [];
  window.SvcAgents = callable;
  return () => {
    for (const args of queued) (callable as (...a: unknown[]) => unknown)(...Array.from(args));
  };
}

/** The locale of an identify() the snippet's stub queued before the script loaded: the first config asks for it. */
export function queuedLocale(): string | null {
  const queued = (window.SvcAgents as { q?: IArguments[] } | undefined)?.q ?? [];
  let locale: string | null = null;
  for (const args of queued) {
    const [method, user] = Array.from(args) as [unknown, { locale?: unknown } | undefined];
    if (method === "identify" && typeof user?.locale === "string") locale = user.locale;
  }
  return locale;
}

/** GET /api/sdk/config in a locale (README "Widget SDK", "Languages"); null when it fails (the widget keeps its defaults). */
export async function loadConfig(base: string, orgId: string, locale: string | null): Promise<Json | null> {
  try {
    const query = `org_id=${encodeURIComponent(orgId)}${locale ? `&locale=${encodeURIComponent(locale)}` : ""}`;
    const res = await fetch(`${base}/api/sdk/config?${query}`);
    return res.ok ? ((await res.json()) as Json) : null;
  } catch {
    return null;
  }
}

/** The listeners of the public API's events; one that throws is logged, and the rest still run. */
export function eventHub() {
  const listeners: Record<EventName, ((data: unknown) => void)[]> = { message: [], routed: [], open: [], close: [] };
  const emit = (name: EventName, data: unknown) => {
    for (const fn of listeners[name]) {
      try {
        fn(data);
      } catch (error) {
        console.error(error);
      }
    }
  };
  return { listeners, emit };
}
