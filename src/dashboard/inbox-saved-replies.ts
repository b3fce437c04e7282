// Dashboard: Settings → Saved replies (inbox:manage). The org's snippets, a form to add one, each
// editable and deletable, through src/inbox/saved-replies.ts as /api/saved-replies does. They are
// inserted from a ticket's reply form (inbox-ticket.ts), variables filled in.
import { Elysia } from "elysia";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import {
  createSavedReply,
  deleteSavedReply,
  findSavedReply,
  listSavedReplies,
  SAVED_REPLY_LIMITS,
  type SavedReply,
  updateSavedReply,
} from "../inbox/saved-replies.ts";
import {
  type DashboardContext,
  type DashboardDeps,
  type FieldErrors,
  formBody,
  formValues,
  IdParams,
  redirect,
  type Refused,
  shellPage,
  submitForm,
  withMember,
} from "./kit/index.ts";
import { SavedReplyEdit } from "./views/saved-reply-edit.ts";
import { SAVED_REPLIES_PATH } from "./views/saved-reply-form.ts";
import { SavedReplyList } from "./views/saved-reply-list.ts";

const ROLE = "inbox:manage" as const;
const BASE = SAVED_REPLIES_PATH;

async function listPage(ctx: DashboardContext, refused?: Refused): Promise<Response> {
  const rows = await listSavedReplies(ctx.deps, ctx.orgId);
  const body = SavedReplyList({ rows, values: refused?.values ?? { name: "", body: "" }, errors: refused?.errors ?? {}, limits: SAVED_REPLY_LIMITS });
  return shellPage(ctx, { title: "Saved replies", active: "settings", body, status: refused?.status });
}

async function editPage(ctx: DashboardContext, row: SavedReply, refused?: Refused): Promise<Response> {
  const body = SavedReplyEdit({
    row,
    values: refused?.values ?? { name: row.name, body: row.body },
    errors: refused?.errors ?? {},
    limits: SAVED_REPLY_LIMITS,
  });
  return shellPage(ctx, { title: `Saved reply ${row.name}`, active: "settings", body, status: refused?.status });
}

const validate = (v: Record<string, string | undefined>) => {
  const errors: Record<string, string> = {};
  const name = (v.name ?? "").trim();
  const text = v.body ?? "";
  if (!name) errors.name = "Give it a name.";
  else if (name.length > SAVED_REPLY_LIMITS.name) errors.name = `At most ${SAVED_REPLY_LIMITS.name} characters.`;
  if (!text.trim()) errors.body = "Write its text.";
  else if (text.length > SAVED_REPLY_LIMITS.body) errors.body = `At most ${SAVED_REPLY_LIMITS.body} characters.`;
  return { input: { name, body: text }, errors };
};
const refusedAs = (error: AppError): FieldErrors | null =>
  error.status === 409 ? { name: error.message } : error.status === 400 ? { body: error.message } : null;

async function rowOr404(deps: Pick<Deps, "db">, orgId: string, id: string): Promise<SavedReply> {
  const row = await findSavedReply(deps, orgId, id);
  if (!row) throw AppError.notFound("No such saved reply.");
  return row;
}

const FormBody = formBody({ text: SAVED_REPLY_LIMITS.body, item: 100, items: 10 });

export function savedReplyPages(deps: DashboardDeps) {
  return new Elysia({ name: "dashboard-saved-replies" })
    .get(BASE, ({ request }) => withMember(deps, request, ROLE, (ctx) => listPage(ctx)))
    .post(
      BASE,
      ({ request, body }) =>
        withMember(deps, request, ROLE, (ctx) =>
          submitForm({
            values: formValues(body),
            validate,
            call: (input) => createSavedReply(deps, ctx.orgId, input),
            done: () => redirect(deps, BASE, "Saved reply added."),
            render: (refused) => listPage(ctx, refused),
            refused: refusedAs,
          }),
        ),
      { body: FormBody },
    )
    .get(`${BASE}/:id`, ({ request, params }) => withMember(deps, request, ROLE, async (ctx) => editPage(ctx, await rowOr404(deps, ctx.orgId, params.id))), {
      params: IdParams,
    })
    .post(
      `${BASE}/:id`,
      ({ request, params, body }) =>
        withMember(deps, request, ROLE, async (ctx) => {
          const row = await rowOr404(deps, ctx.orgId, params.id);
          return submitForm({
            values: formValues(body),
            validate,
            call: (input) => updateSavedReply(deps, ctx.orgId, row.id, input),
            done: () => redirect(deps, BASE, "Saved reply saved."),
            render: (refused) => editPage(ctx, row, refused),
            refused: refusedAs,
          });
        }),
      { params: IdParams, body: FormBody },
    )
    .post(
      `${BASE}/:id/delete`,
      ({ request, params }) =>
        withMember(deps, request, ROLE, async (ctx) => {
          await deleteSavedReply(deps, ctx.orgId, params.id);
          return redirect(deps, BASE, "Saved reply deleted.");
        }),
      { params: IdParams },
    );
}
