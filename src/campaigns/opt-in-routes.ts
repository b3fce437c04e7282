// The double opt-in link (src/campaigns/opt-in.ts), mailed to the address a series was requested
// for:
//   GET  /series/confirm/TOKEN  a page with one button; it never confirms by itself, because mail
//                               scanners and link previews fetch every URL in a message (as for
//                               the RFC 8058 unsubscribe links, src/mail/unsubscribe.ts).
//   POST /series/confirm/TOKEN  confirms: the series starts for the address. No cookie or session:
//                               the token is the capability (256 random bits, stored as SHA-256).
// Pages use the shared layout and its strict CSP, every value escaped (src/web/html.ts). Their
// sentences are the catalogue's in the org's default language; a link that names nothing, in the
// browser's (README "Languages").
import { Elysia, t } from "elysia";
import type { Deps } from "../deps.ts";
import { html, page } from "../html/html.ts";
import { firstLanguage, isRtl } from "../kit/language.ts";
import { customerTexts, type Texts, textsOf } from "../texts/store.ts";
import { confirmOptIn, optInByToken, type OptInView } from "./opt-in.ts";

const shown = (texts: Texts, body: ReturnType<typeof html>, status?: number) =>
  page(texts.t("optin.title"), body, { lang: texts.language, dir: isRtl(texts.language) ? "rtl" : "ltr", ...(status ? { status } : {}) });

/** The browser's first language (RFC 9110 section 12.5.4), for a link that names no org. */
const browserTexts = (request: Request) => textsOf(firstLanguage([request.headers.get("accept-language")?.split(",")[0]?.split(";")[0]?.trim()]));

const invalidLink = (texts: Texts) => shown(texts, html`<h1>${texts.t("optin.invalid_title")}</h1><p>${texts.t("optin.invalid")}</p>`, 404);

/** `j***@example.com`: enough for the owner to recognise, not a full address for whoever holds the link. */
function masked(email: string): string {
  const [local, domain] = email.split("@");
  return `${(local ?? "").slice(0, 1)}***@${domain ?? ""}`;
}

const subscribed = (texts: Texts, v: OptInView) =>
  shown(
    texts,
    html`<h1>${texts.t("optin.done_title")}</h1><p>${texts.t("optin.done", { email: masked(v.optIn.email), series: v.campaign.name, org: v.orgName })}</p>`,
  );

const confirmedBefore = (texts: Texts, v: OptInView) =>
  shown(texts, html`<h1>${texts.t("optin.already_title")}</h1><p>${texts.t("optin.already", { series: v.campaign.name, org: v.orgName })}</p>`);

export function optInRoutes(deps: Pick<Deps, "db" | "now" | "texts">) {
  const params = t.Object({ token: t.String({ minLength: 1, maxLength: 128, description: "The token from the confirmation email's link." }) });
  const textsOfOrg = (v: OptInView) => customerTexts(deps, v.optIn.orgId, null);
  return new Elysia({ name: "series-opt-in" })
    .get(
      "/series/confirm/:token",
      async ({ params: { token }, request }) => {
        const found = await optInByToken(deps, token);
        if (!found) return invalidLink(browserTexts(request));
        const texts = await textsOfOrg(found);
        if (found.optIn.confirmedAt) return confirmedBefore(texts, found);
        return shown(
          texts,
          html`<h1>${texts.t("optin.ask_title")}</h1>
<p>${texts.t("optin.ask", { series: found.campaign.name, org: found.orgName, email: masked(found.optIn.email) })}</p>
<form method="post">
<input type="hidden" name="confirm" value="subscription">
<div class="actions"><button type="submit">${texts.t("optin.confirm")}</button></div>
</form>
<p>${texts.t("optin.ask_ignore")}</p>`,
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
      async ({ params: { token }, request }) => {
        const done = await confirmOptIn(deps, token);
        if (!done) return invalidLink(browserTexts(request));
        const texts = await textsOfOrg(done);
        if (done.outcome === "not_active")
          return shown(
            texts,
            html`<h1>${texts.t("optin.paused_title")}</h1>\
<p>${texts.t("optin.paused", { series: done.campaign.name, org: done.orgName, until: done.optIn.expiresAt })}</p>`,
            409,
          );
        if (done.outcome === "already_confirmed") return confirmedBefore(texts, done);
        if (done.outcome === "unsubscribed")
          return shown(
            texts,
            html`<h1>${texts.t("optin.unsubscribed_title")}</h1>\
<p>${texts.t("optin.unsubscribed", { email: masked(done.optIn.email), org: done.orgName })}</p>`,
          );
        return subscribed(texts, done);
      },
      {
        params,
        detail: {
          summary: "Confirm a double opt-in",
          description:
            "Starts the email series for the address the link was mailed to (once; a second POST changes nothing). " +
            "Needs no session. 404 for an unknown or expired link, 409 while the series is not active.",
          tags: ["Email series"],
        },
      },
    );
}
