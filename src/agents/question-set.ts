// A question set as a person writes it (README "Measuring answers"): the text of the run form or of
// an uploaded file, in one of three formats, read into the questions src/agents/evaluate.ts runs.
//   - JSON Lines (`svc-agents eval --questions`): every line a JSON object; chosen when the first
//     line starts with "{" or the file is .jsonl/.json.
//   - CSV (RFC 4180, parsed by d3-dsv): a header naming the columns — `question` and any of
//     `expected_doc`, `expected_phrase`, `expected_passage`, in any order — then one row a question;
//     chosen when the first line is such a header or the file is .csv.
//   - Plain lines: one question a line, nothing expected.
// Errors name the line (for CSV the record, the header being 1: the line unless a quoted field
// spans lines). The text is bounded before it is parsed (QUESTION_SET: characters and lines).
import { csvParseRows } from "d3-dsv";
import { AppError, type ErrorDetail } from "../errors.ts";
import { EVAL_LIMITS, type EvalQuestion, parseQuestions } from "./evaluate.ts";

export const QUESTION_SET = {
  /** Characters of a question set's text: room for EVAL_LIMITS.questions rows of long questions and expectations. */
  chars: 8 * 1024 * 1024,
  /** Lines of its text, blank ones included: each is an array once parsed, so millions of empty lines would cost seconds. */
  lines: 20_000,
} as const;

export type QuestionSetFormat = "jsonl" | "csv" | "lines";

const COLUMNS = ["question", "expected_doc", "expected_phrase", "expected_passage"] as const;
type Column = (typeof COLUMNS)[number];

/** The header's columns when `line` is a CSV header of a question set (it names `question`, and only known columns). */
function headerOf(line: string): string[] | null {
  const names = (csvParseRows(line)[0] ?? []).map((c) => c.trim().toLowerCase());
  return names.includes("question") && names.every((c) => (COLUMNS as readonly string[]).includes(c)) ? names : null;
}

/** The format of a set: by its first line, else by the file's name. */
export function formatOf(text: string, fileName?: string): QuestionSetFormat {
  const first = /^[\s\uFEFF]*([^\r\n]*)/.exec(text)![1]!.trim();
  const ext = /\.([a-z]+)$/i.exec(fileName ?? "")?.[1]?.toLowerCase();
  if (first.startsWith("{") || ext === "jsonl" || ext === "json") return "jsonl";
  if (headerOf(first) || ext === "csv") return "csv";
  return "lines";
}

const invalid = (details: ErrorDetail[]) => AppError.badRequest("The question set is invalid.", details.slice(0, 20));

function parseCsv(text: string): EvalQuestion[] {
  const rows = csvParseRows(text.replace(/^\uFEFF/, ""));
  const at = rows.findIndex((r) => r.some((c) => c.trim() !== ""));
  const names = at < 0 ? null : headerOf(rows[at]!.join(","));
  if (!names) throw invalid([{ path: "/1", message: `the first line names the columns: ${COLUMNS.join(",")} ("question" and any of the others)` }]);
  const details: ErrorDetail[] = [];
  const out: EvalQuestion[] = [];
  const body = rows.map((r, i) => ({ r, n: i + 1 })).filter(({ r, n }) => n > at + 1 && r.some((c) => c.trim() !== ""));
  if (body.length === 0) details.push({ path: "/", message: "no questions" });
  if (body.length > EVAL_LIMITS.questions) details.push({ path: "/", message: `at most ${EVAL_LIMITS.questions} questions` });
  for (const { r, n } of body.slice(0, EVAL_LIMITS.questions)) {
    if (r.length > names.length) {
      details.push({ path: `/${n}`, message: `${r.length} fields where the header names ${names.length}` });
      continue;
    }
    const cell = (c: Column) => {
      const i = names.indexOf(c);
      const v = i < 0 ? "" : (r[i] ?? "").trim();
      return v === "" ? undefined : v;
    };
    const question = cell("question");
    if (!question) details.push({ path: `/${n}`, message: "needs a question" });
    else if (COLUMNS.some((c) => (cell(c)?.length ?? 0) > EVAL_LIMITS.chars))
      details.push({ path: `/${n}`, message: `at most ${EVAL_LIMITS.chars} characters a field` });
    else out.push({ question, expectedDoc: cell("expected_doc"), expectedPhrase: cell("expected_phrase"), expectedPassage: cell("expected_passage") });
  }
  if (details.length > 0) throw invalid(details);
  return out;
}

function parseLines(text: string): EvalQuestion[] {
  const lines = text
    .split(/\r?\n/)
    .map((l, i) => ({ l: l.trim(), n: i + 1 }))
    .filter(({ l }) => l !== "");
  const details: ErrorDetail[] = [];
  if (lines.length === 0) details.push({ path: "/", message: "no questions" });
  if (lines.length > EVAL_LIMITS.questions) details.push({ path: "/", message: `at most ${EVAL_LIMITS.questions} questions` });
  for (const { l, n } of lines)
    if (l.length > EVAL_LIMITS.chars) details.push({ path: `/${n}`, message: `at most ${EVAL_LIMITS.chars} characters a question` });
  if (details.length > 0) throw invalid(details);
  return lines.map(({ l }) => ({ question: l }));
}

/** The questions of a set in any of its formats; 400 naming the lines of the first problems. */
export function parseQuestionSet(text: string, fileName?: string): { format: QuestionSetFormat; questions: EvalQuestion[] } {
  if (text.length > QUESTION_SET.chars) throw invalid([{ path: "/", message: `at most ${QUESTION_SET.chars} characters` }]);
  let lines = 1;
  for (let at = text.indexOf("\n"); at >= 0 && lines <= QUESTION_SET.lines; at = text.indexOf("\n", at + 1)) lines++;
  if (lines > QUESTION_SET.lines) throw invalid([{ path: "/", message: `at most ${QUESTION_SET.lines} lines` }]);
  const format = formatOf(text, fileName);
  const questions = format === "jsonl" ? parseQuestions(text) : format === "csv" ? parseCsv(text) : parseLines(text);
  return { format, questions };
}
