// Per-token limits of the tool server (interface §8.1): tools/list 60, tools/call 120, anything
// else 60 per minute. Counted in the database, so several server processes together never grant
// more than the limit.
import type { Deps } from "../deps.ts";
import { take, type Taken } from "../ratelimit/fixed-window.ts";

export const TOKEN_LIMITS = {
  "tools/list": { limit: 60, windowSeconds: 60 },
  "tools/call": { limit: 120, windowSeconds: 60 },
  other: { limit: 60, windowSeconds: 60 },
} as const;

export type MethodClass = keyof typeof TOKEN_LIMITS;

export function methodClass(method: string): MethodClass {
  return method === "tools/list" || method === "tools/call" ? method : "other";
}

export function chargeToken(deps: Deps, tokenId: string, cls: MethodClass): Promise<Taken> {
  return take(deps.db, `mcp:${tokenId}:${cls}`, TOKEN_LIMITS[cls], deps.now());
}

export function rateLimitHeaders(taken: Taken): Record<string, string> {
  return {
    "x-ratelimit-limit": String(taken.limit),
    "x-ratelimit-remaining": String(Math.max(0, taken.limit - taken.count)),
    "x-ratelimit-reset": String(Math.ceil(taken.resetAt.getTime() / 1000)),
  };
}
