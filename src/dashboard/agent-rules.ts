// An agent's routing rules as the dashboard writes them, one rule a line:
// `billing, invoice -> Billing` · `intent:refund -> Billing handoff`.
import type { RoutingRule } from "../agents/service.ts";

/** The rules as text, one a line. */
export function rulesToText(rules: readonly RoutingRule[]): string {
  return rules
    .map((r) => {
      const match = [...(r.match.keywords ?? []), ...(r.match.intent ? [`intent:${r.match.intent}`] : [])].join(", ");
      return `${match} -> ${r.team}${r.action === "handoff" ? " handoff" : ""}`;
    })
    .join("\n");
}

export function parseRules(text: string): { rules: RoutingRule[]; error?: string } {
  const rules: RoutingRule[] = [];
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === "") continue;
    const arrow = line.indexOf("->");
    if (arrow < 0) return { rules, error: `Line ${i + 1}: write "keywords -> team" (an arrow between them).` };
    let target = line.slice(arrow + 2).trim();
    let action: "handoff" | undefined;
    if (/\shandoff$/i.test(target)) {
      action = "handoff";
      target = target.replace(/\shandoff$/i, "").trim();
    }
    if (!target) return { rules, error: `Line ${i + 1}: name the team after the arrow.` };
    const keywords: string[] = [];
    let intent: string | undefined;
    for (const part of line
      .slice(0, arrow)
      .split(",")
      .map((p) => p.trim())
      .filter(Boolean)) {
      if (part.toLowerCase().startsWith("intent:")) intent = part.slice(7).trim();
      else keywords.push(part);
    }
    if (keywords.length === 0 && !intent) return { rules, error: `Line ${i + 1}: give keywords or intent:name before the arrow.` };
    rules.push({ match: { ...(keywords.length ? { keywords } : {}), ...(intent ? { intent } : {}) }, team: target, ...(action ? { action } : {}) });
  }
  return { rules };
}
