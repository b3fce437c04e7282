// The invitation email, through the outbox to a real SMTP server on loopback: inviting someone
// emails them the link (the same link the admin is shown once), which works; the outbox never holds
// the link in clear, and keeps only the invitation's id once the email is out; an invitation revoked
// before its email goes is not mailed; without SMTP nothing is queued and the admin sends the link.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { createSender } from "../../src/compose.ts";
import { outbox } from "../../src/db/schema/index.ts";
import { INVITATION_MAIL_KIND } from "../../src/orgs/invitation-mail.ts";
import type { Sender } from "../../src/outbox/loop.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { emailEnv, MAIL_FROM } from "../support/email.ts";
import { startSmtp, type TestSmtp } from "../support/smtp.ts";

let smtp: TestSmtp;
let app: TestApp;
let sender: Sender;
let org: Awaited<ReturnType<typeof seedOrg>>;
let auth: Record<string, string>;

beforeAll(async () => {
  smtp = await startSmtp();
  app = await createTestApp(emailEnv(smtp.url));
  sender = createSender(app.deps);
  org = await seedOrg(app, { name: "Acme Support" });
  auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
}, 60_000);
afterAll(async () => {
  await sender.stop();
  await app.close();
  await smtp.close();
});

const invite = async (email: string) => {
  const res = await app.request("/api/members/invitations", { headers: auth, json: { email, roles: ["inbox:view", "inbox:manage"] } });
  expect(res.status).toBe(201);
  return (await res.json()) as { invitation: { id: string }; invite_url: string; emailed: boolean };
};
const rowsOf = async () =>
  app.deps.db
    .select()
    .from(outbox)
    .where(and(eq(outbox.orgId, org.org_id), eq(outbox.kind, INVITATION_MAIL_KIND)));

describe("the invitation email", () => {
  test("carries the link the admin was shown; the link works; the outbox never keeps it in clear", async () => {
    const created = await invite("grace@invitee.example");
    expect(created.emailed).toBe(true);
    const token = created.invite_url.split("/").pop()!;
    const queued = await rowsOf();
    expect(queued).toHaveLength(1);
    expect(JSON.stringify(queued)).not.toContain(token);

    await sender.tick();
    const [mail, ...more] = smtp.received.filter((m) => m.to.includes("grace@invitee.example"));
    expect(more).toEqual([]);
    expect(mail!.headers.get("subject")).toBe("Join Acme Support on svc-agents");
    expect(mail!.headers.get("from")).toBe(`Acme Support <${MAIL_FROM}>`);
    expect(mail!.headers.get("auto-submitted")).toBe("auto-generated");
    const text = mail!.parts.get("text/plain")!;
    expect(text).toContain(created.invite_url);
    expect(text).toContain("Your roles: Answer tickets and edit customers."); // in words, as the overview says them
    expect(text).not.toContain("inbox:manage");
    expect(text).not.toContain(org.admin_email);
    expect(mail!.parts.get("text/html")).toContain(`href="${created.invite_url}"`);
    expect((await app.request(new URL(created.invite_url).pathname)).status).toBe(200);

    // Sent: the payload keeps the invitation's id only.
    const [sent] = (await rowsOf()).filter((r) => r.payload.invitation_id === created.invitation.id);
    expect(sent?.status).toBe("sent");
    expect(sent?.payload).toEqual({ invitation_id: created.invitation.id });
  });

  test("an invitation revoked before its email goes is not mailed", async () => {
    const created = await invite("revoked@invitee.example");
    const revoked = await app.request(`/api/members/invitations/${created.invitation.id}`, { method: "DELETE", headers: auth });
    expect(revoked.status).toBe(204);
    await sender.tick();
    expect(smtp.received.filter((m) => m.to.includes("revoked@invitee.example"))).toEqual([]);
    const all = await rowsOf();
    expect(all.find((r) => r.payload.invitation_id === created.invitation.id)).toMatchObject({ status: "cancelled" });
  });
});

describe("without SMTP", () => {
  test("nothing is queued: the admin sends the link shown", async () => {
    const bare = await createTestApp();
    try {
      const o = await seedOrg(bare);
      const h = { authorization: `Bearer ${await signIn(bare, o.admin_email, o.password)}` };
      const res = await bare.request("/api/members/invitations", { headers: h, json: { email: "quiet@invitee.example", roles: ["inbox:view"] } });
      expect(res.status).toBe(201);
      expect(((await res.json()) as { emailed: boolean }).emailed).toBe(false);
      expect(await bare.deps.db.select().from(outbox).where(eq(outbox.kind, INVITATION_MAIL_KIND))).toEqual([]);
    } finally {
      await bare.close();
    }
  }, 60_000);
});
