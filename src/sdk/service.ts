// What the /api/sdk routes do (README "Widget SDK"), as plain functions of (deps, orgId, input):
// the public widget config, identify calls and tickets (behavioural events: src/sdk/events.ts).
// The org always comes from the widget key (or the config query), never from the body.
import { orgProfile } from "../tenancy/orgs.ts";
import { ownOrCatalogue, widgetTexts } from "../i18n/catalogue.ts";
import { resolveTexts } from "../texts/store.ts";
import { firstLanguage, isRtl } from "../kit/language.ts";
import { companyById } from "../customers/lookups.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { getAgent, noActiveAgent } from "../agents/service.ts";
import { voiceForWidget } from "../agents/voice-config.ts";
import { speechAvailable } from "./speech-settings.ts";
import { findSession } from "../conversations/sessions.ts";
import { createTicket } from "../inbox/tickets.ts";
import { attachTicketCustomer, wakeTicket } from "../inbox/ticket-customer.ts";
import { type Company, createVisitor, type EndUser } from "../customers/records.ts";
import { identifyCompany } from "../customers/company-records.ts";
import { identitySettings, isAnonymous, proveIdentity, resolveIdentity } from "./identity.ts";

/**
 * docs/interface.md 2.7, field by field: nothing else of the agent (instructions, routing rules, model
 * settings and keys, timestamps) or of the org (flags, secrets) is ever copied into it.
 */
export async function sdkConfig(deps: Pick<Deps, "config" | "db" | "statements" | "texts">, orgId: string, locale?: string) {
  const org = await orgProfile(deps.db, orgId);
  if (!org) throw AppError.notFound("No such organisation.");
  const agent = await getAgent(deps, orgId);
  if (!agent) throw noActiveAgent();
  const language = firstLanguage([locale, org.defaultLanguage]);
  const { overrides } = await resolveTexts(deps, orgId, language);
  return {
    agent: {
      id: agent.id,
      name: agent.name,
      skills: agent.skills,
      avatar_config: agent.avatarConfig,
      voice_config: voiceForWidget(agent.voiceConfig, { ...(await speechAvailable(deps, orgId)), maxSeconds: deps.config.speech.maxSeconds }),
      flow_config: { steps: agent.flowConfig.steps ?? [], custom_variables: agent.flowConfig.custom_variables ?? [] },
      live_help_label: ownOrCatalogue(agent.liveHelpLabel, "widget.live_help", language, overrides),
      video_display_mode: agent.videoDisplayMode,
      status: agent.status,
    },
    organization: { name: org.name, settings: org.settings },
    // README "Languages": the widget's locale, else the org's default.
    language,
    dir: isRtl(language) ? ("rtl" as const) : ("ltr" as const),
    texts: widgetTexts(language, overrides),
  };
}

/** The customer as stored, for a caller who proved who they are (a valid user_token), and the company link (never the company's data). */
export async function sdkUserView(deps: Pick<Deps, "db">, user: EndUser, verified: boolean) {
  let company: { id: string; company_id: string } | null = null;
  if (user.companyId) {
    const row = await companyById(deps.db, user.orgId, user.companyId);
    if (row) company = { id: row.id, company_id: row.externalId };
  }
  return {
    id: user.id,
    user_id: user.externalId ?? user.claimedExternalId ?? "",
    email: user.email,
    name: user.name,
    custom_fields: user.traits,
    company,
    verified,
    created_at: user.createdAt.toISOString(),
    updated_at: user.updatedAt.toISOString(),
  };
}

export interface IdentifyUserInput {
  user_id: string;
  user_token?: string;
  email?: string;
  name?: string;
  company_id?: string;
  custom_fields?: Record<string, unknown>;
  session_id?: string;
}

/**
 * Creates or updates the customer. A verified request (valid user_token) is answered with the
 * customer as stored. An unverified one is answered with what it sent itself — never what the
 * record held before, nor when it was created: anyone holding the public key can claim any
 * user_id, and the stored fields and the record's age would tell them whether that id is a
 * customer and what the org knows about them (docs/decisions.md "Unverified identify: the
 * request echoed"). Its fields are still merged into the record as before.
 */
export async function identifyUser(deps: Deps, orgId: string, input: IdentifyUserInput) {
  if (isAnonymous(input.user_id))
    throw AppError.badRequest("user_id must name a user: anonymous visitors need no identify.", [{ path: "/user_id", message: "must not be anonymous" }]);
  const { endUser, verified } =
    input.session_id === undefined ? await resolveIdentity(deps, orgId, input) : await identifyInChat(deps, orgId, input, input.session_id);
  if (verified) return sdkUserView(deps, endUser!, true);
  const now = deps.now().toISOString();
  return {
    id: endUser!.id,
    user_id: input.user_id,
    email: input.email?.trim().toLowerCase() ?? null,
    name: input.name ?? "",
    custom_fields: input.custom_fields ?? {},
    // The company this request named (verification off: a body's company_id links the customer).
    company: input.company_id !== undefined && endUser!.companyId ? { id: endUser!.companyId, company_id: input.company_id } : null,
    verified: false,
    created_at: now,
    updated_at: now,
  };
}

/**
 * identify with the chat session the visitor started anonymously: the identity as always, then the
 * session becomes this customer's (the chat's own take-over rule, src/conversations/sessions.ts:
 * another customer's session is 403 `session_forbidden`, an unknown one 404) and its waiting ticket
 * gets the customer (src/inbox/ticket-customer.ts). One transaction: a refused session leaves no
 * customer written. With identity verification on, resolveIdentity has already required a valid
 * user_token, so only a proven identity ever reaches a ticket that way.
 */
async function identifyInChat(outer: Deps, orgId: string, input: IdentifyUserInput, sessionId: string) {
  const { resolved, changed } = await outer.db.transaction(async (tx) => {
    const deps = { ...outer, db: tx };
    const resolved = await resolveIdentity(deps, orgId, input);
    const conversation = await findSession(deps, orgId, sessionId, { endUserId: resolved.endUser!.id });
    if (!conversation) throw new AppError(404, "session_not_found", "No chat session of this organisation has that session_id.");
    const changed = conversation.ticketId
      ? await attachTicketCustomer(deps, { orgId, ticketId: conversation.ticketId, conversationId: conversation.id, customer: resolved.endUser! })
      : null;
    return { resolved, changed };
  });
  if (changed) wakeTicket(outer, changed);
  return resolved;
}

export interface IdentifyCompanyInput {
  company_id: string;
  name?: string;
  custom_fields?: Record<string, unknown>;
  user_id?: string;
  user_token?: string;
}

/**
 * Creates or updates a company; links `user_id` to it when given (the user's identity resolved as
 * for users/identify). Answers ids only: a publishable key writes company data but never reads it
 * back, since nobody calling with it has proven anything about the company.
 */
export async function identifyCompanyFor(deps: Pick<Deps, "cipher" | "db" | "now">, orgId: string, input: IdentifyCompanyInput) {
  // The user's identity is proven first, without writing: a refused token, or a refusal below,
  // must leave nothing written (not even the user).
  const linking = input.user_id !== undefined && !isAnonymous(input.user_id);
  const settings = await identitySettings(deps, orgId);
  const who =
    linking || input.user_token !== undefined ? await proveIdentity(settings, { user_id: input.user_id, user_token: input.user_token }, deps.now()) : null;
  // With verification on, only a verified user of this very company (its `company_id` claim) may
  // write it: the key is public, and company fields reach the team and campaign mail.
  if (settings.enabled && !(who?.verified && who.claims.company_id === input.company_id))
    throw new AppError(
      403,
      "company_not_verified",
      "This organisation requires identity verification: send the user_id and a user_token whose company_id claim names this company.",
    );
  // Verification off: an unverified request still creates and writes companies nobody vouched
  // for, but never one the org vouched for (identifyCompany); its answer is the same either way.
  const vouched = who?.verified === true && who.claims.company_id === input.company_id;
  const company: Company = await identifyCompany(deps, orgId, input.company_id, { name: input.name, traits: input.custom_fields }, vouched);
  if (!linking) return { id: company.id, company_id: company.externalId };
  const { endUser, verified } = await resolveIdentity(deps, orgId, { user_id: input.user_id, user_token: input.user_token, company_id: input.company_id });
  return { id: company.id, company_id: company.externalId, user: { id: endUser!.id, user_id: input.user_id!, verified } };
}

export interface SdkTicketInput {
  subject: string;
  message: string;
  user_id?: string;
  user_token?: string;
  email?: string;
  name?: string;
  priority?: "low" | "normal" | "high" | "urgent";
  custom_fields?: Record<string, unknown>;
  session_id?: string;
}

/**
 * A ticket from the widget (`source: widget`, the request came from a browser) or a backend
 * (`api`), through the inbox's createTicket, so it is in the inbox at once. The customer is
 * the identified user (identity rules of docs/interface.md 5), or, with only an email, a new unverified visitor.
 */
export async function createSdkTicket(outer: Deps, orgId: string, input: SdkTicketInput, from: { browser: boolean }) {
  // One transaction: a request refused half way (an unknown or another customer's session) leaves
  // no customer behind that its identity would have created or updated.
  return outer.db.transaction(async (tx) => {
    const deps = { ...outer, db: tx };
    let customer: EndUser | null = null;
    let verified = false;
    const identified = !isAnonymous(input.user_id) || input.user_token !== undefined;
    if (identified) {
      ({ endUser: customer, verified } = await resolveIdentity(deps, orgId, {
        user_id: input.user_id,
        user_token: input.user_token,
        email: input.email,
        name: input.name,
      }));
    } else if (input.email !== undefined) {
      customer = await createVisitor(deps, orgId, { email: input.email, name: input.name });
    }
    // The chat session (X-Session-Id) the ticket comes from: only this org's, and only its own
    // customer's (or an anonymous one), under the chat's own rules (src/conversations/sessions.ts).
    // A visitor known only by the email they left is still the anonymous chatter: their session
    // stays anonymous, so their widget keeps it (docs/decisions.md "An email on a ticket binds no chat").
    let conversationId: string | undefined;
    if (input.session_id !== undefined) {
      const conversation = await findSession(deps, orgId, input.session_id, { endUserId: identified ? (customer?.id ?? null) : null });
      if (!conversation) throw new AppError(404, "session_not_found", "No chat session of this organisation has that session_id.");
      conversationId = conversation.id;
    }
    const ticket = await createTicket(deps, {
      orgId,
      // The conversation id, never the session token itself: actors end up in the activity log.
      actor: { kind: "customer", endUserId: customer?.id ?? null, ...(conversationId ? { sessionId: conversationId } : {}) },
      input: {
        subject: input.subject,
        message: input.message,
        customerId: customer?.id ?? null,
        priority: input.priority,
        source: from.browser ? "widget" : "api",
        customFields: input.custom_fields,
        conversationId,
        verified,
      },
    });
    return {
      id: ticket.id,
      number: ticket.number,
      subject: ticket.subject,
      status: ticket.status,
      priority: ticket.priority,
      session_id: input.session_id ?? null,
      created_at: ticket.created_at,
    };
  });
}
