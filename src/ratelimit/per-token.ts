// Per-token limits of the tool server (docs/interface.md 8.1): tools/list 60, tools/call 120, anything
// else 60 per minute by default (configurable). Counted through the leased limiter, so several
// server processes together never grant more than the limit. tools/call is charged by the tool
// runtime (so a direct call with a token actor counts the same), every other method by the MCP edge.
import type { Config } from "../config.ts";
import type { Limiter, Taken } from "./leased.ts";

export type MethodClass = "tools/list" | "tools/call" | "other";

export function methodClass(method: string): MethodClass {
  return method === "tools/list" || method === "tools/call" ? method : "other";
}

export function tokenLimit(config: Config, cls: MethodClass) {
  const perMinute = cls === "tools/list" ? config.mcpTokenLimits.list : cls === "tools/call" ? config.mcpTokenLimits.call : config.mcpTokenLimits.other;
  return { limit: perMinute, windowSeconds: 60 };
}

export function chargeToken(limiter: Limiter, config: Config, tokenId: string, cls: MethodClass, now: Date): Promise<Taken> {
  return limiter.take(`mcp:${tokenId}:${cls}`, tokenLimit(config, cls), now);
}

export function rateLimitHeaders(taken: Taken): Record<string, string> {
  return {
    "x-ratelimit-limit": String(taken.limit),
    "x-ratelimit-remaining": String(Math.max(0, taken.limit - taken.count)),
    "x-ratelimit-reset": String(Math.ceil(taken.resetAt.getTime() / 1000)),
  };
}
