// The nav's ticket queues (open, unassigned, mine; shell.ts) stay current on every dashboard page:
// on each of the org's ticket events the counts are read again (GET /api/tickets/counts). A page
// that already follows those events — the inbox list — wakes them from its own stream, so a page
// holds one stream of the org's events, never two (each member has a bounded number of streams).
import { followEvents, ORG_EVENTS, TICKETS_CHANGED } from "./live-thread.ts";

export function navCounts(): void {
  const queues = document.getElementById("nav-queues");
  if (!queues) return;
  const org = queues.getAttribute("data-org") ?? "";
  const update = async (): Promise<void> => {
    const res = await fetch("/api/tickets/counts", { headers: { "X-Org-Id": org }, credentials: "same-origin" });
    if (!res.ok) return;
    const counts = (await res.json()) as Record<string, unknown>;
    for (const [key, n] of Object.entries(counts)) {
      const badge = queues.querySelector(`[data-count="${key}"]`);
      if (badge && typeof n === "number") badge.textContent = String(n);
    }
  };
  document.addEventListener(TICKETS_CHANGED, () => void update());
  if (!document.querySelector(`[data-live-events="${ORG_EVENTS}"]`)) followEvents(ORG_EVENTS, org, null, update);
}
