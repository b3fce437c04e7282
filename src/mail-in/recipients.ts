// Which recipients the inbound channel accepts (docs/interface.md H: never an open relay). Only addresses at
// INBOUND_EMAIL_DOMAIN, and there only `reply+<token>` with a live token (a ticket and its
// customer) and an org's support alias (a new ticket). Everything else gets 550 at RCPT TO.
import { eq } from "drizzle-orm";
import { orgMailSettings } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { replyTokenTarget } from "../inbox/reply-tokens.ts";

export type Route = { kind: "reply"; orgId: string; ticketId: string; endUserId: string | null } | { kind: "alias"; orgId: string };

const REPLY = /^reply\+([0-9a-f]{32})$/;

/** The local part of an address at our inbound domain (lower-cased), or null for any other address. */
export function localPartAt(address: string, domain: string | undefined): string | null {
  if (!domain || address.length > 320) return null;
  const at = address.lastIndexOf("@");
  if (at <= 0 || address.slice(at + 1).toLowerCase() !== domain) return null;
  const local = address.slice(0, at).toLowerCase();
  return local.length <= 64 ? local : null;
}

export async function resolveRecipient(deps: Pick<Deps, "db" | "config" | "now">, address: string): Promise<Route | null> {
  const local = localPartAt(address, deps.config.inbound.domain);
  if (local === null) return null;
  const reply = REPLY.exec(local);
  if (reply) {
    const row = await replyTokenTarget(deps, reply[1]!);
    return row ? { kind: "reply", ...row } : null;
  }
  const [org] = await deps.db.select({ orgId: orgMailSettings.orgId }).from(orgMailSettings).where(eq(orgMailSettings.supportAlias, local));
  return org ? { kind: "alias", orgId: org.orgId } : null;
}
