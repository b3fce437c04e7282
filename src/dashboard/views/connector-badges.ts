// A connector's status, and the hints its server gives about each tool, as badges (the list and
// one connector's page).
import type { Html } from "../../html/html.ts";
import { html } from "../../html/html.ts";
import { badge } from "../kit/table.ts";

export function connectorStatusBadge(status: string): Html {
  return badge(status, status === "connected" ? "ok" : status === "error" ? "danger" : "warn");
}

export interface ToolHints {
  destructive: boolean;
  read_only?: boolean;
  idempotent?: boolean;
  open_world?: boolean;
  output_schema?: unknown;
}

/** The server's annotations in words; a destructive one is confirmed like ours before an agent may use it. */
export function hintBadges(tool: ToolHints): Html {
  return html`${tool.read_only ? html`<span class="badge">read-only</span>` : ""}${
    tool.destructive ? html`<span class="badge danger">destructive</span>` : ""
  }${tool.idempotent ? html` <span class="badge">idempotent</span>` : ""}${
    tool.open_world === false ? html` <span class="badge">closed world</span>` : ""
  }${tool.output_schema ? html` <span class="badge accent">structured output</span>` : ""}`;
}
