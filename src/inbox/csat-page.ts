// The rating link of a resolution email (README "CSAT"): GET /r/{token}?score=N shows the rating
// form with that score chosen (a GET never rates: mail scanners follow links), POST records it once.
// No sign-in: the token is the credential. A second POST changes nothing and shows the first rating;
// an expired link answers 410, a link never issued 404.
import { Elysia, t } from "elysia";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { html, page } from "../html/html.ts";
import { CSAT_LIMITS, type Rating, rateByToken, ticketOfCsatToken } from "./csat.ts";

const LABELS = ["", "Very poor", "Poor", "Okay", "Good", "Excellent"];

/** The link a resolution email carries for one score. */
export function csatLink(baseUrl: string, token: string, score?: number): string {
  return `${baseUrl}/r/${token}${score ? `?score=${score}` : ""}`;
}

function refused(error: unknown) {
  if (error instanceof AppError && error.status === 410)
    return page("Rating", html`<h1>This link has expired</h1><p>Ratings are taken for ${String(CSAT_LIMITS.linkDays)} days after a ticket is resolved.</p>`, {
      status: 410,
    });
  if (error instanceof AppError && error.status === 404)
    return page("Rating", html`<h1>This link is not valid</h1><p>It may have been mistyped. Use the link in the email you received.</p>`, { status: 404 });
  if (error instanceof AppError && error.status === 409)
    return page("Rating", html`<h1>Not ready for a rating</h1><p>This ticket is open again; you can rate it once it is resolved.</p>`, { status: 409 });
  throw error;
}

const thanks = (r: Rating) =>
  page(
    "Thank you",
    html`<h1>Thank you</h1><p>You rated ticket #${String(r.ticket_number)} ${String(r.score)} out of 5 (${LABELS[r.score] ?? ""}).</p>${r.comment ? html`<blockquote>${r.comment}</blockquote>` : ""}`,
  );

export function csatPageRoutes(deps: Deps) {
  const params = t.Object({ token: t.String({ minLength: 1, maxLength: 128 }) });
  return new Elysia({ name: "csat-page" })
    .get(
      "/r/:token",
      async ({ params: { token }, query }) => {
        try {
          const found = await ticketOfCsatToken(deps, token);
          if (found.rating) return thanks(found.rating);
          const chosen = Number(query.score);
          const options = [5, 4, 3, 2, 1].map(
            (n) =>
              html`<label class="choice"><input type="radio" name="score" value="${String(n)}" required${n === chosen ? html` checked` : ""}> ${String(n)} — ${LABELS[n]!}</label>`,
          );
          return page(
            "Rate our help",
            html`<h1>How did we do on ticket #${String(found.number)}?</h1>
<form method="post"><fieldset><legend>Your rating</legend>${options}</fieldset>
<div class="field"><label for="comment">Anything to add? (optional)</label><textarea id="comment" name="comment" rows="4" maxlength="${String(CSAT_LIMITS.comment)}"></textarea></div>
<div class="actions"><button type="submit">Send rating</button></div></form>`,
          );
        } catch (error) {
          return refused(error);
        }
      },
      {
        params,
        query: t.Object({ score: t.Optional(t.String({ maxLength: 1 })) }),
        detail: { summary: "The rating form of a resolution email's link", tags: ["CSAT"] },
      },
    )
    .post(
      "/r/:token",
      async ({ params: { token }, body }) => {
        try {
          const rating = await rateByToken(deps, token, Number(body.score), body.comment ?? null);
          return thanks(rating);
        } catch (error) {
          return refused(error);
        }
      },
      {
        params,
        body: t.Object({ score: t.String({ maxLength: 1 }), comment: t.Optional(t.String({ maxLength: CSAT_LIMITS.comment })) }),
        detail: { summary: "Rate a resolved ticket through its link, once", tags: ["CSAT"] },
      },
    );
}
