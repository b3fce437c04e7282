// The rating link of a resolution email (README "CSAT"): GET /r/{token}?score=N shows the rating
// form with that score chosen (a GET never rates: mail scanners follow links), POST records it once.
// No sign-in: the token is the credential. A second POST changes nothing and shows the first rating;
// an expired link answers 410, a link never issued 404. Every sentence is the catalogue's in the
// ticket's language, else the org's default; a link that names no ticket, in the browser's
// language (Accept-Language), else English (README "Languages").
import { Elysia, t } from "elysia";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { html, page } from "../html/html.ts";
import { firstLanguage, isRtl } from "../kit/language.ts";
import { customerTexts, type Texts, textsOf } from "../texts/store.ts";
import { CSAT_LIMITS, type Rating, rateByToken, ticketOfCsatToken } from "./csat.ts";

/** The five scores' words in the customer's language (the catalogue's `rating.score_N`), by score. */
export const scoreLabels = (texts: Texts) =>
  ["", texts.t("rating.score_1"), texts.t("rating.score_2"), texts.t("rating.score_3"), texts.t("rating.score_4"), texts.t("rating.score_5")] as const;

/** The link a resolution email carries for one score. */
export function csatLink(baseUrl: string, token: string, score?: number): string {
  return `${baseUrl}/r/${token}${score ? `?score=${score}` : ""}`;
}

const shown = (texts: Texts, title: string, body: ReturnType<typeof html>, status?: number) =>
  page(title, body, { lang: texts.language, dir: isRtl(texts.language) ? "rtl" : "ltr", ...(status ? { status } : {}) });

/** The browser's first language (RFC 9110 section 12.5.4: the first range is the most preferred, near enough). */
const browserTexts = (request: Request) => textsOf(firstLanguage([request.headers.get("accept-language")?.split(",")[0]?.split(";")[0]?.trim()]));

function refused(error: unknown, texts: Texts) {
  const title = texts.t("rating.error_title");
  if (error instanceof AppError && error.status === 410)
    return shown(texts, title, html`<h1>${texts.t("rating.expired_title")}</h1><p>${texts.t("rating.expired", { days: CSAT_LIMITS.linkDays })}</p>`, 410);
  if (error instanceof AppError && error.status === 404)
    return shown(texts, title, html`<h1>${texts.t("rating.invalid_title")}</h1><p>${texts.t("rating.invalid")}</p>`, 404);
  if (error instanceof AppError && error.status === 409)
    return shown(texts, title, html`<h1>${texts.t("rating.reopened_title")}</h1><p>${texts.t("rating.reopened")}</p>`, 409);
  throw error;
}

const thanks = (texts: Texts, r: Rating) =>
  shown(
    texts,
    texts.t("rating.thanks_title"),
    html`<h1>${texts.t("rating.thanks_title")}</h1>\
<p>${texts.t("rating.thanks", { number: String(r.ticket_number), score: r.score, label: scoreLabels(texts)[r.score] ?? "" })}</p>\
${r.comment ? html`<blockquote>${r.comment}</blockquote>` : ""}`,
  );

export function csatPageRoutes(deps: Pick<Deps, "db" | "now" | "texts">) {
  const params = t.Object({ token: t.String({ minLength: 1, maxLength: 128 }) });
  /** The ticket's language, else the org's default; a token that names no ticket: the browser's. */
  const textsFor = async (token: string, request: Request) => {
    try {
      const found = await ticketOfCsatToken(deps, token);
      return { found, texts: await customerTexts(deps, found.orgId, found.language) };
    } catch (error) {
      return { error, texts: browserTexts(request) };
    }
  };
  return new Elysia({ name: "csat-page" })
    .get(
      "/r/:token",
      async ({ params: { token }, query, request }) => {
        const { found, error, texts } = await textsFor(token, request);
        if (!found) return refused(error, texts);
        if (found.rating) return thanks(texts, found.rating);
        const chosen = Number(query.score);
        const labels = scoreLabels(texts);
        const options = [5, 4, 3, 2, 1].map(
          (n) =>
            html`<label class="choice"><input type="radio" name="score" value="${String(n)}" required${n === chosen ? html` checked` : ""}\
> ${String(n)} — ${labels[n]!}</label>`,
        );
        return shown(
          texts,
          texts.t("rating.page_title"),
          html`<h1>${texts.t("rating.heading", { number: String(found.number) })}</h1>
<form method="post"><fieldset><legend>${texts.t("rating.legend")}</legend>${options}</fieldset>
<div class="field"><label for="comment">${texts.t("rating.comment")}</label>\
<textarea id="comment" name="comment" rows="4" maxlength="${String(CSAT_LIMITS.comment)}"></textarea></div>
<div class="actions"><button type="submit">${texts.t("rating.send")}</button></div></form>`,
        );
      },
      {
        params,
        query: t.Object({ score: t.Optional(t.String({ maxLength: 1 })) }),
        detail: { summary: "The rating form of a resolution email's link", tags: ["CSAT"] },
      },
    )
    .post(
      "/r/:token",
      async ({ params: { token }, body, request }) => {
        const { texts } = await textsFor(token, request);
        try {
          const rating = await rateByToken(deps, token, Number(body.score), body.comment ?? null);
          return thanks(texts, rating);
        } catch (error) {
          return refused(error, texts);
        }
      },
      {
        params,
        body: t.Object({ score: t.String({ maxLength: 1 }), comment: t.Optional(t.String({ maxLength: CSAT_LIMITS.comment })) }),
        detail: { summary: "Rate a resolved ticket through its link, once", tags: ["CSAT"] },
      },
    );
}
