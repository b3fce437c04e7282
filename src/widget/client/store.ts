// The widget's state, persisted per org in localStorage so a reload keeps the conversation.
export type Json = Record<string, unknown>;
export type Role = "user" | "agent" | "person" | "note";
export interface Source {
  title: string;
  url: string | null;
}
export interface StoredMessage {
  role: Role;
  text: string;
  /** A customer message sent as a request for a person (mode livehelp), resent as such on retry. */
  livehelp?: boolean;
  /** The reply ended in an error or was cut: shown with a retry button. */
  failed?: boolean;
  /** The documents an agent reply used (the `sources` action of the stream). */
  sources?: Source[];
  /** A message of the live conversation: its id (so it is shown once) and, for a person, their name. */
  id?: string;
  author?: string;
  /** A person's picture (their avatar URL, https only), else their initials are shown. */
  avatar?: string;
}
export interface Stored {
  sessionId: string | null;
  userId: string | null;
  visitorId: string;
  open: boolean;
  messages: StoredMessage[];
  /** A person is involved (a ticket was opened): the widget follows the conversation live. */
  live?: boolean;
  /** The last live event handled: where the stream resumes after a reload. */
  lastEventId?: string | null;
  /** A ticket waiting for a person (./waiting.ts): its number, whether the assistant opened it, whether a person answered. */
  waiting?: { ticket: number; auto: boolean; team?: string; answered?: boolean } | null;
  /** The email prompt at hand-off (./contact.ts) was answered for this ticket: the address left, or null when skipped. */
  contact?: { ticket: number; email: string | null } | null;
  /** People's replies that arrived while the panel was closed. */
  unread?: number;
  /** The rating prompt of a resolved ticket (./feedback.ts): pending until answered (then null), or dismissed. */
  rating?: { ticket: number; dismissed?: boolean } | null;
}
export interface Identity {
  user_id: string;
  user_token?: string;
  email?: string;
  name?: string;
  company_id?: string;
  custom_fields?: Json;
  /** The widget's language for this customer (a BCP 47 tag): wins over the snippet's and the browser's. */
  locale?: string;
}

export const MAX_STORED = 60;

/** Loads the stored state (or a fresh one) and gives the function that saves it. */
export function openStore(storageKey: string): { state: Stored; save: () => void } {
  const load = (): Stored => {
    try {
      const raw = JSON.parse(localStorage.getItem(storageKey) ?? "null") as Stored | null;
      // A reply still empty was cut by the reload that is now loading us: not worth a bubble.
      if (raw && Array.isArray(raw.messages) && typeof raw.visitorId === "string") return { ...raw, messages: raw.messages.filter((m) => m.text) };
    } catch {}
    return { sessionId: null, userId: null, visitorId: `v_${crypto.randomUUID()}`, open: false, messages: [] };
  };
  const state = load();
  const save = () => {
    state.messages = state.messages.slice(-MAX_STORED);
    try {
      localStorage.setItem(storageKey, JSON.stringify(state));
    } catch {}
  };
  return { state, save };
}
