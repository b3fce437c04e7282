// A ticket's status and priority as badges, the same on the inbox and on a customer's page.
import type { Html } from "../../html/html.ts";
import { badge } from "../kit/table.ts";

export function statusBadge(status: string): Html {
  return badge(status, status === "open" ? "accent" : status === "pending" ? "warn" : status === "resolved" ? "ok" : "");
}

export function priorityBadge(priority: string): Html {
  return badge(priority, priority === "urgent" ? "danger" : priority === "high" ? "warn" : "");
}
