// The help articles a customer read in the widget before asking, listed on the chat's ticket. Each
// is a link only when it is an http(s) URL (the values are the customer's browser's).
import { type Html, html } from "../../html/html.ts";

export interface HelpArticleRead {
  title: string;
  /** An http(s) URL, else null (shown as text). */
  url: string | null;
}

export function HelpArticlesRead({ read }: { read: readonly HelpArticleRead[] }): Html {
  if (read.length === 0) return html``;
  const item = (r: HelpArticleRead) => html`<li>${r.url ? html`<a href="${r.url}" rel="noopener noreferrer">${r.title}</a>` : r.title}</li>`;
  return html`<section aria-labelledby="help-read-h"><h2 id="help-read-h">Help articles read before asking</h2><ul>${read.map(item)}</ul></section>`;
}
