// Rate limits of the public widget endpoints. Publishable keys are
// public, so a key alone is no quota: requests count per key and client IP (one visitor or one
// abusive script), and per org (everything the org's keys receive), in one-minute fixed windows
// on the shared leased limiter (src/ratelimit/leased.ts: exact across instances). Defaults in
// src/config.ts and the README "Widget SDK"; a refusal is 429 `rate_limited` with Retry-After.
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { requestMeta } from "../http/request-meta.ts";
import type { WidgetAuth } from "./auth.ts";

const MINUTE = 60;

async function spend(deps: Pick<Deps, "limiter" | "now">, key: string, limit: number, what: string): Promise<void> {
  const taken = await deps.limiter.take(key, { limit, windowSeconds: MINUTE }, deps.now());
  if (!taken.allowed) throw AppError.tooManyRequests(taken.retryAfter, `Too many ${what}: at most ${limit} per minute. Try again in ${taken.retryAfter} s.`);
}

/** Every keyed SDK request: per key and client IP, then per org. Tickets also count on their own, stricter quota. */
export async function limitSdkRequest(
  deps: Pick<Deps, "config" | "limiter" | "now">,
  auth: WidgetAuth,
  request: Request,
  kind: "request" | "ticket" = "request",
): Promise<void> {
  const { ip } = requestMeta(request);
  const { perKeyIp, perOrg, ticketsPerKeyIp } = deps.config.sdkLimits;
  await spend(deps, `sdk:key-ip:${auth.keyId}:${ip}`, perKeyIp, "widget requests from this address");
  await spend(deps, `sdk:org:${auth.orgId}`, perOrg, "widget requests for this organisation");
  if (kind === "ticket") await spend(deps, `sdk:tickets:${auth.keyId}:${ip}`, ticketsPerKeyIp, "tickets from this address");
}

/** A ticket opened by something other than tickets/create (a chat routed to a person): the ticket quota only. */
export async function limitSdkTickets(deps: Pick<Deps, "config" | "limiter" | "now">, auth: WidgetAuth, request: Request): Promise<void> {
  await spend(deps, `sdk:tickets:${auth.keyId}:${requestMeta(request).ip}`, deps.config.sdkLimits.ticketsPerKeyIp, "tickets from this address");
}

/** GET /api/sdk/config (no key): per client IP. */
export async function limitConfigRequest(deps: Pick<Deps, "config" | "limiter" | "now">, request: Request): Promise<void> {
  await spend(deps, `sdk:config:${requestMeta(request).ip}`, deps.config.sdkLimits.configPerIp, "config requests from this address");
}
