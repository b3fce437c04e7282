// Shared set-up for the inbox tests: an org with its admin's member id, and customers.
import { eq } from "drizzle-orm";
import { endUsers, members, memberships } from "../../src/db/schema/index.ts";
import { seedOrg, signIn, type TestApp } from "../support/app.ts";

export type InboxOrg = Awaited<ReturnType<typeof seedOrg>> & { admin_id: string };

export async function seedInboxOrg(app: TestApp, flags?: string[]): Promise<InboxOrg> {
  const org = await seedOrg(app, flags ? { flags } : {});
  const [admin] = await app.deps.db.select({ id: members.id }).from(members).where(eq(members.email, org.admin_email));
  return { ...org, admin_id: admin!.id };
}

export async function seedCustomer(app: TestApp, orgId: string, fields: { externalId?: string; email?: string; name?: string } = {}) {
  const [user] = await app.deps.db
    .insert(endUsers)
    .values({ orgId, externalId: fields.externalId ?? null, email: fields.email ?? null, name: fields.name ?? "" })
    .returning();
  return user!;
}

/** A second member of the org holding only `roles`; returns their bearer token. */
export async function addMember(app: TestApp, orgId: string, roles: string[]): Promise<{ token: string; memberId: string }> {
  const email = `member-${crypto.randomUUID()}@example.com`;
  const password = `pw-${crypto.randomUUID()}`;
  const [member] = await app.deps.db
    .insert(members)
    .values({ email, name: "Member", passwordHash: await Bun.password.hash(password) })
    .returning();
  await app.deps.db.insert(memberships).values({ orgId, memberId: member!.id, roles });
  return { token: await signIn(app, email, password), memberId: member!.id };
}
