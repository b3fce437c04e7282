// The org's setup checklist: an active agent, published documents, the widget installed (traffic
// seen from a widget key), identity verification and connectors, each item saying what to do
// next. Its own module because two callers read it — the `setup_status` tool (src/setup/tools.ts)
// and the dashboard overview (src/dashboard/routes.ts) — and it is reads only: it writes nothing
// and needs no role beyond what each caller checks.
import { getAgent } from "../agents/service.ts";
import { listConnectors } from "../connectors/service.ts";
import { lastChatAt } from "../conversations/counts.ts";
import { hasCustomerEvents } from "../customers/events.ts";
import type { Deps } from "../deps.ts";
import { hasWidgetTicket } from "../inbox/counts.ts";
import { customActionCount } from "../integrations/counts.ts";
import { docCountsByStatus } from "../knowledge/counts.ts";
import { liveWidgetKeyCount } from "../orgs/counts.ts";
import { identityView } from "../orgs/widget-access.ts";

interface Item {
  key: string;
  done: boolean;
  required: boolean;
  detail: string;
  [extra: string]: unknown;
}

/**
 * Widget traffic: what only a request carrying one of the org's widget keys writes — a chat
 * conversation (/api/sdk/chat), a behavioural event (/api/sdk/events) or a ticket sent from a
 * browser (/api/sdk/tickets/create, source `widget`). Existence checks, each stopping at the first
 * row of the org's index range, and the newest chat from (org_id, created_at): an org with millions
 * of events costs no more than a new one.
 */
async function widgetTraffic(deps: Pick<Deps, "db">, orgId: string) {
  const [last, events, browserTickets] = await Promise.all([lastChatAt(deps, orgId), hasCustomerEvents(deps.db, orgId), hasWidgetTicket(deps, orgId)]);
  return { chats: last !== null, events, browser_tickets: browserTickets, last_chat_at: last?.toISOString() ?? null };
}

/** The checklist behind setup_status; the dashboard overview shows it too. */
export async function setupStatus(deps: Pick<Deps, "db" | "now" | "statements">, orgId: string) {
  const [agent, docCounts, keys, traffic, identity, connectorList, actions] = await Promise.all([
    getAgent(deps, orgId),
    docCountsByStatus(deps, orgId),
    liveWidgetKeyCount(deps, orgId),
    widgetTraffic(deps, orgId),
    identityView(deps, orgId),
    listConnectors(deps, orgId),
    customActionCount(deps, orgId),
  ]);
  const seen = traffic.chats || traffic.events || traffic.browser_tickets;
  const published = docCounts.find((d) => d.status === "published")?.n ?? 0;
  const drafts = docCounts.find((d) => d.status === "draft")?.n ?? 0;
  const liveKeys = keys;
  const servers = connectorList.servers;
  const items: Item[] = [
    {
      key: "active_agent",
      done: agent !== null,
      required: true,
      detail: agent ? `${agent.name} answers chats.` : "No agent is active: activate one in the dashboard.",
      agent: agent ? { id: agent.id, name: agent.name, instructions_set: agent.instructions.trim() !== "" } : null,
    },
    {
      key: "docs",
      done: published > 0,
      required: true,
      detail:
        published > 0
          ? `${published} published document(s) the agent answers from.`
          : "No published document: add one with setup_add_doc or setup_import_doc_from_url.",
      published,
      drafts,
    },
    {
      key: "widget_installed",
      done: liveKeys > 0 && seen,
      required: true,
      detail:
        liveKeys === 0
          ? "No live widget key: create one in the dashboard (Settings → Widget keys)."
          : seen
            ? "Traffic from a widget key has been seen (a chat, an event or a browser ticket)."
            : "No traffic from a widget key yet: paste the snippet from setup_get_install_snippet into your site.",
      live_keys: liveKeys,
      traffic,
    },
    {
      key: "identity_verification",
      done: identity.enabled,
      required: false,
      detail: identity.enabled
        ? "On: customers are identified by a token your backend signs."
        : "Off: customer ids sent by the widget are taken as claims. Recommended when your visitors sign in.",
      enabled: identity.enabled,
    },
    {
      key: "connectors",
      done: servers.length + actions > 0,
      required: false,
      detail:
        servers.length + actions > 0 ? "The agent can act in other systems." : "Optional: connect an MCP server or add a custom HTTP action in the dashboard.",
      servers: servers.map((s) => ({ id: s.id, name: s.name, status: s.status, tool_count: s.tool_count })),
      custom_actions: actions,
    },
  ];
  return { ready: items.every((i) => !i.required || i.done), items };
}
