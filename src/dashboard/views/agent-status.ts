// An agent's status as a badge, and what that status means for the widget, said where an admin looks.
import { type Html, html } from "../../html/html.ts";
import { badge } from "../kit/index.ts";
import type { Agent } from "../../agents/service.ts";

export function statusBadge(status: string): Html {
  return badge(status, status === "active" ? "ok" : status === "disabled" ? "danger" : "");
}

/** What the agent's status means for the widget, said where an admin looks. */
export function statusNote(agent: Pick<Agent, "status">): Html {
  if (agent.status === "active") return html`<p class="muted">This is the active agent: it answers the widget and chat, and tools act as it.</p>`;
  const named = html`when a widget names it with <code>agent_id</code>`;
  if (agent.status === "disabled")
    return html`<p class="muted">Disabled: it answers nothing, not even ${named}, and takes no handoffs. Enable it to use it again.</p>`;
  return html`<p class="muted">Inactive: it answers only ${named}, or when a routing rule hands a conversation over to it.</p>`;
}
