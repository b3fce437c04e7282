// The help articles a customer read in the widget before asking (src/widget/client/help.ts sends
// them as the conversation's context entry `help_articles_read`: [{title, url}]), listed on the
// chat's ticket. Each link only when it is an http(s) URL; the values are the customer's browser's.
import type { Deps } from "../deps.ts";
import { conversationContextEntry } from "../conversations/dashboard.ts";
import { type Html, html } from "../html/html.ts";

export async function helpArticlesRead(deps: Pick<Deps, "db">, orgId: string, conversationId: string | null): Promise<Html | ""> {
  if (!conversationId) return "";
  const entry = await conversationContextEntry(deps, orgId, conversationId, "help_articles_read");
  const items = Array.isArray(entry?.value) ? (entry.value as unknown[]).slice(0, 20) : [];
  const read = items.flatMap((i) => {
    const item = i as { title?: unknown; url?: unknown };
    return typeof item?.title === "string"
      ? [{ title: item.title.slice(0, 300), url: typeof item.url === "string" && /^https?:\/\//i.test(item.url) ? item.url : null }]
      : [];
  });
  if (read.length === 0) return "";
  return html`<section aria-labelledby="help-read-h"><h2 id="help-read-h">Help articles read before asking</h2><ul>${read.map((r) => html`<li>${r.url ? html`<a href="${r.url}" rel="noopener noreferrer">${r.title}</a>` : r.title}</li>`)}</ul></section>`;
}
