// Answers written for the ear (README "Voice and video"): in `mode` voice or video, whatever the
// provider, the reply is told to be spoken (an instruction added to the model's system text) and
// rewritten as it streams, for models that ignore it and for the builtin, which cannot be told:
// no markdown, no `From "…":` line, no bare URLs (the sources are listed, never read out), list
// items as a spoken enumeration ("First, …", "Second, …"), semicolons as sentence ends, and at most
// VOICE_TEXT.sentences sentences unless the customer asked for more.
import type { LlmEvent, LlmProvider, LlmRequest } from "./llm/types.ts";

export const VOICE_TEXT = {
  /** Sentences kept when the question does not ask for more. */
  sentences: 4,
} as const;

export const VOICE_INSTRUCTION =
  "This conversation is spoken aloud: your reply is read by a text-to-speech voice. " +
  "Write plain spoken sentences: no markdown, no headings, no bullet points, no tables, no URLs, " +
  "no emoji. Keep sentences short. Say a list as an enumeration in words (first, second, " +
  "then). Answer in at most three or four sentences unless the customer asks for more detail.";

const ORDINALS = ["First", "Second", "Third", "Fourth", "Fifth", "Sixth", "Seventh", "Eighth", "Ninth", "Tenth"];
const MORE = /\b(?:more|details?|detailed|explain|elaborate|everything|all the|step[- ]by[- ]step|every step|full)\b/i;

export const isSpoken = (mode: string | undefined): boolean => mode === "voice" || mode === "video";

/** Inline markdown and URLs out of one piece of a line. */
export function plainInline(text: string): string {
  return text
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]+)\]\([^)]*\)/g, "$1")
    .replace(/<?https?:\/\/[^\s<>)]+[^\s<>().,;:!?]>?/g, "the link below")
    .replace(/(\*\*|__)(.+?)\1/g, "$2")
    .replace(/(^|[^\w*])[*_]([^*_\n]+?)[*_](?=[^\w*]|$)/g, "$1$2")
    .replace(/`+([^`]*)`+/g, "$1")
    .replace(/~~(.+?)~~/g, "$1")
    .replace(/[*_`#>|]+/g, (m) => (m.includes("|") ? ", " : ""))
    .replace(/;\s+(\w)/g, (_, c: string) => `. ${c.toUpperCase()}`)
    .replace(/\(\s*\)/g, "")
    .replace(/\s+([.,!?:])/g, "$1")
    .replace(/[ \t]{2,}/g, " ");
}

/**
 * The streaming rewrite: feed pieces as they arrive, emit what is ready (whole lines, or whole
 * sentences of a line whose kind is known), and `end` flushes the rest.
 */
export class VoiceText {
  #buffer = "";
  #item = 0;
  #sentences = 0;
  #fence = false;
  #atLineStart = true;
  #full = false;
  constructor(private readonly limit: number) {}

  push(piece: string): string {
    this.#buffer += piece;
    let out = "";
    for (;;) {
      const nl = this.#buffer.indexOf("\n");
      if (nl !== -1) {
        out += this.#segment(this.#buffer.slice(0, nl), true);
        this.#buffer = this.#buffer.slice(nl + 1);
        continue;
      }
      // Within a line: hand over whole sentences once the line's start (its kind) is known.
      const m = this.#buffer.length > 12 || !this.#atLineStart ? /^[\s\S]*?\p{L}[.!?](?=\s)\s/u.exec(this.#buffer) : null;
      if (!m || /\]\([^)]*$|\*\*[^*]*$|`[^`]*$/.test(m[0])) break;
      out += this.#segment(m[0], false);
      this.#buffer = this.#buffer.slice(m[0].length);
    }
    return out;
  }

  end(): string {
    const rest = this.#buffer;
    this.#buffer = "";
    return this.#segment(rest, true).replace(/\s+$/, "");
  }

  #segment(raw: string, lineEnds: boolean): string {
    const atStart = this.#atLineStart;
    this.#atLineStart = lineEnds;
    if (this.#full) return "";
    let text = raw;
    if (atStart) {
      if (/^\s*(```|~~~)/.test(text)) {
        this.#fence = !this.#fence;
        return "";
      }
      if (this.#fence) return "";
      if (/^\s*\|/.test(text))
        text = text
          .split("|")
          .map((c) => c.trim())
          .filter(Boolean)
          .join(", ");
      if (/^From ".*":\s*$/.test(text) || /^\s*([-*_])(?:\s*\1){2,}\s*$/.test(text) || /^\s*\|?\s*:?-{3,}/.test(text)) return "";
      const item = /^\s*(?:[-*+•]|\d{1,3}[.)])\s+/.exec(text);
      if (item) {
        const rest = text.slice(item[0].length);
        text = `${ORDINALS[this.#item] ?? "Next"}, ${/^[A-Z][a-z]/.test(rest) ? rest[0]!.toLowerCase() + rest.slice(1) : rest}`;
        this.#item++;
      } else if (text.trim() !== "") this.#item = 0;
      const heading = /^\s*#{1,6}\s+(.*)$/.exec(text);
      if (heading) text = /[.!?:]$/.test(heading[1]!.trim()) ? heading[1]! : `${heading[1]!.trim()}.`;
    }
    text = plainInline(text);
    if (lineEnds) {
      text = text.trim();
      if (text === "") return "";
      // A list item or a line without an ending reads as its own sentence.
      if (!/[.!?:,]$/.test(text)) text += ".";
    }
    return this.#count(text) + (lineEnds ? " " : "");
  }

  /** Keeps at most `limit` sentences; after that nothing more is emitted. */
  #count(text: string): string {
    const ends = [...text.matchAll(/[.!?](?=\s|$)/g)];
    if (this.#sentences + ends.length < this.limit) {
      this.#sentences += ends.length;
      return text;
    }
    const cut = ends[this.limit - this.#sentences - 1]!;
    this.#full = true;
    return text.slice(0, cut.index! + 1);
  }
}

/** The whole rewrite of a finished text (the non-streaming form of VoiceText). */
export function voiceText(text: string, question = ""): string {
  const v = new VoiceText(MORE.test(question) ? Number.MAX_SAFE_INTEGER : VOICE_TEXT.sentences);
  return (v.push(text) + v.end()).trim();
}

/**
 * The provider for a turn in `mode`: for voice and video, one that tells the model the reply is
 * spoken and rewrites its text as it streams; otherwise the provider itself.
 */
export function forMode(mode: string | undefined, provider: LlmProvider, question: string): LlmProvider {
  if (!isSpoken(mode)) return provider;
  return {
    kind: provider.kind,
    model: provider.model,
    async *stream(request: LlmRequest): AsyncIterable<LlmEvent> {
      const v = new VoiceText(MORE.test(question) ? Number.MAX_SAFE_INTEGER : VOICE_TEXT.sentences);
      for await (const event of provider.stream({ ...request, system: `${request.system}\n\n${VOICE_INSTRUCTION}` })) {
        if (event.type === "text") {
          const text = v.push(event.text);
          if (text) yield { type: "text", text };
          continue;
        }
        if (event.type === "done" || event.type === "tool_call") {
          const rest = v.end();
          if (rest) yield { type: "text", text: rest };
        }
        yield event;
      }
    },
  };
}
