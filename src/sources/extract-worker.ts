// The extraction thread (src/sources/extract.ts): one untrusted page at a time to markdown
// (src/sources/html-markdown.ts). It runs on a thread of its own so a slow or hostile page (giant,
// deeply nested) never holds the server's event loop; the caller terminates it when it runs over
// its time.
import type { Alternate } from "./hreflang.ts";
import { fragmentMarkdown, PageRefused, pageMarkdown } from "./html-markdown.ts";

declare const self: Worker;

export interface ExtractRequest {
  id: number;
  html: string;
  url: string;
  /** A help-centre article's body: converted as it is, without looking for the main content. */
  fragment?: boolean;
}

export type ExtractReply =
  | { id: number; ok: true; title: string; markdown: string; links: string[]; language?: string; alternates?: Alternate[] }
  | { id: number; ok: false; reason: string };

self.onmessage = (event: MessageEvent<ExtractRequest>) => {
  const { id, html, url } = event.data;
  try {
    if (event.data.fragment) postMessage({ id, ok: true, title: "", markdown: fragmentMarkdown(html), links: [] } satisfies ExtractReply);
    else postMessage({ id, ok: true, ...pageMarkdown(html, url) } satisfies ExtractReply);
  } catch (error) {
    // A RangeError is the parser running out of stack or room: the page is too complex, whatever made it so.
    const reason =
      error instanceof PageRefused
        ? error.message
        : error instanceof RangeError
          ? "the page is too complex to read (its parser ran out of room)"
          : "the page could not be read as HTML";
    postMessage({ id, ok: false, reason } satisfies ExtractReply);
  }
};
