// Dashboard tests act as a browser would: a session cookie, same-origin form posts.
import { randomBytes } from "node:crypto";
import { createSession } from "../../src/auth/sessions.ts";
import type { TestApp } from "../support/app.ts";
import { seedOrg } from "../support/app.ts";

export interface Member {
  cookie: string;
  orgId: string;
  widgetKey?: string;
  agentId?: string;
  email: string;
  password: string;
}

/** An org with its admin (every role), signed in through the sign-in form as a browser does. */
export async function adminOf(app: TestApp, name?: string): Promise<Member> {
  const org = await seedOrg(app, name ? { name } : {});
  const res = await app.request("/signin", {
    form: { email: org.admin_email, password: org.password, return_to: "/dashboard" },
    headers: { origin: app.deps.config.baseUrl },
  });
  if (res.status !== 303) throw new Error(`sign-in failed: ${res.status}`);
  const cookie = res.headers.get("set-cookie")!.split(";")[0]!;
  return { cookie, orgId: org.org_id, email: org.admin_email, password: org.password, widgetKey: org.widget_key, agentId: org.agent_id };
}

/** A member of `orgId` holding only `roles`, signed in. */
export async function memberWith(app: TestApp, orgId: string, roles: string[]): Promise<Member> {
  const { members, memberships } = await import("../../src/db/schema/index.ts");
  const email = `m-${randomBytes(4).toString("hex")}@example.com`;
  const password = `pw-${randomBytes(9).toString("base64url")}`;
  const [member] = await app.deps.db
    .insert(members)
    .values({ email, name: "Member", passwordHash: await app.deps.passwords.hash(password) })
    .returning();
  await app.deps.db.insert(memberships).values({ orgId, memberId: member!.id, roles });
  const session = await createSession(app.deps, member!.id);
  return { cookie: `svc_session=${session.token}`, orgId, email, password };
}

/** GET as the member's browser. */
export function get(app: TestApp, who: Member, path: string) {
  return app.request(path, { headers: { cookie: who.cookie } });
}

/** A same-origin form post as the member's browser. */
export function post(app: TestApp, who: Member, path: string, form: Record<string, string>) {
  return app.request(path, { form, headers: { cookie: who.cookie, origin: app.deps.config.baseUrl } });
}

/** The flash cookie a redirect sets, as the next request sends it. */
export function withFlash(who: Member, res: Response): Member {
  const flash = res.headers.getSetCookie().find((c) => c.startsWith("svc_flash="));
  return flash ? { ...who, cookie: `${who.cookie}; ${flash.split(";")[0]}` } : who;
}
