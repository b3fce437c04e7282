// Knowledge sources for the dashboard and API (README "Knowledge sources"): /api/knowledge/sources.
// knowledge:view lists and reads; knowledge:manage creates, changes, deletes and syncs now.
import { Value } from "@sinclair/typebox/value";
import { Elysia, t } from "elysia";
import { requireMember } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { readJsonAfterAuth } from "../http/body.ts";
import { issueDetails } from "../http/validation-details.ts";
import { memberActor } from "../kit/actor.ts";
import { jsonResponse } from "../kit/json-response.ts";
import { SOURCE_KINDS, SOURCE_LIMITS, sourceView } from "./model.ts";
import { createSource, deleteSource, getSource, listSources, sourceProblems, updateSource } from "./service.ts";
import { startSync } from "./start.ts";
import { FILE_LIMITS } from "./file-formats.ts";
import { importFiles } from "./files.ts";

const tags = ["Knowledge sources"];
/** POST /api/knowledge/files: checked in the route, after the member is known and the body read. */
const UploadBody = t.Object(
  {
    files: t.Array(
      t.Object(
        {
          name: t.String({ minLength: 1, maxLength: 255 }),
          content_base64: t.String({ description: `The file, base64; at most ${FILE_LIMITS.fileBytes} bytes decoded.` }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: FILE_LIMITS.files },
    ),
    tags: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 64 }), { maxItems: 50 })),
    status: t.Optional(t.Union([t.Literal("published"), t.Literal("draft")])),
  },
  { additionalProperties: false },
);
const security = [{ dashboard: [] }];
const Url = t.String({ maxLength: SOURCE_LIMITS.url });
const Patterns = t.Array(t.String({ minLength: 1, maxLength: SOURCE_LIMITS.pattern }), { maxItems: SOURCE_LIMITS.patterns });
const Fields = {
  name: t.String({ minLength: 1, maxLength: SOURCE_LIMITS.name }),
  start_url: Url,
  base_url: Url,
  locale: t.String({ minLength: 2, maxLength: SOURCE_LIMITS.locale }),
  locales: t.Array(t.String({ minLength: 2, maxLength: SOURCE_LIMITS.locale }), {
    minItems: 1,
    maxItems: SOURCE_LIMITS.locales,
    description:
      "Help centres: the locales imported, each article once per locale it is translated to (Zendesk: en-us, " +
      "es; Intercom: en, pt-BR). Default: `locale` (Zendesk), the help centre's default language (Intercom).",
  }),
  languages: t.Array(t.String({ minLength: 2, maxLength: 35 }), {
    minItems: 1,
    maxItems: SOURCE_LIMITS.languages,
    description: "Websites: the languages taken when pages name theirs with hreflang (ISO 639-1, e.g. en, es); pages in others are not imported. Default: all.",
  }),
  include: Patterns,
  exclude: Patterns,
  max_pages: t.Integer({ minimum: 1, maximum: SOURCE_LIMITS.maxPages, description: `Pages read per sync (default ${SOURCE_LIMITS.defaultPages}).` }),
  interval_seconds: t.Integer({
    minimum: SOURCE_LIMITS.minInterval,
    maximum: SOURCE_LIMITS.maxInterval,
    description: "Seconds between scheduled syncs (default one day).",
  }),
  token: t.String({ minLength: 1, maxLength: SOURCE_LIMITS.token, description: "Intercom access token; stored encrypted, never returned." }),
};
const CreateBody = t.Composite(
  [t.Object({ kind: t.Union(SOURCE_KINDS.map((k) => t.Literal(k))), name: Fields.name }), t.Partial(t.Omit(t.Object(Fields), ["name"]))],
  { additionalProperties: false },
);
const PatchBody = t.Partial(t.Object(Fields), { additionalProperties: false, minProperties: 1 });

/** A source as the API shows it (src/sources/model.ts sourceView): never its token. */
const SourceView = t.Object({
  id: t.String(),
  kind: t.String({ description: SOURCE_KINDS.join(", ") }),
  name: t.String(),
  start_url: t.Optional(t.String()),
  base_url: t.Optional(t.String()),
  locale: t.Optional(t.String()),
  locales: t.Optional(t.Array(t.String())),
  languages: t.Optional(t.Array(t.String())),
  include: t.Optional(t.Array(t.String())),
  exclude: t.Optional(t.Array(t.String())),
  max_pages: t.Optional(t.Integer()),
  token_set: t.Optional(t.Boolean()),
  interval_seconds: t.Integer(),
  status: t.String({ description: "syncing, ready or failed" }),
  reason: t.Optional(t.String({ description: "Why the last sync failed, or (ready) why it read only part of the source, so it removed nothing." })),
  counts: t.Object(
    {
      found: t.Integer(),
      imported: t.Integer(),
      updated: t.Integer(),
      unchanged: t.Integer(),
      failed: t.Integer(),
      removed: t.Integer(),
      conflicts: t.Integer(),
    },
    { description: "Pages found, imported, updated, unchanged, failed, removed; docs kept as edited locally (conflicts)." },
  ),
  progress: t.Union([t.Object({ done: t.Integer(), found: t.Integer() }), t.Null()]),
  last_sync_at: t.Union([t.String({ description: "ISO 8601" }), t.Null()]),
  next_sync_at: t.String({ description: "ISO 8601" }),
  created_at: t.String({ description: "ISO 8601" }),
});
const SourceDetail = t.Composite([
  SourceView,
  t.Object({
    problems: t.Array(t.Record(t.String(), t.Unknown()), { description: "Pages the last sync could not import, or kept because they were edited locally." }),
  }),
]);
const Uploaded = t.Object({
  docs: t.Array(t.Object({ file: t.String(), id: t.String(), title: t.String() })),
  failed: t.Array(t.Object({ file: t.String(), reason: t.String() })),
});

export function sourceRoutes(deps: Pick<Deps, "cipher" | "config" | "db" | "fileReaders" | "guard" | "knowledge" | "log" | "now" | "timers">) {
  return new Elysia({ name: "knowledge-sources" })
    .get(
      "/api/knowledge/sources",
      async ({ request }) => {
        const { orgId } = await requireMember(deps, request, "knowledge:view");
        return { sources: (await listSources(deps, orgId)).map(sourceView) };
      },
      {
        response: { 200: t.Object({ sources: t.Array(SourceView) }) },
        detail: { summary: "List the org's knowledge sources with their status, counts and last and next sync (knowledge:view)", tags, security },
      },
    )
    .post(
      "/api/knowledge/sources",
      async ({ body, request }) => {
        const { orgId, principal } = await requireMember(deps, request, "knowledge:manage");
        const created = await createSource(deps, orgId, memberActor(principal.member.id), body);
        // The first sync starts at once.
        return jsonResponse(sourceView(await startSync(deps, orgId, created.id)), 201);
      },
      {
        body: CreateBody,
        response: { 201: SourceView },
        detail: { summary: "Add a website, Zendesk Guide or Intercom Articles source; its first sync starts at once (knowledge:manage)", tags, security },
      },
    )
    .get(
      "/api/knowledge/sources/:id",
      async ({ params, request }) => {
        const { orgId } = await requireMember(deps, request, "knowledge:view");
        const row = await getSource(deps, orgId, params.id);
        return { ...sourceView(row), problems: await sourceProblems(deps, row.id) };
      },
      {
        response: { 200: SourceDetail },
        detail: {
          summary: "Read one source, with the pages its last sync could not import or kept because they were edited locally (knowledge:view)",
          tags,
          security,
        },
      },
    )
    .patch(
      "/api/knowledge/sources/:id",
      async ({ body, params, request }) => {
        const { orgId, principal } = await requireMember(deps, request, "knowledge:manage");
        return sourceView(await updateSource(deps, orgId, memberActor(principal.member.id), params.id, body));
      },
      {
        body: PatchBody,
        response: { 200: SourceView },
        detail: { summary: "Change a source's name, addresses, patterns, page cap, interval or token (knowledge:manage)", tags, security },
      },
    )
    .delete(
      "/api/knowledge/sources/:id",
      async ({ params, request }) => {
        const { orgId, principal } = await requireMember(deps, request, "knowledge:manage");
        await deleteSource(deps, orgId, memberActor(principal.member.id), params.id);
        return new Response(null, { status: 204 });
      },
      {
        response: { 204: t.Null({ description: "No content" }) },
        detail: { summary: "Delete a source and every doc it brought (knowledge:manage)", tags, security },
      },
    )
    .post(
      "/api/knowledge/files",
      async ({ request }) => {
        // The member is known before any of the body is read (src/http/body.ts readJsonAfterAuth).
        const { orgId, principal } = await requireMember(deps, request, "knowledge:manage");
        const body = await readJsonAfterAuth(request, "/api/knowledge/files");
        if (!Value.Check(UploadBody, body)) throw AppError.badRequest("The upload is not valid.", issueDetails(Value.Errors(UploadBody, body)).slice(0, 10));
        return jsonResponse(await importFiles(deps, orgId, memberActor(principal.member.id), body), 201);
      },
      {
        response: { 201: Uploaded },
        detail: {
          summary:
            "Upload PDF, DOCX, HTML, Markdown or text files, or zips of them, as documents; " +
            "each unreadable file is reported with its reason, 400 when none could be read (knowledge:manage)",
          tags,
          security,
          requestBody: { required: true, content: { "application/json": { schema: UploadBody } } },
        },
      },
    )
    .post(
      "/api/knowledge/sources/:id/sync",
      async ({ params, request }) => {
        const { orgId } = await requireMember(deps, request, "knowledge:manage");
        await getSource(deps, orgId, params.id);
        return jsonResponse(sourceView(await startSync(deps, orgId, params.id)), 202);
      },
      {
        response: { 202: SourceView },
        detail: { summary: "Sync now: starts a sync in the background; 409 while one runs (knowledge:manage)", tags, security },
      },
    );
}
