// XQuAD in twelve languages (bench/scenarios/quality.ts; docs/quality.md "Every language"): the
// development part of XQuAD, read from ../shared/eval/xquad/dev.json and never copied here — each
// language's pages in an org of its own, and all twelve languages' pages in one org (a multilingual
// help centre, where the right page is the one in the question's language). Every page is created
// through POST /api/docs without a language (detected when written), every question asked in a new
// session through POST /api/sdk/chat with the builtin provider. Beside it, plain BM25 over the same
// pages with the same word segmenter (bench/bm25.ts with src/kit/analyzer.ts `segmentWords`).
import { join } from "node:path";
import { segmentWords } from "../src/kit/analyzer.ts";
import { BENCH_PASSWORD, expectStatus, sessionBearer } from "./mcp.ts";
import { Bm25 } from "./bm25.ts";
import { fixed, printTable } from "./report.ts";
import { createBenchOrg, ourServer, startServer } from "./runner.ts";
import { HIGH_SDK_LIMITS } from "./scenarios/chat.ts";

export interface XquadData {
  docs: { id: string; domain: string; title: string; body: string }[];
  questions: { id: string; doc_id: string; domain: string; text: string }[];
}

/** Recall@1 per language: ours and plain BM25, with one org per language and with every language in one org. */
export interface XquadRow {
  language: string;
  questions: number;
  own: { ours: number; bm25: number };
  together: { ours: number; bm25: number };
}

/** Publishes `docs` through POST /api/docs, `parallel` at a time; their ids in order. */
export async function createDocs(url: string, token: string, docs: { title: string; body: string; url?: string }[], parallel = 4): Promise<string[]> {
  const ids: string[] = new Array(docs.length);
  let next = 0;
  const worker = async () => {
    while (next < docs.length) {
      const i = next++;
      const res = await fetch(`${url}/api/docs`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ ...docs[i], status: "published" }),
      });
      await expectStatus(res, 201, "POST /api/docs");
      ids[i] = ((await res.json()) as { id: string }).id;
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return ids;
}

/** Each question in a new session: whether the answer's first source, and BM25's first page, is the labelled page. */
async function recallAt1(
  url: string,
  key: string,
  docs: XquadData["docs"],
  ids: string[],
  questions: XquadData["questions"],
): Promise<Map<string, { n: number; ours: number; bm25: number }>> {
  const theirId = new Map(docs.map((d, i) => [ids[i]!, d.id]));
  const bm25 = new Bm25(
    docs.map((d) => ({ id: d.id, text: `${d.title}\n${d.body}` })),
    segmentWords,
  );
  const out = new Map<string, { n: number; ours: number; bm25: number }>();
  for (const q of questions) {
    const res = await fetch(`${url}/api/sdk/chat`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ message: q.text.slice(0, 4000) }),
    });
    const answer = (await res.json()) as { sources?: { doc_id: string }[] };
    if (res.status !== 200) throw new Error(`POST /api/sdk/chat: ${res.status} ${JSON.stringify(answer).slice(0, 300)}`);
    const row = out.get(q.domain) ?? { n: 0, ours: 0, bm25: 0 };
    row.n++;
    if (theirId.get(answer.sources?.[0]?.doc_id ?? "") === q.doc_id) row.ours++;
    if (bm25.rank(q.text, 1)[0] === q.doc_id) row.bm25++;
    out.set(q.domain, row);
  }
  return out;
}

export async function xquadLanguages(work: string, data: XquadData): Promise<XquadRow[]> {
  const languages = [...new Set(data.docs.map((d) => d.domain))];
  const env = { DATA_DIR: join(work, "quality-xquad-languages"), LOG_LEVEL: "error", LLM_PROVIDER: "builtin", ...HIGH_SDK_LIMITS };
  const orgs = new Map<string, { email: string; widgetKey: string }>();
  for (const name of [...languages, "all"])
    orgs.set(name, await createBenchOrg(env, `quality-xquad-${name}`, { name: `XQuAD ${name}`, email: `xquad-${name}@example.com`, flags: [] }));
  const server = await startServer(ourServer("ours, PGlite, XQuAD languages", env), work);
  try {
    const run = async (name: string, docs: XquadData["docs"], questions: XquadData["questions"]) => {
      const org = orgs.get(name)!;
      const token = await sessionBearer(server.url, org.email, BENCH_PASSWORD);
      const ids = await createDocs(
        server.url,
        token,
        docs.map((d) => ({ title: d.title, body: d.body })),
      );
      return recallAt1(server.url, org.widgetKey, docs, ids, questions);
    };
    const own = new Map<string, { n: number; ours: number; bm25: number }>();
    for (const language of languages) {
      const got = await run(
        language,
        data.docs.filter((d) => d.domain === language),
        data.questions.filter((q) => q.domain === language),
      );
      own.set(language, got.get(language) ?? { n: 0, ours: 0, bm25: 0 });
    }
    const together = await run("all", data.docs, data.questions);
    return languages.map((language) => {
      const o = own.get(language)!;
      const t = together.get(language) ?? { n: 0, ours: 0, bm25: 0 };
      return {
        language,
        questions: o.n,
        own: { ours: o.ours / Math.max(1, o.n), bm25: o.bm25 / Math.max(1, o.n) },
        together: { ours: t.ours / Math.max(1, t.n), bm25: t.bm25 / Math.max(1, t.n) },
      };
    });
  } finally {
    await server.stop();
  }
}

export function printXquad(rows: XquadRow[]): void {
  printTable(
    "XQuAD development part, recall@1 per language (builtin provider; plain BM25 with the same word segmenter)",
    ["language", "questions", "own org: ours", "own org: BM25", "all twelve: ours", "all twelve: BM25"],
    rows.map((r) => [r.language, String(r.questions), fixed(r.own.ours, 2), fixed(r.own.bm25, 2), fixed(r.together.ours, 2), fixed(r.together.bm25, 2)]),
  );
}

/** docs/quality.md's section on XQuAD in every language. */
export function xquadSection(rows: XquadRow[] | undefined): string {
  if (!rows || rows.length === 0) return "";
  const mean = (f: (r: XquadRow) => number) => rows.reduce((n, r) => n + f(r), 0) / rows.length;
  return `
## Every language

**Data**: XQuAD's development part in all its twelve languages — Mikel Artetxe, Sebastian Ruder,
Dani Yogatama, "On the Cross-lingual Transferability of Monolingual Representations", ACL 2020
(DeepMind), licensed under [CC BY-SA 4.0](https://creativecommons.org/licenses/by-sa/4.0/): the same
Wikipedia paragraphs (60 per language) and questions written by people (257 per language),
professionally translated; read from \`../shared/eval/xquad/dev.json\` (or \`BENCH_XQUAD_DATA\`) and
never copied here. Only the development part is used for tuning; the held-out articles are not read.

**How**: each language's pages in an org of its own, and all twelve languages' pages in one org (a
multilingual help centre: the right page is the one in the question's language). Pages are created
through \`POST /api/docs\` without a language (detected when written); each question is asked in a new
session through \`POST /api/sdk/chat\` with the builtin provider. The baseline is plain BM25 over the
same pages in the same run, with the same word segmenter (\`Intl.Segmenter\`, no stems, no stop words).

| language | questions | own org: ours | own org: plain BM25 | all twelve in one org: ours | all twelve: plain BM25 |
| --- | ---: | ---: | ---: | ---: | ---: |
${rows.map((r) => `| ${r.language} | ${r.questions} | ${fixed(r.own.ours, 2)} | ${fixed(r.own.bm25, 2)} | ${fixed(r.together.ours, 2)} | ${fixed(r.together.bm25, 2)} |`).join("\n")}
| **mean** | | **${fixed(
    mean((r) => r.own.ours),
    2,
  )}** | ${fixed(
    mean((r) => r.own.bm25),
    2,
  )} | **${fixed(
    mean((r) => r.together.ours),
    2,
  )}** | ${fixed(
    mean((r) => r.together.bm25),
    2,
  )} |
`;
}
