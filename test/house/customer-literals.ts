// What test/house/catalogue.test.ts counts as a customer-facing sentence written outside the
// catalogue: in a module that talks to customers, a string literal (or the fixed text of a
// template literal) holding three or more words of letters in a row. Comments, log and console
// lines, and literals a module marks as not for customers are left out. Kept small on purpose:
// the catalogue's keys are dotted words ("widget.send"), CSS and URLs hold no run of three words.

/** Modules whose literals reach a customer (README "Languages"), and why each is on the list. */
export const CUSTOMER_MODULES: readonly string[] = [
  "src/agents/llm/builtin.ts", // the builtin provider's own replies
  "src/agents/pipeline/answer.ts", // what a model that said nothing leaves the customer
  "src/agents/pipeline/handoff-note.ts", // the hand-off acknowledgement
  "src/agents/pipeline/steps/", // the waiting line, routing and escalation notes
  "src/sdk/chat-routes.ts", // the fallback when the model fails
  "src/inbox/csat-mail.ts", // the resolution and rating email
  "src/inbox/csat-page.ts", // the rating page
  "src/inbox/reply-mail.ts", // a person's reply by email
  "src/campaigns/opt-in-mail.ts", // the double opt-in confirmation email
  "src/campaigns/opt-in-routes.ts", // the double opt-in pages
  "src/widget/client/", // every label and announcement of the widget (styles.ts is CSS)
  "src/helpcentre/", // the public help centre's pages: their chrome, errors and vote (styles.ts is CSS)
];

/** Lines that are not customer-facing whatever they hold (a line, or the line before it, may say so: "not for customers"). */
const NOT_FOR_CUSTOMERS =
  /\b(?:log\.(?:info|warn|error|debug)|console\.(?:log|warn|error|info))\(|\bdescription:|\bsummary:|\breason:|\bthrow new LlmError\(|AppError\./;
const MARKED = /not for customers/;

/** A run of three or more words of letters (any script) separated by single spaces. */
const SENTENCE = /\p{L}{2,}(?: \p{L}+){2,}/u;

function stripComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, " ")).replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

/** The string literals of one line (template literals: their fixed text, `${…}` left out). */
export function literalsOf(line: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|`((?:[^`\\]|\\.)*)`/g;
  for (const m of line.matchAll(re)) out.push((m[1] ?? m[2] ?? m[3] ?? "").replace(/\$\{[^}]*\}/g, " "));
  return out;
}

/** `path:line: literal` for every sentence-like literal of a customer-facing module's source. */
export function customerLiterals(path: string, source: string): string[] {
  if (path.endsWith("/styles.ts")) return [];
  const found: string[] = [];
  const raw = source.split("\n");
  stripComments(source)
    .split("\n")
    .forEach((line, i) => {
      if (MARKED.test(raw[i]!) || (i > 0 && MARKED.test(raw[i - 1]!))) return;
      // An OpenAPI description written on the line after its key.
      if (i > 0 && /\b(?:description|summary):\s*$/.test(raw[i - 1]!)) return;
      if (NOT_FOR_CUSTOMERS.test(line) || /\bimport\b.*\bfrom\b/.test(line)) return;
      for (const literal of literalsOf(line)) if (SENTENCE.test(literal)) found.push(`${path}:${i + 1}: ${literal.trim().slice(0, 80)}`);
    });
  return found;
}
