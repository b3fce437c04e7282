// The passages of a document as they are embedded: the same cut as the lexical index's
// (src/knowledge/lexical.ts `put`: sections along headings, then src/knowledge/passages.ts
// `chunkDoc`; a page with no body is its title), each sent with its page title and heading path
// in front, so a passage says what it is about the way a reader sees it. The body given is what the
// index keeps of the page (src/knowledge/embed-job.ts hands it the body without its boilerplate
// lines), so a footer shared by many pages is never embedded. Pure.
import { createHash } from "node:crypto";
import { chunkDoc } from "./passages.ts";
import { sectionsOf } from "./terms.ts";

export interface EmbedPassage {
  seq: number;
  /** The passage as quoted in an answer. */
  text: string;
  headings: string[];
  /** What is sent to the embeddings server. */
  input: string;
  /** SHA-256 of `input`: an unchanged passage of an edited page keeps its vector. */
  hash: string;
}

export function embedPassagesOf(title: string, body: string): EmbedPassage[] {
  const cleanTitle = title.replace(/\x1e/g, "");
  const out: EmbedPassage[] = [];
  const push = (text: string, headings: string[], content: string) => {
    const input = [cleanTitle, ...headings, content].filter((s) => s.trim() !== "").join("\n");
    out.push({ seq: out.length, text, headings, input, hash: createHash("sha256").update(input).digest("hex") });
  };
  for (const section of sectionsOf(body))
    for (const chunk of chunkDoc(section.text)) push(chunk, section.headings, section.headings.length > 0 ? chunk.replace(/^#{1,6}\s[^\n]*\n?/, "") : chunk);
  if (out.length === 0) push(cleanTitle, [], "");
  return out;
}
