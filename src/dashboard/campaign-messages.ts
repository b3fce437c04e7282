// A campaign's messages in the outbox: filtered by status, in cursor pages, with why each is where
// it is (sent, retrying and when, held, failed, cancelled).
import { type Campaign } from "../campaigns/model.ts";
import { listMessages } from "../campaigns/queries.ts";
import { type DashboardContext, shellPage } from "./kit/index.ts";
import { CampaignMessages } from "./views/campaign-messages.ts";

const MESSAGE_STATUSES = ["pending", "sending", "parked", "sent", "held", "failed", "cancelled"];

export async function messagesPage(ctx: DashboardContext, c: Campaign, query: Record<string, string | undefined>): Promise<Response> {
  const status = query.status && MESSAGE_STATUSES.includes(query.status) ? query.status : undefined;
  const page = await listMessages(ctx.deps, ctx.orgId, c.id, { status, cursor: query.cursor || undefined, limit: 25 });
  const body = CampaignMessages({ campaign: c, statuses: MESSAGE_STATUSES, status, page, query });
  return shellPage(ctx, { title: `Messages · ${c.name}`, active: "campaigns", body });
}
