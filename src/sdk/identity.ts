// Identity verification of widget requests (docs/interface.md 2.5 `user_token`, docs/interface.md 5; docs/interface.md D).
// The org's backend signs `{ user_id, exp, …trusted claims }` with HS256 and the org's identity
// secret (the secret string's UTF-8 bytes are the HMAC key, as `jwt.sign(payload, secret)` does);
// the widget passes it along as `user_token`. Contract `resolveIdentity` is what every SDK and
// chat route calls to learn who the customer is.
import { errors as joseErrors, jwtVerify, type JWTPayload } from "jose";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { storedIdentitySecrets } from "../tenancy/orgs.ts";
import { identitySecretContext } from "../orgs/service.ts";
import { previousSecretLive } from "../orgs/widget-access.ts";
import { type EndUser, identifyEndUser } from "../customers/records.ts";
import { identifyCompany } from "../customers/company-records.ts";

export const IDENTITY_LIMITS = {
  /** `user_id` and `company_id`: external ids. */
  externalId: 256,
  /** A compact JWS with a handful of claims is a few hundred bytes; 4 KiB leaves room and bounds the work. */
  token: 4096,
  email: 320,
  name: 200,
  /** Seconds of clock skew allowed on `exp` (and `nbf`/`iat` when present). */
  clockSkewSeconds: 60,
} as const;

/** The claims a verified token may carry that override what the client sent (docs/interface.md 2.5). */
export const TRUSTED_CLAIMS = ["email", "name", "role", "plan", "company_id"] as const;

export interface IdentityInput {
  user_id?: string;
  user_token?: string;
  email?: string;
  name?: string;
  company_id?: string;
  custom_fields?: Record<string, unknown>;
}

export interface ResolvedIdentity {
  /** Null for an anonymous visitor (no `user_id`, or `anonymous`). */
  endUser: EndUser | null;
  verified: boolean;
  /** The trusted claims of a verified token (only those of TRUSTED_CLAIMS that it carried). */
  claims: Record<string, unknown>;
}

export type TokenFailure = "user_token_required" | "user_token_invalid" | "user_token_expired" | "user_token_mismatch";

function refused(code: TokenFailure, message: string): AppError {
  return new AppError(403, code, message);
}

export function isAnonymous(userId: string | undefined): boolean {
  return userId === undefined || userId === "" || userId === "anonymous";
}

/**
 * The payload of a `user_token` signed with one of `secrets` (current first, then the previous one
 * during a rotation). HS256 only — the algorithm list is pinned, so `alg: none`, HS512 or RS256 in
 * the header are refused before any key is used; `exp` is required and checked with
 * IDENTITY_LIMITS.clockSkewSeconds of skew; jose compares the MAC in constant time (WebCrypto verify).
 */
export async function verifyUserToken(secrets: string[], token: string, userId: string | undefined, now: Date): Promise<JWTPayload> {
  if (token.length > IDENTITY_LIMITS.token) throw refused("user_token_invalid", `The user_token is longer than ${IDENTITY_LIMITS.token} characters.`);
  let payload: JWTPayload | undefined;
  for (const secret of secrets) {
    try {
      ({ payload } = await jwtVerify(token, new TextEncoder().encode(secret), {
        algorithms: ["HS256"],
        requiredClaims: ["exp"],
        clockTolerance: IDENTITY_LIMITS.clockSkewSeconds,
        currentDate: now,
      }));
      break;
    } catch (error) {
      if (error instanceof joseErrors.JWSSignatureVerificationFailed) continue; // maybe the previous secret
      if (error instanceof joseErrors.JWTExpired) throw refused("user_token_expired", "The user_token has expired: sign a new one.");
      if (error instanceof joseErrors.JOSEAlgNotAllowed) throw refused("user_token_invalid", "The user_token must be signed with HS256.");
      if (error instanceof joseErrors.JWTClaimValidationFailed && error.claim === "exp")
        throw refused("user_token_invalid", "The user_token must carry an exp claim (a NumericDate).");
      throw refused("user_token_invalid", "The user_token is not a valid JWT signed with this organisation's identity secret.");
    }
  }
  if (!payload) throw refused("user_token_invalid", "The user_token's signature does not match this organisation's identity secret.");
  if (typeof payload.user_id !== "string" || payload.user_id !== userId)
    throw refused("user_token_mismatch", "The user_token's user_id claim must equal the user_id of the request.");
  for (const claim of TRUSTED_CLAIMS) {
    const value = payload[claim];
    if (value !== undefined && (typeof value !== "string" || value.length > IDENTITY_LIMITS.externalId))
      throw refused("user_token_invalid", `The user_token's ${claim} claim must be a string of at most ${IDENTITY_LIMITS.externalId} characters.`);
  }
  return payload;
}

/** The org's verification setting and its secrets in clear (current first, then the previous one during its overlap). */
export async function identitySettings(deps: Pick<Deps, "cipher" | "db" | "now">, orgId: string): Promise<{ enabled: boolean; secrets: string[] }> {
  const org = await storedIdentitySecrets(deps.db, orgId);
  if (!org) throw AppError.notFound("No such organisation.");
  const secrets = [deps.cipher.decrypt(org.current, identitySecretContext(orgId))];
  if (previousSecretLive(org, deps.now())) secrets.push(deps.cipher.decrypt(org.previous!, identitySecretContext(orgId, "identity_secret_previous")));
  return { enabled: org.enabled, secrets };
}

export interface IdentityProof {
  verified: boolean;
  /** The trusted claims of a verified token (only those of TRUSTED_CLAIMS that it carried). */
  claims: Record<string, unknown>;
}

/** 403 `user_token_required`: the org requires verification and the request names a user_id without a token. */
export function userTokenRequired(details?: { path: string; message: string }[]): AppError {
  return new AppError(
    403,
    "user_token_required",
    "This organisation requires identity verification: send a user_token signed by your backend with the user_id.",
    details,
  );
}

/**
 * What a request proves about who it is, with nothing written: a `user_token`, when sent, is always
 * verified (a bad one is 403 even with verification off); with verification on, a `user_id`
 * without one is 403 `user_token_required`. Callers that must refuse before writing anything (an
 * events batch) check every identity with this first.
 */
export async function proveIdentity(
  settings: { enabled: boolean; secrets: string[] },
  input: Pick<IdentityInput, "user_id" | "user_token">,
  now: Date,
): Promise<IdentityProof> {
  if (input.user_token !== undefined) {
    const payload = await verifyUserToken(settings.secrets, input.user_token, isAnonymous(input.user_id) ? undefined : input.user_id, now);
    return { verified: true, claims: Object.fromEntries(TRUSTED_CLAIMS.filter((c) => payload[c] !== undefined).map((c) => [c, payload[c]])) };
  }
  if (settings.enabled) throw userTokenRequired();
  return { verified: false, claims: {} };
}

/**
 * The customer of a proven identity, created or updated (traits merged, the request wins; trusted
 * claims override the client's values) — an unverified request never on a verified customer (see
 * identifyEndUser). `deps.db` may be a transaction: everything it writes is written through it.
 */
export async function writeIdentity(
  deps: Pick<Deps, "db" | "now">,
  orgId: string,
  input: IdentityInput,
  proof: IdentityProof,
  settings: { enabled: boolean },
): Promise<EndUser> {
  const { claims, verified } = proof;
  const userId = input.user_id!;
  if (userId.length > IDENTITY_LIMITS.externalId)
    throw AppError.badRequest(`user_id is longer than ${IDENTITY_LIMITS.externalId} characters.`, [
      { path: "/user_id", message: `at most ${IDENTITY_LIMITS.externalId} characters` },
    ]);

  const email = (claims.email as string | undefined) ?? input.email;
  const name = (claims.name as string | undefined) ?? input.name;
  // With verification on, the company a customer belongs to is a trusted claim or nothing: a body's
  // company_id would let anyone join any company and read its record through the chat's data tools.
  const companyExternalId = settings.enabled ? (claims.company_id as string | undefined) : ((claims.company_id as string | undefined) ?? input.company_id);
  const traits =
    input.custom_fields !== undefined || claims.role !== undefined || claims.plan !== undefined
      ? {
          ...(input.custom_fields ?? {}),
          ...(claims.role !== undefined ? { role: claims.role } : {}),
          ...(claims.plan !== undefined ? { plan: claims.plan } : {}),
        }
      : undefined;
  // A verified token vouches for the company its own company_id claim names, never for one the body names.
  const company =
    companyExternalId !== undefined && companyExternalId !== ""
      ? await identifyCompany(deps, orgId, companyExternalId, {}, verified && claims.company_id === companyExternalId)
      : undefined;
  return identifyEndUser(deps, orgId, userId, verified, { email, name, companyId: company?.id, traits });
}

/**
 * Who the customer of an SDK request is: proveIdentity, then writeIdentity. Anonymous requests
 * (no `user_id`, or `anonymous`, and no token) touch no record.
 */
export async function resolveIdentity(deps: Pick<Deps, "cipher" | "db" | "now">, orgId: string, input: IdentityInput): Promise<ResolvedIdentity> {
  if (isAnonymous(input.user_id) && input.user_token === undefined) return { endUser: null, verified: false, claims: {} };
  const settings = await identitySettings(deps, orgId);
  // An anonymous request with a token is refused here (user_token_mismatch): no user_id to match its claim.
  const proof = await proveIdentity(settings, input, deps.now());
  const endUser = await writeIdentity(deps, orgId, input, proof, settings);
  return { endUser, verified: proof.verified, claims: proof.claims };
}
