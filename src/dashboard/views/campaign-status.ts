// A campaign's status as a badge, on the list and on the campaign's page.
import type { Html } from "../../html/html.ts";
import { badge } from "../kit/index.ts";

export function statusBadge(status: string): Html {
  return badge(status, status === "active" ? "ok" : status === "paused" ? "warn" : status === "archived" ? "" : "accent");
}
