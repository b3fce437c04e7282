// The confirmation page a destructive or final action goes through (disable an agent, archive a
// campaign): what the action does, said in full, and one form that carries `confirm=<word>`. The
// action's route acts only on that word; any other post gets this page again. It works without the
// script (the script's data-confirm question is for one-button forms that lose little).
import { type Html, html } from "../../html/html.ts";
import { shellPage } from "../shell.ts";
import type { DashboardContext } from "./context.ts";
import { submit } from "./fields.ts";

export interface Confirmation {
  /** The page's title and its h1 (a question). */
  title: string;
  heading: string;
  /** The NAV section. */
  active: string;
  /** Where the back link and Cancel go, and the back link's label. */
  back: { href: string; label: string };
  /** What the action does, in full. */
  body: Html;
  /** The heading of the panel holding `body` and the form. */
  summary: string;
  action: string;
  /** The value of the `confirm` field the route checks. */
  word: string;
  button: string;
  busy: string;
  /** Why the previous post did nothing (it lacked the confirmation). */
  error?: string;
  status?: number;
}

export function confirmPage(ctx: DashboardContext, c: Confirmation): Response {
  const body = html`<p><a href="${c.back.href}">← ${c.back.label}</a></p>
<h1>${c.heading}</h1>
${c.error ? html`<p class="error" role="alert">${c.error}</p>` : ""}
<section class="panel" aria-labelledby="confirm-h"><h2 id="confirm-h">${c.summary}</h2>
${c.body}
<form method="post" action="${c.action}" class="actions">
<input type="hidden" name="confirm" value="${c.word}">
${submit(c.button, { kind: "danger", busy: c.busy })}
<a class="button secondary" href="${c.back.href}">Cancel</a>
</form></section>`;
  return shellPage(ctx, { title: c.title, active: c.active, body, status: c.status ?? 200 });
}
