// What disabling an agent stops, said in full on its confirmation page (for the active agent: the
// widget, chat and tool calls, until another is activated).
import { type Html, html } from "../../html/html.ts";
import type { Agent } from "../../agents/service.ts";

export interface DisableConsequencesProps {
  agent: Pick<Agent, "status">;
}

function activeConsequence(): Html {
  const widget = html`the widget cannot load its agent (<code>/api/sdk/config</code> answers 404 <code>no_active_agent</code>)`;
  const chat = html`chat messages are refused with 404 “This organisation has no active agent.”`;
  const tools = html`tool calls over MCP are refused (-32002, the agent is disabled)`;
  return html`<p><strong>This is the active agent.</strong> Until you activate another agent, the organisation has none: ${widget}, ${chat}, and ${tools}.</p>`;
}

export function DisableConsequences(p: DisableConsequencesProps): Html {
  const consequence =
    p.agent.status === "active"
      ? activeConsequence()
      : html`<p>It stops answering chats that name it with <code>agent_id</code> (404) and takes no more handoffs.</p>`;
  return html`${consequence}
<p>Its settings, flow and action toggles are kept; enable it again at any time.</p>`;
}
