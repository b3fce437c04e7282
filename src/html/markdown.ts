// Markdown as safe markup, for the knowledge base's preview: GitHub-flavoured markdown where raw
// HTML is shown as text and only http(s), mailto and relative links and https images survive, so
// a document cannot put markup or script URLs into a page (the dashboard's CSP would block
// scripts anyway). The one place outside html.ts that makes `Html`: the renderer below escapes
// every piece of the document it writes.
import { Marked } from "marked";
import { escapeHtml, Html } from "./html.ts";

const renderer = new Marked({ gfm: true, async: false });
renderer.use({
  renderer: {
    html: (token) => escapeHtml(token.text),
    link(token) {
      const href = /^(https?:|mailto:|\/|#)/i.test(token.href) ? token.href : "#";
      return `<a href="${escapeHtml(href)}" rel="nofollow noopener">${this.parser.parseInline(token.tokens)}</a>`;
    },
    image(token) {
      return /^https:/i.test(token.href) ? `<img src="${escapeHtml(token.href)}" alt="${escapeHtml(token.text)}">` : escapeHtml(token.text);
    },
  },
});

export function renderMarkdown(markdown: string): Html {
  return new Html(renderer.parse(markdown) as string);
}
