// Chat request checks beyond the route's TypeBox schema, each
// failing with 400 and the field's JSON Pointer. docs/decisions.md "Chat limits".
//
// Images (docs/interface.md 2.5 `images`): at most CHAT_LIMITS.images; each either an http(s) URL of at most
// CHAT_LIMITS.imageUrl characters (stored, never fetched by us) or a base64 `data:` URL of a raster
// image — PNG, JPEG, GIF or WebP — whose bytes start with that type's magic number (the declared
// type must agree) and decode to at most CHAT_LIMITS.imageBytes. SVG and anything else are refused.
import { AppError, type ErrorDetail } from "../errors.ts";
import type { ReportedTurn } from "./sessions.ts";

export const CHAT_LIMITS = {
  /** docs/interface.md 2.5 / docs/interface.md 8.1: 1..10,000 characters. */
  message: 10_000,
  /** docs/interface.md 2.5 / docs/interface.md 8.1. */
  behaviorContext: 5_000,
  images: 4,
  /** Decoded bytes of one `data:` image. */
  imageBytes: 512 * 1024,
  imageUrl: 2048,
  historyItems: 50,
  historyText: 10_000,
  contextEntries: 50,
  contextKey: 100,
  contextLabel: 200,
  contextType: 50,
  sessionId: 128,
  /** Request body cap of the chat routes (src/http/body.ts): four images of the largest size and every text field at its limit fit. */
  bodyBytes: 5 * 1024 * 1024,
} as const;

/** Longest `data:` URL string the schema lets through to the byte check (base64 of imageBytes plus a header). */
export const DATA_URL_MAX = 64 + Math.ceil(CHAT_LIMITS.imageBytes / 3) * 4;

const RASTER: Record<string, (b: Uint8Array) => boolean> = {
  "image/png": (b) => [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((v, i) => b[i] === v),
  "image/jpeg": (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  "image/gif": (b) => /^GIF8[79]a$/.test(String.fromCharCode(...b.subarray(0, 6))),
  "image/webp": (b) => String.fromCharCode(...b.subarray(0, 4)) === "RIFF" && String.fromCharCode(...b.subarray(8, 12)) === "WEBP",
};
const DATA_URL = /^data:(image\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/]*={0,2})$/i;

/** Why one image may not be attached, or null. */
export function imageProblem(value: string): string | null {
  if (value.startsWith("data:")) {
    const match = DATA_URL.exec(value);
    if (!match) return "must be a base64 data: URL of an image (data:image/png;base64,…)";
    const type = match[1]!.toLowerCase() === "image/jpg" ? "image/jpeg" : match[1]!.toLowerCase();
    const check = RASTER[type];
    if (!check) return "must be a PNG, JPEG, GIF or WebP image";
    if (match[2]!.length % 4 !== 0) return "is not valid base64";
    const bytes = Buffer.from(match[2]!, "base64");
    if (bytes.length === 0) return "is empty";
    if (bytes.length > CHAT_LIMITS.imageBytes) return `must be at most ${CHAT_LIMITS.imageBytes} bytes`;
    if (!check(bytes)) return `does not hold ${type} data (its first bytes are not that type's signature)`;
    return null;
  }
  if (value.length > CHAT_LIMITS.imageUrl) return `must be at most ${CHAT_LIMITS.imageUrl} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "must be an http(s) URL or a data: URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must be an http(s) URL or a data: URL";
  if (url.username || url.password) return "must not carry credentials";
  return null;
}

const SPEAKERS: Record<string, ReportedTurn["speaker"]> = {
  user: "customer",
  customer: "customer",
  visitor: "customer",
  human: "customer",
  assistant: "agent",
  agent: "agent",
  bot: "agent",
  ai: "agent",
};

export interface HistoryItem {
  speaker?: string;
  role?: string;
  text?: string;
  content?: string;
}

/** Checks images and normalises `conversation_history`; throws one 400 naming every bad field. */
export function checkChatInput(input: { message: string; images?: string[]; conversation_history?: HistoryItem[]; context?: Record<string, unknown> }): {
  reported: ReportedTurn[];
} {
  const problems: ErrorDetail[] = [];
  if (input.message.trim() === "") problems.push({ path: "/message", message: "must not be blank" });
  // TypeBox bounds a record's values, not its keys.
  for (const key of Object.keys(input.context ?? {}))
    if (key.length === 0 || key.length > CHAT_LIMITS.contextKey)
      problems.push({
        path: `/context/${key.slice(0, 40).replaceAll("~", "~0").replaceAll("/", "~1")}`,
        message: `keys must be 1 to ${CHAT_LIMITS.contextKey} characters`,
      });
  input.images?.forEach((image, i) => {
    const problem = imageProblem(image);
    if (problem) problems.push({ path: `/images/${i}`, message: problem });
  });
  const reported: ReportedTurn[] = [];
  input.conversation_history?.forEach((item, i) => {
    const who = item.speaker ?? item.role;
    const speaker = who === undefined ? undefined : SPEAKERS[who.toLowerCase()];
    const text = item.text ?? item.content;
    if (speaker === undefined)
      problems.push({
        path: `/conversation_history/${i}/${item.speaker !== undefined ? "speaker" : "role"}`,
        message: "must be user, customer, assistant or agent",
      });
    if (text === undefined) problems.push({ path: `/conversation_history/${i}/text`, message: "text or content is required" });
    if (speaker !== undefined && text !== undefined && text.trim() !== "") reported.push({ speaker, text });
  });
  if (problems.length > 0) throw AppError.badRequest("The chat request is invalid.", problems);
  return { reported };
}
