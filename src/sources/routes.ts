// Knowledge sources for the dashboard and API (README "Knowledge sources"): /api/knowledge/sources.
// knowledge:view lists and reads; knowledge:manage creates, changes, deletes and syncs now.
import { Elysia, t } from "elysia";
import { requireMember } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import { memberActor } from "../kit/actor.ts";
import { jsonResponse } from "../kit/json-response.ts";
import { SOURCE_KINDS, SOURCE_LIMITS, sourceView } from "./model.ts";
import { createSource, deleteSource, getSource, listSources, sourceProblems, updateSource } from "./service.ts";
import { startSync } from "./start.ts";
import { FILE_LIMITS } from "./file-formats.ts";
import { importFiles } from "./files.ts";

const tags = ["Knowledge sources"];
const security = [{ dashboard: [] }];
const Url = t.String({ maxLength: SOURCE_LIMITS.url });
const Patterns = t.Array(t.String({ minLength: 1, maxLength: SOURCE_LIMITS.pattern }), { maxItems: SOURCE_LIMITS.patterns });
const Fields = {
  name: t.String({ minLength: 1, maxLength: SOURCE_LIMITS.name }),
  start_url: Url,
  base_url: Url,
  locale: t.String({ minLength: 2, maxLength: SOURCE_LIMITS.locale }),
  include: Patterns,
  exclude: Patterns,
  max_pages: t.Integer({ minimum: 1, maximum: SOURCE_LIMITS.maxPages, description: `Pages read per sync (default ${SOURCE_LIMITS.defaultPages}).` }),
  interval_seconds: t.Integer({ minimum: SOURCE_LIMITS.minInterval, maximum: SOURCE_LIMITS.maxInterval, description: "Seconds between scheduled syncs (default one day)." }),
  token: t.String({ minLength: 1, maxLength: SOURCE_LIMITS.token, description: "Intercom access token; stored encrypted, never returned." }),
};
const CreateBody = t.Composite([t.Object({ kind: t.Union(SOURCE_KINDS.map((k) => t.Literal(k))), name: Fields.name }), t.Partial(t.Omit(t.Object(Fields), ["name"]))], { additionalProperties: false });
const PatchBody = t.Partial(t.Object(Fields), { additionalProperties: false, minProperties: 1 });

export function sourceRoutes(deps: Deps) {
  return new Elysia({ name: "knowledge-sources" })
    .get(
      "/api/knowledge/sources",
      async ({ request }) => {
        const { orgId } = await requireMember(deps, request, "knowledge:view");
        return { sources: (await listSources(deps, orgId)).map(sourceView) };
      },
      { detail: { summary: "List the org's knowledge sources with their status, counts and last and next sync (knowledge:view)", tags, security } },
    )
    .post(
      "/api/knowledge/sources",
      async ({ body, request }) => {
        const { orgId, principal } = await requireMember(deps, request, "knowledge:manage");
        const created = await createSource(deps, orgId, memberActor(principal.member.id), body);
        // The first sync starts at once.
        return jsonResponse(sourceView(await startSync(deps, orgId, created.id)), 201);
      },
      { body: CreateBody, detail: { summary: "Add a website, Zendesk Guide or Intercom Articles source; its first sync starts at once (knowledge:manage)", tags, security } },
    )
    .get(
      "/api/knowledge/sources/:id",
      async ({ params, request }) => {
        const { orgId } = await requireMember(deps, request, "knowledge:view");
        const row = await getSource(deps, orgId, params.id);
        return { ...sourceView(row), problems: await sourceProblems(deps, row.id) };
      },
      { detail: { summary: "Read one source, with the pages its last sync could not import or kept because they were edited locally (knowledge:view)", tags, security } },
    )
    .patch(
      "/api/knowledge/sources/:id",
      async ({ body, params, request }) => {
        const { orgId, principal } = await requireMember(deps, request, "knowledge:manage");
        return sourceView(await updateSource(deps, orgId, memberActor(principal.member.id), params.id, body));
      },
      { body: PatchBody, detail: { summary: "Change a source's name, addresses, patterns, page cap, interval or token (knowledge:manage)", tags, security } },
    )
    .delete(
      "/api/knowledge/sources/:id",
      async ({ params, request }) => {
        const { orgId, principal } = await requireMember(deps, request, "knowledge:manage");
        await deleteSource(deps, orgId, memberActor(principal.member.id), params.id);
        return new Response(null, { status: 204 });
      },
      { detail: { summary: "Delete a source and every doc it brought (knowledge:manage)", tags, security } },
    )
    .post(
      "/api/knowledge/files",
      async ({ body, request }) => {
        const { orgId, principal } = await requireMember(deps, request, "knowledge:manage");
        return jsonResponse(await importFiles(deps, orgId, memberActor(principal.member.id), body), 201);
      },
      {
        body: t.Object(
          {
            files: t.Array(t.Object({ name: t.String({ minLength: 1, maxLength: 255 }), content_base64: t.String({ description: `The file, base64; at most ${FILE_LIMITS.fileBytes} bytes decoded.` }) }, { additionalProperties: false }), { minItems: 1, maxItems: FILE_LIMITS.files }),
            tags: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 64 }), { maxItems: 50 })),
            status: t.Optional(t.Union([t.Literal("published"), t.Literal("draft")])),
          },
          { additionalProperties: false },
        ),
        detail: { summary: "Upload PDF, DOCX, HTML, Markdown or text files, or zips of them, as documents; each unreadable file is reported with its reason, 400 when none could be read (knowledge:manage)", tags, security },
      },
    )
    .post(
      "/api/knowledge/sources/:id/sync",
      async ({ params, request }) => {
        const { orgId } = await requireMember(deps, request, "knowledge:manage");
        await getSource(deps, orgId, params.id);
        return jsonResponse(sourceView(await startSync(deps, orgId, params.id)), 202);
      },
      { detail: { summary: "Sync now: starts a sync in the background; 409 while one runs (knowledge:manage)", tags, security } },
    );
}
