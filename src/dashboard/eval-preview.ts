// "Try a question" on the dashboard's Test your agent page (src/dashboard/eval.ts): one question
// answered in place by the chosen agent, as POST /api/eval/preview does (src/agents/eval-preview.ts),
// with the answer, the passage it came from, its confidence and why: the question's words found in
// that passage, on other pages only or on none, how far the first page leads the next, and the
// pages ranked next. A plain form post; the page is rendered again with the answer below the form
// (views/eval-preview.ts).
import { EVAL_PREVIEW, previewQuestion } from "../agents/eval-preview.ts";
import { AppError } from "../errors.ts";
import type { DashboardContext, FormValues } from "./kit/index.ts";
import type { PreviewState } from "./views/eval-preview.ts";

/** The posted question answered, or the form with its error (404: the agent, 429 and 400: the question). */
export async function tryQuestion(ctx: DashboardContext, values: FormValues): Promise<PreviewState> {
  const question = (values.question ?? "").trim();
  if (question === "") return { values, errors: { question: "Enter a question." }, status: 400 };
  if (question.length > EVAL_PREVIEW.chars) return { values, errors: { question: `At most ${EVAL_PREVIEW.chars} characters.` }, status: 400 };
  try {
    const preview = await previewQuestion(ctx.deps, ctx.orgId, ctx.principal.member.id, values.preview_agent || undefined, question, ctx.request.signal);
    return { values, errors: {}, status: 200, preview };
  } catch (error) {
    if (!(error instanceof AppError) || ![400, 404, 429].includes(error.status)) throw error;
    return { values, errors: error.status === 404 ? { preview_agent: error.message } : { question: error.message }, status: error.status };
  }
}
