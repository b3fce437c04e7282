// The live conversation (README "Live conversation"): once the chat has a session, the widget
// fetches the conversation (history up to a cursor), then reads its event stream from that cursor
// with `fetch` — so the widget key travels as a header, never in a URL — and eventsource-parser.
// After a cut it reconnects with Last-Event-ID, waiting 1 s, 2 s, 4 s … up to 30 s (with jitter,
// or the server's Retry-After); a 401, 403 or 404 means the conversation is not ours: it stops.
// Following from the first message on (not only once a ticket is open) is what lets a member join
// an AI conversation and be heard at once, and what the member's page shows as "on the site now".
import { createParser } from "eventsource-parser";
import type { Identity, Json, Stored } from "./store.ts";
import { personName, type Texts } from "./texts.ts";

export interface LiveMessage {
  id: string;
  kind: "customer" | "agent" | "person";
  author: { name: string; avatar_url?: string };
  text: string;
}

export interface LiveOptions {
  base: string;
  key: string;
  sessionId: string;
  /** X-User-Id / X-User-Token of the identified customer, if any. */
  identity: () => Record<string, string>;
  lastEventId: string | null;
  /** The conversation's messages and ticket (first, and again after each reconnect that had no cursor). */
  history(messages: LiveMessage[], ticket: { number: number; status: string } | null): void;
  message(message: LiveMessage): void;
  ticket(ticket: { number: number; status: string; joined?: { name: string } }): void;
  /** A person typing (or stopped): never stored, no event id. */
  typing?(data: { typing: boolean; name?: string }): void;
  /** Every event id as it is handled, to be stored for a reload. */
  cursor(id: string): void;
}

const MAX_DELAY_MS = 30_000;

/** Starts following the conversation; returns the function that stops. */
export function followConversation(options: LiveOptions): () => void {
  let stopped = false;
  let controller: AbortController | null = null;
  let last = options.lastEventId;
  let attempt = 0;
  const path = `${options.base}/api/sdk/conversations/${encodeURIComponent(options.sessionId)}`;
  const headers = (): Record<string, string> => ({ Authorization: `Bearer ${options.key}`, ...options.identity() });
  const gone = (status: number) => status === 401 || status === 403 || status === 404;

  const run = async () => {
    while (!stopped) {
      let wait: number | null = null;
      controller = new AbortController();
      try {
        if (last === null) {
          const res = await fetch(path, { headers: headers(), signal: controller.signal, cache: "no-store" });
          if (gone(res.status)) return;
          if (!res.ok) throw Object.assign(new Error(), { retryAfter: res.headers.get("Retry-After") });
          const view = (await res.json()) as Json;
          options.history((view.messages as LiveMessage[]) ?? [], (view.ticket as { number: number; status: string } | null) ?? null);
          last = String(view.last_event_id);
          options.cursor(last);
        }
        const res = await fetch(`${path}/events`, {
          headers: { ...headers(), Accept: "text/event-stream", "Last-Event-ID": last },
          signal: controller.signal,
          cache: "no-store",
        });
        if (gone(res.status)) return;
        if (!res.ok || !res.body) throw Object.assign(new Error(), { retryAfter: res.headers.get("Retry-After") });
        attempt = 0;
        const parser = createParser({
          onEvent(event) {
            const data = JSON.parse(event.data) as Json;
            if (event.event === "message") options.message(data as unknown as LiveMessage);
            else if (event.event === "ticket") options.ticket(data as unknown as { number: number; status: string; joined?: { name: string } });
            else if (event.event === "typing") options.typing?.(data as unknown as { typing: boolean; name?: string });
            if (event.id) options.cursor((last = event.id));
          },
        });
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          parser.feed(value);
        }
      } catch (error) {
        const after = Number((error as { retryAfter?: string | null }).retryAfter);
        if (after > 0) wait = after * 1000;
      }
      if (stopped) return;
      // The server's Retry-After is a least wait: a 429 repeated (too many streams from one address,
      // e.g. visitors behind one office NAT) backs off like any cut, up to 30 s.
      const delay = Math.max(wait ?? 0, Math.min(MAX_DELAY_MS, 1000 * 2 ** attempt) * (0.5 + Math.random() / 2));
      attempt++;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  };
  void run();
  return () => {
    stopped = true;
    controller?.abort();
  };
}

export interface LiveContext {
  base: string;
  key: string;
  state: Stored;
  texts: Texts;
  save(): void;
  render(): void;
  identity(): Identity | null;
  /** Whether the panel is closed (a reply then counts as unread). */
  closed(): boolean;
  showUnread(): void;
  emit(data: unknown): void;
  /** A ticket of the conversation was resolved (the rating prompt, ./feedback.ts). */
  resolved?(ticket: number): void;
  /** The person typing (their name), or null (./typing.ts). */
  typing?(name: string | null): void;
}

/** Follows the stored conversation once it has a session; each message is shown once (by id). */
export function liveConversation(ctx: LiveContext) {
  const { state } = ctx;
  let unfollow: (() => void) | null = null;
  const identityHeaders = (): Record<string, string> => {
    const who = ctx.identity();
    return who ? { "X-User-Id": who.user_id, ...(who.user_token ? { "X-User-Token": who.user_token } : {}) } : {};
  };
  const add = (m: LiveMessage): boolean => {
    if (state.messages.some((x) => x.id === m.id)) return false;
    state.messages.push({
      role: m.kind === "customer" ? "user" : m.kind,
      text: m.text,
      id: m.id,
      ...(m.kind === "person" ? { author: m.author.name, ...(m.author.avatar_url ? { avatar: m.author.avatar_url } : {}) } : {}),
    });
    return true;
  };
  const follow = () => {
    if (unfollow || !state.sessionId) return;
    unfollow = followConversation({
      base: ctx.base,
      key: ctx.key,
      sessionId: state.sessionId,
      identity: identityHeaders,
      lastEventId: state.lastEventId ?? null,
      history(messages) {
        for (const m of messages) if (m.kind === "person") add(m);
        ctx.save();
        ctx.render();
      },
      message(m) {
        if (m.kind === "person") ctx.typing?.(null);
        if (!add(m)) return;
        if (m.kind === "person" && state.waiting) state.waiting.answered = true;
        if (ctx.closed() && m.kind !== "customer") state.unread = (state.unread ?? 0) + 1;
        ctx.save();
        ctx.render();
        ctx.showUnread();
        ctx.emit({ role: m.kind, text: m.text, author: m.author.name, session_id: state.sessionId });
      },
      typing(data) {
        ctx.typing?.(data.typing ? personName(ctx.texts, data.name) : null);
      },
      ticket(ticket) {
        if (ticket.joined && (ticket.status === "open" || ticket.status === "pending")) {
          // A member took the conversation over from the assistant (README "Live conversation").
          state.live = true;
          state.waiting = { ticket: ticket.number, auto: false, answered: true };
          state.messages.push({ role: "note", text: ctx.texts.t("widget.joined", { name: personName(ctx.texts, ticket.joined.name) }) });
          if (ctx.closed()) state.unread = (state.unread ?? 0) + 1;
          ctx.save();
          ctx.render();
          ctx.showUnread();
          return;
        }
        if (ticket.status !== "resolved" && ticket.status !== "closed") return;
        state.waiting = null;
        state.messages.push({ role: "note", text: ctx.texts.t("widget.ticket_done", { number: ticket.number, status: ticket.status }) });
        ctx.save();
        ctx.render();
        if (ticket.status === "resolved") ctx.resolved?.(ticket.number);
      },
      cursor(id) {
        state.lastEventId = id;
        ctx.save();
      },
    });
  };
  const stop = () => {
    unfollow?.();
    unfollow = null;
  };
  return { follow, stop };
}

/**
 * What the customer is told about an action of the chat: a note in the log, or a word in the
 * status line. A ticket opened is neither: the assistant's reply says so, and the waiting line
 * (./waiting.ts, itself a status region a screen reader announces) says who answers and where.
 */
export function describeAction(action: Json, texts: Texts): { note?: string; status?: string } {
  const number = Number(action.ticket_number);
  if (action.type === "ticket_created") return {};
  if (action.type === "ticket_updated" && action.reason === "person_owns") return { status: texts.t("widget.sent_to_ticket", { number }) };
  if (action.type === "ticket_updated") return { note: texts.t("widget.added_to_ticket", { number }) };
  if (action.type === "handoff") return { note: texts.t("widget.handed_over") };
  return {};
}
