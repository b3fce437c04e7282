// Shared set-up for the email series tests: orgs with a signed-in admin, members with chosen
// roles, customers, and a transport that records what it is asked to send (injected into the
// sender like SMTP would be; the SMTP path itself is tested against a real server in test/mail).
import { eq } from "drizzle-orm";
import { endUsers, members, memberships } from "../../src/db/schema/index.ts";
import type { MailTransport, OutgoingMail } from "../../src/mail/smtp.ts";
import { seedOrg, signIn, type TestApp } from "../support/app.ts";

export type SeriesOrg = Awaited<ReturnType<typeof seedOrg>> & { auth: Record<string, string>; adminId: string };

export async function seedSeriesOrg(app: TestApp): Promise<SeriesOrg> {
  const org = await seedOrg(app);
  const [admin] = await app.deps.db.select({ id: members.id }).from(members).where(eq(members.email, org.admin_email));
  return { ...org, adminId: admin!.id, auth: { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` } };
}

export async function addMember(app: TestApp, orgId: string, roles: string[]): Promise<Record<string, string>> {
  const email = `member-${crypto.randomUUID()}@example.com`;
  const password = `pw-${crypto.randomUUID()}`;
  const [member] = await app.deps.db
    .insert(members)
    .values({ email, name: "Member", passwordHash: await Bun.password.hash(password) })
    .returning();
  await app.deps.db.insert(memberships).values({ orgId, memberId: member!.id, roles });
  return { authorization: `Bearer ${await signIn(app, email, password)}` };
}

export async function seedCustomer(
  app: TestApp,
  orgId: string,
  fields: { externalId?: string; email?: string | null; name?: string; traits?: Record<string, unknown> } = {},
) {
  const [user] = await app.deps.db
    .insert(endUsers)
    .values({
      orgId,
      externalId: fields.externalId ?? null,
      email: fields.email === undefined ? `${crypto.randomUUID()}@example.com` : fields.email,
      name: fields.name ?? "",
      traits: fields.traits ?? {},
      verified: true,
    })
    .returning();
  return user!;
}

export interface RecordingTransport extends MailTransport {
  sent: OutgoingMail[];
}

export function recordingTransport(): RecordingTransport {
  const sent: OutgoingMail[] = [];
  return {
    sent,
    async send(mail) {
      sent.push(mail);
    },
    close() {},
  };
}

export const step = (subject: string, delay_seconds = 0, extra: Record<string, unknown> = {}) => ({
  subject,
  body: `Body of ${subject}`,
  delay_seconds,
  ...extra,
});
