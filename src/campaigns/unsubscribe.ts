// One-click unsubscribe (RFC 8058, docs/interface.md F). Every sent message carries its own unguessable
// token (256 random bits; only its SHA-256 is stored) in the body's link and in
// `List-Unsubscribe: <BASE_URL/u/TOKEN>` with `List-Unsubscribe-Post: List-Unsubscribe=One-Click`.
//
//   GET  /u/TOKEN  a confirmation page with one button; it never unsubscribes by itself, because
//                  mail scanners and link previews fetch every URL in a message.
//   POST /u/TOKEN  unsubscribes at once: no cookie, no session, no CSRF token (RFC 8058 section 3.2 —
//                  the mailbox provider POSTs from its own servers). The body
//                  (`List-Unsubscribe=One-Click`) is not needed: the POST itself is the request.
//
// The customer is then never mailed again by any campaign of that org (src/campaigns/enrolments.ts
// `unsubscribeCustomer`; the sender checks again before every send). Pages use the shared layout
// and its strict CSP, with every value escaped (src/html/html.ts).
import { emitWebhookEvent } from "../webhooks/events.ts";
import { and, eq } from "drizzle-orm";
import { Elysia, t } from "elysia";
import { recordActivity } from "../activity/log.ts";
import { endEnrolmentsOf } from "./enrolments.ts";
import { customerContacts } from "../customers/queries.ts";
import { mailUnsubscribes, mailUnsubscribeTokens } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { mintToken, sha256Hex } from "../crypto/tokens.ts";
import { html, page } from "../html/html.ts";
import { orgNames } from "../tenancy/orgs.ts";

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** Mints the token of one send and returns the unsubscribe URL. */
export async function issueUnsubscribeToken(
  deps: Pick<Deps, "db" | "now" | "config">,
  input: { orgId: string; endUserId: string; messageId: string },
): Promise<string> {
  const token = mintToken("");
  await deps.db.insert(mailUnsubscribeTokens).values({ tokenHash: sha256Hex(token), ...input, createdAt: deps.now() });
  return `${deps.config.baseUrl}/u/${token}`;
}

/**
 * Unsubscribes a customer from every campaign of the org, for good: recorded, every enrolment
 * ends and every queued message is cancelled, in one transaction; the sender also checks before
 * each send. Returns whether this was the first time.
 */
export async function unsubscribeCustomer(
  deps: Pick<Deps, "db" | "now">,
  { orgId, endUserId, messageId }: { orgId: string; endUserId: string; messageId: string | null },
): Promise<boolean> {
  return deps.db.transaction(async (tx) => {
    const now = deps.now();
    const [fresh] = await tx.insert(mailUnsubscribes).values({ orgId, endUserId, messageId, createdAt: now }).onConflictDoNothing().returning();
    await endEnrolmentsOf(tx, { orgId, endUserId, now });
    if (fresh)
      await recordActivity(
        { db: tx, now: deps.now },
        {
          orgId,
          actor: { kind: "customer", endUserId, sessionId: "unsubscribe-link" },
          action: "campaign.unsubscribed",
          objectType: "end_user",
          objectId: endUserId,
          summary: { message_id: messageId },
        },
      );
    if (fresh)
      await emitWebhookEvent(tx, {
        orgId,
        type: "campaign.unsubscribed",
        data: { customer_id: endUserId, message_id: messageId, unsubscribed_at: now.toISOString(), updated_at: now.toISOString() },
        now,
      }); // webhooks, committed with it
    return fresh !== undefined;
  });
}

async function lookup(deps: Pick<Deps, "db">, token: string) {
  if (!TOKEN.test(token)) return null;
  const [row] = await deps.db
    .select({
      orgId: mailUnsubscribeTokens.orgId,
      endUserId: mailUnsubscribeTokens.endUserId,
      messageId: mailUnsubscribeTokens.messageId,
      orgName: orgNames.name,
      email: customerContacts.email,
    })
    .from(mailUnsubscribeTokens)
    .innerJoin(orgNames, eq(orgNames.id, mailUnsubscribeTokens.orgId))
    .innerJoin(customerContacts, eq(customerContacts.id, mailUnsubscribeTokens.endUserId))
    .where(eq(mailUnsubscribeTokens.tokenHash, sha256Hex(token)));
  return row ?? null;
}

/** `j***@example.com`: enough for the owner to recognise, not a full address for whoever holds the link. */
function masked(email: string | null): string {
  if (!email) return "your address";
  const [local, domain] = email.split("@");
  return `${(local ?? "").slice(0, 1)}***@${domain ?? ""}`;
}

const invalidLink = () =>
  page("Unsubscribe", html`<h1>This link is not valid</h1><p>It may have been mistyped. Use the link in the most recent email you received.</p>`, {
    status: 404,
  });

export function unsubscribeRoutes(deps: Pick<Deps, "db" | "now">) {
  const params = t.Object({ token: t.String({ minLength: 1, maxLength: 128, description: "The token from the email's unsubscribe link." }) });
  return new Elysia({ name: "unsubscribe" })
    .get(
      "/u/:token",
      async ({ params: { token } }) => {
        const found = await lookup(deps, token);
        if (!found) return invalidLink();
        const [already] = await deps.db
          .select({ at: mailUnsubscribes.createdAt })
          .from(mailUnsubscribes)
          .where(and(eq(mailUnsubscribes.orgId, found.orgId), eq(mailUnsubscribes.endUserId, found.endUserId)));
        if (already)
          return page("Unsubscribed", html`<h1>You are unsubscribed</h1><p>${masked(found.email)} receives no more emails from ${found.orgName}'s series.</p>`);
        return page(
          "Unsubscribe",
          html`<h1>Unsubscribe?</h1>
<p>Stop all email series from <strong>${found.orgName}</strong> to ${masked(found.email)}.</p>
<form method="post">
<input type="hidden" name="List-Unsubscribe" value="One-Click">
<div class="actions"><button type="submit">Unsubscribe</button></div>
</form>`,
        );
      },
      {
        params,
        detail: {
          summary: "Unsubscribe confirmation page",
          description: "Shows a confirmation form; never unsubscribes by itself (mail scanners prefetch links).",
          tags: ["Email series"],
        },
      },
    )
    .post(
      "/u/:token",
      async ({ params: { token } }) => {
        const found = await lookup(deps, token);
        if (!found) return invalidLink();
        await unsubscribeCustomer(deps, { orgId: found.orgId, endUserId: found.endUserId, messageId: found.messageId });
        return page("Unsubscribed", html`<h1>You are unsubscribed</h1><p>${masked(found.email)} receives no more emails from ${found.orgName}'s series.</p>`);
      },
      {
        params,
        detail: {
          summary: "One-click unsubscribe (RFC 8058)",
          description:
            "Unsubscribes the customer from every email series of the org at once. Needs no session; the body (List-Unsubscribe=One-Click, form-encoded) is not required.",
          tags: ["Email series"],
        },
      },
    );
}
