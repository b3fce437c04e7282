// checked on the source text:
// 1. a table is written (insert, update, delete — through drizzle or in raw SQL) only by modules
//    under its owning folder (test/house/owners.ts);
// 1a. a table is imported from db/schema (for reads too) only by modules under its owning folder,
//     and no dashboard page imports db/schema at all: pages call service and query functions;
// 2. no module in src/ outside main.ts holds mutable state at its top level: no top-level
//    let/var, and no top-level Map, Set, array or object that anything mutates. State lives in
//    Deps (built once per process or per test app) or in an instance.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { OWNERS, SHARED_READS, SHARED_WRITES } from "./owners.ts";

const ROOT = join(import.meta.dir, "../..");

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return path === "src/db/migrations" ? [] : sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The text without comments (string contents are kept: raw SQL lives in them). */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

/** drizzle export name → SQL table name, read from src/db/schema. */
function schemaTables(files: { path: string; text: string }[]): Map<string, string> {
  const tables = new Map<string, string>();
  for (const { text } of files) for (const m of text.matchAll(/export const (\w+) = pgTable\(\s*"(\w+)"/g)) tables.set(m[1]!, m[2]!);
  return tables;
}

/** Every table a module writes: `.insert(t)`, `.update(t)`, `.delete(t)`, and raw `insert into` / `update` / `delete from`. */
function writesOf(text: string, tables: Map<string, string>): Set<string> {
  const code = withoutComments(text);
  const bySql = new Map([...tables].map(([name, sqlName]) => [sqlName, name]));
  const found = new Set<string>();
  for (const m of code.matchAll(/\.(?:insert|update|delete)\(\s*(\w+)\s*\)/g)) if (tables.has(m[1]!)) found.add(m[1]!);
  for (const m of code.matchAll(/\b(?:insert\s+into|update|delete\s+from)\s+(?:\$\{\s*(\w+)\s*\}|"?(\w+)"?)/gi)) {
    const name = m[1] && tables.has(m[1]) ? m[1] : m[2] ? bySql.get(m[2].toLowerCase()) : undefined;
    if (name) found.add(name);
  }
  return found;
}

/** The names a module imports from db/schema (type-only names included). */
function schemaImportsOf(text: string): string[] {
  const code = withoutComments(text);
  const names: string[] = [];
  for (const m of code.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*["'][./]*db\/schema(?:\/[\w.-]+)?["']/g)) {
    for (const part of m[1]!.split(",")) {
      const name = part
        .trim()
        .replace(/^type\s+/, "")
        .split(/\s+as\s+/)[0]!
        .trim();
      if (name) names.push(name);
    }
  }
  for (const m of code.matchAll(/import\s+\*\s+as\s+\w+\s+from\s*["'][./]*db\/schema(?:\/[\w.-]+)?["']/g)) names.push(`* (${m[0]})`);
  return names;
}

/** Imports of a table from db/schema by a module outside the table's owning folder. */
function foreignTableImports(list: { path: string; text: string }[], owners: Record<string, string>): string[] {
  const found: string[] = [];
  for (const { path, text } of list) {
    if (path.startsWith("src/db/")) continue;
    for (const name of schemaImportsOf(text)) {
      const owner = owners[name];
      if (name.startsWith("* ")) found.push(`${path} imports all of db/schema`);
      else if (owner && !path.startsWith(`${owner}/`)) found.push(`${path} imports ${name} (owned by ${owner})`);
    }
  }
  return found;
}

const MUTATORS = "set|add|delete|clear|push|pop|shift|unshift|splice|sort|reverse|fill|copyWithin";

/** Names of top-level bindings that hold state: let/var, or a Map/Set/array/object someone mutates. */
function moduleState(text: string): string[] {
  const code = withoutComments(text);
  const found: string[] = [];
  for (const m of code.matchAll(/^(?:export\s+)?(?:let|var)\s+(\w+)/gm)) found.push(m[1]!);
  for (const m of code.matchAll(/^(?:export\s+)?const\s+(\w+)\s*(?::[^=\n]+)?=\s*(?:new\s+(?:Map|Set|WeakMap|WeakSet|Array)\b|\[|\{)/gm)) {
    const name = m[1]!;
    const mutated = [
      new RegExp(`\\b${name}\\.(?:${MUTATORS})\\(`),
      new RegExp(`\\b${name}(?:\\.\\w+|\\[[^\\]]*\\])+\\s*(?:=(?![=>])|\\+=|-=|\\*=|/=|\\?\\?=|\\|\\|=|&&=|\\+\\+|--)`),
      new RegExp(`\\bObject\\.assign\\(\\s*${name}\\b`),
      new RegExp(`\\bdelete\\s+${name}[.\\[]`),
    ].some((re) => re.test(code));
    if (mutated) found.push(name);
  }
  return found;
}

/**
 * Top-level bindings allowed to change, each with its reason. A memo of a pure computation on
 * constant input is not observable state.
 */
const ALLOWED_STATE: Record<string, string[]> = {
  // WebAssembly.compile of the bundled PGlite binaries, once per process (every test file opens a database).
  "src/db/pglite-assets.ts": ["compiled"],
  // The language detector's n-gram tables, imported once per process on first use (2 MB of code);
  // a language tag's primary subtag, a pure function of the tag, bounded (cleared past 1,000 tags).
  "src/kit/language.ts": ["detector", "normalized"],
  // Passages cut into units and stems, by their text: a pure function of it, bounded (500, oldest first).
  "src/agents/llm/builtin.ts": ["parsed"],
  // Compiled ICU messages by language and text: a pure function of its key, bounded (cleared past 5,000).
  "src/i18n/catalogue.ts": ["compiled"],
  // The system prompt's language instruction by language code: a pure function of it, bounded (cleared past 500).
  "src/agents/pipeline/prompt.ts": ["instructions"],
  // One text analyzer per language (segmenter, stemmer, stop list), built on first use and never changed after.
  "src/kit/analyzer.ts": ["analyzers"],
};

const files = sourceFiles("src").map((path) => ({ path, text: readFileSync(join(ROOT, path), "utf8") }));
const tables = schemaTables(files.filter((f) => f.path.startsWith("src/db/schema/")));

describe("one owning folder per table", () => {
  test("every table in src/db/schema has an owner in test/house/owners.ts", () => {
    const unowned = [...tables.keys()].filter((t) => !(t in OWNERS));
    expect(unowned).toEqual([]);
    expect([...Object.keys(OWNERS)].filter((t) => !tables.has(t))).toEqual([]); // no stale lines either
    expect(tables.size).toBeGreaterThan(20);
  });

  test("no module outside a table's owning folder writes it", () => {
    const violations: string[] = [];
    for (const { path, text } of files) {
      if (path.startsWith("src/db/")) continue;
      for (const table of writesOf(text, tables)) {
        const owner = OWNERS[table];
        if (!owner || path.startsWith(`${owner}/`)) continue;
        if (SHARED_WRITES.some((s) => s.table === table && s.file === path)) continue;
        violations.push(`${path} writes ${table} (owned by ${owner})`);
      }
    }
    expect(violations).toEqual([]);
  });

  test("no module outside a table's owning folder imports it from db/schema (reads included)", () => {
    const allowed = new Set(SHARED_READS.map((s) => `${s.file} imports ${s.table} (owned by ${OWNERS[s.table]})`));
    expect(foreignTableImports(files, OWNERS).filter((v) => !allowed.has(v))).toEqual([]);
  });

  test("every allowed shared read still happens (no stale exceptions)", () => {
    for (const s of SHARED_READS) expect(schemaImportsOf(files.find((f) => f.path === s.file)?.text ?? "")).toContain(s.table);
  });

  test("no dashboard page imports db/schema", () => {
    const pages = files.filter((f) => f.path.startsWith("src/dashboard/") && schemaImportsOf(f.text).length > 0);
    expect(pages.map((f) => f.path)).toEqual([]);
  });

  test("the import detector sees named, type and aliased imports of a table, and ignores the owner and comments", () => {
    const owners = { tickets: "src/inbox", endUsers: "src/customers" };
    const made = [
      { path: "src/inbox/a.ts", text: 'import { tickets, endUsers } from "../db/schema/index.ts";' },
      { path: "src/sdk/b.ts", text: 'import {\n  type tickets as T,\n  type AudienceRule,\n} from "../db/schema/inbox.ts";' },
      { path: "src/x/c.ts", text: '// import { tickets } from "../db/schema/index.ts";\nimport * as s from "../../db/schema/index.ts";' },
      { path: "src/db/schema/d.ts", text: 'import { tickets } from "./index.ts";' },
    ];
    expect(foreignTableImports(made, owners)).toEqual([
      "src/inbox/a.ts imports endUsers (owned by src/customers)",
      "src/sdk/b.ts imports tickets (owned by src/inbox)",
      "src/x/c.ts imports all of db/schema",
    ]);
    expect(schemaImportsOf(made[1]!.text)).toEqual(["tickets", "AudienceRule"]);
  });

  test("every allowed shared write still happens (no stale exceptions)", () => {
    for (const s of SHARED_WRITES) expect(writesOf(files.find((f) => f.path === s.file)?.text ?? "", tables)).toContain(s.table);
  });

  test("the detector sees drizzle and raw SQL writes, and ignores reads and comments", () => {
    const t = new Map([
      ["tickets", "tickets"],
      ["endUsers", "end_users"],
    ]);
    expect([...writesOf("await tx.insert(tickets).values(x)", t)]).toEqual(["tickets"]);
    expect([...writesOf("deps.db\n  .update( endUsers )\n  .set({})", t)]).toEqual(["endUsers"]);
    expect([...writesOf("await db.execute(sql`delete from end_users where id = ${id}`)", t)]).toEqual(["endUsers"]);
    expect([...writesOf("sql`update ${tickets} set status = 'open'`", t)]).toEqual(["tickets"]);
    expect([...writesOf("db.select().from(tickets); // db.delete(tickets)", t)]).toEqual([]);
    expect([...writesOf("sql`select 1 for update skip locked`", t)]).toEqual([]);
  });
});

describe("no module-level mutable state in src/ outside main.ts", () => {
  test("top-level bindings of every module", () => {
    const violations: string[] = [];
    for (const { path, text } of files) {
      if (path === "src/main.ts") continue;
      for (const name of moduleState(text)) if (!ALLOWED_STATE[path]?.includes(name)) violations.push(`${path}: ${name}`);
    }
    expect(violations).toEqual([]);
  });

  test("the detector sees let/var and mutated collections, and leaves constants alone", () => {
    expect(moduleState("let cache: string | undefined;\nexport function f() {}")).toEqual(["cache"]);
    expect(moduleState("const inFlight = new Map<string, Promise<void>>();\nfunction f(k) { inFlight.set(k, p); }")).toEqual(["inFlight"]);
    expect(moduleState("const seen: string[] = [];\nexport const g = (x) => seen.push(x);")).toEqual(["seen"]);
    expect(moduleState("const counters = { hits: 0 };\nexport const h = () => counters.hits++;")).toEqual(["counters"]);
    expect(moduleState("const STOP = new Set(['a']);\nexport const stop = (w) => STOP.has(w);")).toEqual([]);
    expect(moduleState("export const LIMITS = { max: 1 };\nfunction f() {\n  let i = 0;\n  const local = new Map();\n  local.set(1, 2);\n}")).toEqual([]);
    expect(moduleState("const A = { x: 1 };\nif (A.x === 1) {}\nconst f = (o) => o.x => 1;")).toEqual([]);
  });
});
