// The demo organisation seeded on a fresh database (SEED_DEMO=1, the default), so a first start
// has something to sign in to. Its admin password is generated, printed once, and never stored in
// the clear; later starts print the same sign-in URL, email and widget key, but not the password.
import { randomBytes } from "node:crypto";
import { and, asc, eq, isNull } from "drizzle-orm";
import { members, memberships, orgs, widgetKeys } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { createOrg } from "./service.ts";

export const DEMO_EMAIL = "admin@demo.example";

export interface DemoInfo {
  orgId: string;
  email: string;
  /** Only on the start that created it. */
  password?: string;
  widgetKey: string;
}

export async function ensureDemo(deps: Deps): Promise<DemoInfo | null> {
  const [anyOrg] = await deps.db.select({ id: orgs.id }).from(orgs).limit(1);
  if (!anyOrg) {
    const password = randomBytes(12).toString("base64url");
    const created = await createOrg(deps, { name: "Demo", adminEmail: DEMO_EMAIL, adminPassword: password, isDemo: true });
    return { orgId: created.org_id, email: created.admin_email, password, widgetKey: created.widget_key };
  }
  const [demo] = await deps.db
    .select({ orgId: orgs.id, email: members.email, widgetKey: widgetKeys.key })
    .from(orgs)
    .innerJoin(memberships, eq(memberships.orgId, orgs.id))
    .innerJoin(members, eq(members.id, memberships.memberId))
    .innerJoin(widgetKeys, and(eq(widgetKeys.orgId, orgs.id), isNull(widgetKeys.revokedAt)))
    .where(eq(orgs.isDemo, true))
    .orderBy(asc(memberships.createdAt))
    .limit(1);
  return demo ?? null;
}
