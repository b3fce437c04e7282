// /api/saved-replies (README "Inbox"): the org's saved replies. inbox:view lists and reads them,
// inbox:manage creates, changes and deletes them.
import { Elysia, t } from "elysia";
import { requireMember } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { jsonResponse } from "../kit/json-response.ts";
import { createSavedReply, deleteSavedReply, findSavedReply, listSavedReplies, SAVED_REPLY_LIMITS, savedReplyView, updateSavedReply } from "./saved-replies.ts";

export const SavedReplyView = t.Object(
  {
    id: t.String({ format: "uuid" }),
    name: t.String(),
    body: t.String({
      description:
        'May hold {{customer.name}}, {{ticket.number}} and {{agent.name}}, each with an optional fallback ({{customer.name | "there"}}), filled in when inserted into a reply; at most 50 {{…}}.',
    }),
    created_at: t.String({ format: "date-time" }),
    updated_at: t.String({ format: "date-time" }),
  },
  { additionalProperties: false },
);
const Name = t.String({ minLength: 1, maxLength: SAVED_REPLY_LIMITS.name });
const Body = t.String({ minLength: 1, maxLength: SAVED_REPLY_LIMITS.body });
const Id = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });
const detail = (summary: string) => ({ summary, tags: ["Saved replies"], security: [{ dashboard: [] }] });

export function savedReplyRoutes(deps: Pick<Deps, "config" | "db" | "now">) {
  return new Elysia({ name: "saved-replies" })
    .get(
      "/api/saved-replies",
      async ({ request }) => {
        const { orgId } = await requireMember(deps, request, "inbox:view");
        return { saved_replies: (await listSavedReplies(deps, orgId)).map(savedReplyView) };
      },
      { response: { 200: t.Object({ saved_replies: t.Array(SavedReplyView) }) }, detail: detail("The org's saved replies, by name (inbox:view)") },
    )
    .post(
      "/api/saved-replies",
      async ({ request, body }) => {
        const { orgId } = await requireMember(deps, request, "inbox:manage");
        return jsonResponse(savedReplyView(await createSavedReply(deps, orgId, body)), 201);
      },
      {
        body: t.Object({ name: Name, body: Body }, { additionalProperties: false }),
        response: { 201: SavedReplyView },
        detail: detail("Add a saved reply; a name already used is 409 name_taken (inbox:manage)"),
      },
    )
    .get(
      "/api/saved-replies/:id",
      async ({ request, params }) => {
        const { orgId } = await requireMember(deps, request, "inbox:view");
        const row = await findSavedReply(deps, orgId, params.id);
        if (!row) throw AppError.notFound("No such saved reply.");
        return savedReplyView(row);
      },
      { params: Id, response: { 200: SavedReplyView }, detail: detail("One saved reply (inbox:view)") },
    )
    .patch(
      "/api/saved-replies/:id",
      async ({ request, params, body }) => {
        const { orgId } = await requireMember(deps, request, "inbox:manage");
        return savedReplyView(await updateSavedReply(deps, orgId, params.id, body));
      },
      {
        params: Id,
        body: t.Object({ name: t.Optional(Name), body: t.Optional(Body) }, { additionalProperties: false, minProperties: 1 }),
        response: { 200: SavedReplyView },
        detail: detail("Rename or rewrite a saved reply (inbox:manage)"),
      },
    )
    .delete(
      "/api/saved-replies/:id",
      async ({ request, params }) => {
        const { orgId } = await requireMember(deps, request, "inbox:manage");
        await deleteSavedReply(deps, orgId, params.id);
        return new Response(null, { status: 204 });
      },
      { params: Id, response: { 204: t.Null({ description: "No content" }) }, detail: detail("Delete a saved reply (inbox:manage)") },
    );
}
