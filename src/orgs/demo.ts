// The demo organisation seeded on a fresh database (SEED_DEMO=1, the default), so a first start
// has something to sign in to and an agent that answers something real. Its admin password is
// generated, printed once (or, when standard output is not a terminal, written to a 0600 file in
// DATA_DIR: src/orgs/demo-password.ts), and never stored in the database in the clear; later
// starts print the same sign-in URL, email, widget key and agent id, but not the password. A few
// help-center articles are seeded with it, so the builtin provider (no model, no key) answers
// from them out of the box.
import { randomBytes } from "node:crypto";
import { and, asc, eq, isNull } from "drizzle-orm";
import { widgetKeys } from "../db/schema/index.ts";
import { activeAgentId } from "../agents/lookups.ts";
import type { Deps } from "../deps.ts";
import { createDoc, type DocInput } from "../knowledge/docs.ts";
import { memberCards } from "../tenancy/members.ts";
import { membershipRoles } from "../tenancy/memberships.ts";
import { anyOrg, orgNames } from "../tenancy/orgs.ts";
import { createOrg } from "./service.ts";

export const DEMO_EMAIL = "admin@demo.example";

export interface DemoInfo {
  orgId: string;
  email: string;
  /** Only on the start that created it. */
  password?: string;
  widgetKey: string;
  /** The demo org's active agent (the one whose actions a newcomer switches on). */
  agentId: string | null;
}

/** The demo knowledge base: short, realistic help-center articles. */
export const DEMO_DOCS: readonly DocInput[] = [
  {
    title: "Resetting your password",
    tags: ["account", "sign-in"],
    body: [
      "If you forgot your password, you can reset it yourself in a minute.",
      "",
      "To reset your password:",
      '1. Open the sign-in page and choose "Forgot password?".',
      "2. Enter the email address of your account. We send you a reset link.",
      "3. Open the link within 60 minutes and choose a new password of at least 8 characters.",
      "",
      "The reset link works once. If the email does not arrive within 5 minutes, check your spam folder, " +
        "then ask for a new link. Resetting your password signs you out on every other device.",
    ].join("\n"),
  },
  {
    title: "Billing, invoices and payment methods",
    tags: ["billing"],
    body: [
      "Plans are billed monthly or yearly, in advance. Yearly billing saves two months.",
      "",
      "Invoices are emailed to the billing contact on the first day of each billing period, " +
        "and every past invoice can be downloaded as a PDF under Settings > Billing > Invoices.",
      "",
      "We accept credit and debit cards (Visa, Mastercard, American Express) and, on yearly plans, bank transfer. " +
        'To change your payment method or billing address, open Settings > Billing and choose "Update payment details".',
      "",
      "Refunds: if you cancel within 14 days of a charge, we refund it in full to the original payment method within 5 to 10 business days.",
    ].join("\n"),
  },
  {
    title: "Getting started",
    tags: ["onboarding"],
    body: [
      "Welcome! Here is how to get going in three steps.",
      "",
      "1. Create your workspace and invite your teammates from Settings > Members.",
      "2. Import your data: upload a CSV file, or connect one of the supported integrations under Settings > Integrations.",
      "3. Install the mobile app (iOS and Android) to get notifications on the go.",
      "",
      "The free trial lasts 14 days and needs no credit card. At the end of the trial, choose a plan under Settings > Billing to keep your data.",
    ].join("\n"),
  },
  {
    title: "Contacting a person",
    tags: ["support"],
    body: [
      "Our support team is available Monday to Friday, 9:00 to 18:00 (CET). You can talk to a person at any time by asking for one in this chat: " +
        "we create a ticket and a teammate answers by email, usually within 4 business hours.",
      "",
      "For urgent problems (the service is down, or you cannot sign in at all), " +
        'say "urgent" in your message and we prioritise it. You can also email support@demo.example.',
    ].join("\n"),
  },
  {
    title: "Cancelling or changing your plan",
    tags: ["billing", "account"],
    body: [
      "You can upgrade, downgrade or cancel your plan at any time under Settings > Billing > Plan.",
      "",
      "Upgrades take effect at once and are prorated. Downgrades and cancellations take effect at the end of the current billing period, " +
        "and you keep access until then. After cancelling, your data is kept for 30 days so you can export it, then deleted.",
    ].join("\n"),
  },
];

/** `beforeCreate` receives the new admin's password before the org exists (src/orgs/demo-password.ts keeps it); if it throws, nothing is created. */
export async function ensureDemo(
  deps: Pick<Deps, "cipher" | "config" | "db" | "guard" | "invalidation" | "knowledge" | "now" | "passwords" | "tools">,
  options: { beforeCreate?: (password: string) => void } = {},
): Promise<DemoInfo | null> {
  if (!(await anyOrg(deps.db))) {
    const password = randomBytes(12).toString("base64url");
    options.beforeCreate?.(password);
    const created = await createOrg(deps, { name: "Demo", adminEmail: DEMO_EMAIL, adminPassword: password, isDemo: true });
    for (const doc of DEMO_DOCS) await createDoc(deps, created.org_id, doc);
    // Its agent has no model of its own: it follows the org's, then the operator's (LLM_PROVIDER),
    // as any new agent does (README "LLM providers").
    return { orgId: created.org_id, email: created.admin_email, password, widgetKey: created.widget_key, agentId: created.agent_id };
  }
  const [demo] = await deps.db
    .select({ orgId: orgNames.id, email: memberCards.email, widgetKey: widgetKeys.key })
    .from(orgNames)
    .innerJoin(membershipRoles, eq(membershipRoles.orgId, orgNames.id))
    .innerJoin(memberCards, eq(memberCards.id, membershipRoles.memberId))
    .innerJoin(widgetKeys, and(eq(widgetKeys.orgId, orgNames.id), isNull(widgetKeys.revokedAt)))
    .where(eq(orgNames.isDemo, true))
    .orderBy(asc(membershipRoles.createdAt))
    .limit(1);
  return demo ? { ...demo, agentId: await activeAgentId(deps, demo.orgId) } : null;
}
