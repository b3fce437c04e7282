// The double opt-in link (src/campaigns/opt-in.ts), mailed to the address a series was requested
// for:
//   GET  /series/confirm/TOKEN  a page with one button; it never confirms by itself, because mail
//                               scanners and link previews fetch every URL in a message (as for
//                               the RFC 8058 unsubscribe links, src/mail/unsubscribe.ts).
//   POST /series/confirm/TOKEN  confirms: the series starts for the address. No cookie or session:
//                               the token is the capability (256 random bits, stored as SHA-256).
// Pages use the shared layout and its strict CSP, every value escaped (src/web/html.ts).
import { Elysia, t } from "elysia";
import type { Deps } from "../deps.ts";
import { html, page } from "../html/html.ts";
import { confirmOptIn, optInByToken, type OptInView } from "./opt-in.ts";

const TITLE = "Confirm your subscription";

const invalidLink = () =>
  page(TITLE, html`<h1>This link is not valid</h1><p>It may have expired or been mistyped. Ask again for the series on the website where you signed up.</p>`, {
    status: 404,
  });

/** `j***@example.com`: enough for the owner to recognise, not a full address for whoever holds the link. */
function masked(email: string): string {
  const [local, domain] = email.split("@");
  return `${(local ?? "").slice(0, 1)}***@${domain ?? ""}`;
}

const subscribed = (v: OptInView) =>
  page(
    TITLE,
    html`<h1>You are subscribed</h1><p>${masked(v.optIn.email)} will receive "${v.campaign.name}" from ${v.orgName}. Every email has a link to unsubscribe.</p>`,
  );

const confirmedBefore = (v: OptInView) =>
  page(
    TITLE,
    html`<h1>Already confirmed</h1><p>This request to receive "${v.campaign.name}" from ${v.orgName} was confirmed before; nothing more to do. Every email of the series has a link to unsubscribe.</p>`,
  );

export function optInRoutes(deps: Deps) {
  const params = t.Object({ token: t.String({ minLength: 1, maxLength: 128, description: "The token from the confirmation email's link." }) });
  return new Elysia({ name: "series-opt-in" })
    .get(
      "/series/confirm/:token",
      async ({ params: { token } }) => {
        const found = await optInByToken(deps, token);
        if (!found) return invalidLink();
        if (found.optIn.confirmedAt) return confirmedBefore(found);
        return page(
          TITLE,
          html`<h1>Confirm your subscription?</h1>
<p>Receive the email series <strong>${found.campaign.name}</strong> from <strong>${found.orgName}</strong> at ${masked(found.optIn.email)}.</p>
<form method="post">
<input type="hidden" name="confirm" value="subscription">
<div class="actions"><button type="submit">Confirm my subscription</button></div>
</form>
<p>If you did not ask for it, close this page: nothing will be sent.</p>`,
        );
      },
      {
        params,
        detail: {
          summary: "Double opt-in confirmation page",
          description: "Shows a confirmation form; never confirms by itself (mail scanners prefetch links). 404 for an unknown or expired link.",
          tags: ["Email series"],
        },
      },
    )
    .post(
      "/series/confirm/:token",
      async ({ params: { token } }) => {
        const done = await confirmOptIn(deps, token);
        if (!done) return invalidLink();
        if (done.outcome === "not_active")
          return page(
            TITLE,
            html`<h1>This series is not running right now</h1><p>"${done.campaign.name}" from ${done.orgName} is paused. Use the same link again later; it works until ${done.optIn.expiresAt.toISOString().slice(0, 16).replace("T", " ")} UTC.</p>`,
            { status: 409 },
          );
        if (done.outcome === "already_confirmed") return confirmedBefore(done);
        if (done.outcome === "unsubscribed")
          return page(
            TITLE,
            html`<h1>You unsubscribed earlier</h1><p>${masked(done.optIn.email)} unsubscribed from ${done.orgName}'s emails, so this series will not be sent. Contact ${done.orgName} to receive their emails again.</p>`,
          );
        return subscribed(done);
      },
      {
        params,
        detail: {
          summary: "Confirm a double opt-in",
          description:
            "Starts the email series for the address the link was mailed to (once; a second POST changes nothing). Needs no session. 404 for an unknown or expired link, 409 while the series is not active.",
          tags: ["Email series"],
        },
      },
    );
}
