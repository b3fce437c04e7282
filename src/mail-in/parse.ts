// An inbound email, read with mailparser and reduced to what a ticket keeps: who wrote, the
// Message-ID (or, without one, an id derived from the bytes, so a redelivery still matches), the
// ids it answers, the reply without its quoted history and signature (email-reply-parser, off
// the HTTP thread and bounded: src/mail-in/reply-thread.ts), the full original for members to
// expand, and the attachments by name and size (never stored).
// Loops and bounces are recognised here (docs/interface.md H, RFC 3834 section 2 and RFC 3464): they are
// never customer messages.
import { createHash } from "node:crypto";
import { type AddressObject, simpleParser } from "mailparser";
import type { InboundAttachment } from "../db/schema/index.ts";
import type { ReplyThread } from "./reply-thread.ts";

/** What a stored inbound email may hold (docs/decisions.md "Inbound email"). */
export const INBOUND_LIMITS = {
  /** The ticket message: the visible reply, as any ticket message (TICKET_LIMITS.body). */
  body: 10_000,
  /** The original text kept for members to expand. */
  original: 200_000,
  subject: 250,
  attachments: 100,
  attachmentName: 200,
  /** Message-IDs read from In-Reply-To and References. */
  references: 50,
} as const;

export interface ParsedEmail {
  messageId: string;
  from: { address: string; name: string } | null;
  subject: string;
  /** The ids this message answers: In-Reply-To first, then References newest first. */
  answers: string[];
  visible: string;
  original: string;
  attachments: InboundAttachment[];
  /** Why it is not a customer message (auto-reply, bounce, list mail), or null. */
  automatic: string | null;
}

/** Control characters other than tab, LF and CR have no place in stored text (PostgreSQL refuses NUL). */
function clean(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, "").toWellFormed();
}

/**
 * A header-derived string (a subject, a display name, an attachment's name or type) is one line:
 * every C0 and C1 control character (CR and LF included) and the bidirectional embeddings,
 * overrides and isolates (U+202A–U+202E, U+2066–U+2069) are removed, so a decoded value cannot
 * add lines to the text members read, nor disguise a name's extension.
 */
export function cleanHeader(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, "").toWellFormed();
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

const MESSAGE_ID = /<[^<>\s]{1,900}>/g;

function firstAddress(from: AddressObject | AddressObject[] | undefined): { address: string; name: string } | null {
  const list = (Array.isArray(from) ? from : from ? [from] : []).flatMap((a) => a.value);
  const first = list.find((a) => typeof a.address === "string" && /^[^\s@<>]{1,64}@[^\s@<>]{1,253}$/.test(a.address));
  return first ? { address: first.address!.toLowerCase(), name: cut(cleanHeader(first.name ?? "").trim(), 200) } : null;
}

/** RFC 3834 section 2 and docs/interface.md H: mail that no one should answer, and bounces. */
function automaticReason(headers: Map<string, unknown>, envelopeFrom: string | null, contentType: string): string | null {
  const header = (name: string) => {
    const value = headers.get(name);
    if (value === undefined || value === null) return undefined;
    return (typeof value === "object" && "value" in (value as object) ? String((value as { value: unknown }).value) : String(value)).trim().toLowerCase();
  };
  if (envelopeFrom === "") return "null return path (a bounce or an automatic message)";
  const auto = header("auto-submitted");
  if (auto !== undefined && auto.split(";")[0]!.trim() !== "no") return `Auto-Submitted: ${auto.slice(0, 40)}`;
  const precedence = header("precedence");
  if (precedence !== undefined && ["bulk", "junk", "list", "auto_reply"].includes(precedence)) return `Precedence: ${precedence}`;
  if (headers.has("x-autoreply") || headers.has("x-autorespond")) return "X-Autoreply";
  if (contentType === "multipart/report") return "a delivery report (multipart/report)";
  return null;
}

/** Reads a raw RFC 5322 message. `envelopeFrom` is MAIL FROM ("" for the null path; null when unknown, as from a relay). */
export async function parseEmail(raw: Buffer, envelopeFrom: string | null, replies: ReplyThread): Promise<ParsedEmail> {
  const mail = await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true, maxHtmlLengthToParse: 2_000_000 });
  const contentType = String((mail.headers.get("content-type") as { value?: string } | undefined)?.value ?? "").toLowerCase();
  const declared = mail.messageId && /^<[^<>\s]{1,900}>$/.test(mail.messageId) ? mail.messageId : null;
  const messageId = declared ?? `<${createHash("sha256").update(raw).digest("hex")}@no-message-id.invalid>`;
  const answers = [
    ...(typeof mail.inReplyTo === "string" ? (mail.inReplyTo.match(MESSAGE_ID) ?? []) : []),
    ...[...(Array.isArray(mail.references) ? mail.references : mail.references ? [mail.references] : [])].reverse().flatMap((r) => r.match(MESSAGE_ID) ?? []),
  ].slice(0, INBOUND_LIMITS.references);
  const text = clean(mail.text ?? "").replace(/\r\n?/g, "\n");
  const visible = clean(await replies.visible(text)).trim();
  return {
    messageId,
    from: firstAddress(mail.from),
    subject: cut(cleanHeader((mail.subject ?? "").replace(/\s+/g, " ")).trim(), INBOUND_LIMITS.subject),
    answers,
    visible: cut(visible, INBOUND_LIMITS.body),
    original: cut(text, INBOUND_LIMITS.original),
    attachments: mail.attachments.slice(0, INBOUND_LIMITS.attachments).map((a) => ({
      name: cut(cleanHeader(a.filename ?? "unnamed").trim() || "unnamed", INBOUND_LIMITS.attachmentName),
      size: a.size,
      content_type: cut(cleanHeader(a.contentType ?? "application/octet-stream"), 100),
    })),
    automatic: automaticReason(mail.headers as Map<string, unknown>, envelopeFrom, contentType.split(";")[0]!.trim()),
  };
}
