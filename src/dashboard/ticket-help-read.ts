// The help articles a customer read in the widget before asking (src/widget/client/help.ts sends
// them as the conversation's context entry `help_articles_read`: [{title, url}]), for the chat's
// ticket (views/ticket-help-read.ts draws them). A URL is kept only when it is http(s); the values
// are the customer's browser's.
import type { Deps } from "../deps.ts";
import { conversationContextEntry } from "../conversations/dashboard.ts";
import type { HelpArticleRead } from "./views/ticket-help-read.ts";

export async function helpArticlesRead(deps: Pick<Deps, "db">, orgId: string, conversationId: string | null): Promise<HelpArticleRead[]> {
  if (!conversationId) return [];
  const entry = await conversationContextEntry(deps, orgId, conversationId, "help_articles_read");
  const items = Array.isArray(entry?.value) ? (entry.value as unknown[]).slice(0, 20) : [];
  return items.flatMap((i) => {
    const item = i as { title?: unknown; url?: unknown };
    return typeof item?.title === "string"
      ? [{ title: item.title.slice(0, 300), url: typeof item.url === "string" && /^https?:\/\//i.test(item.url) ? item.url : null }]
      : [];
  });
}
