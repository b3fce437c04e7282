// Dashboard pages as components (docs/architecture.md "Dashboard pages"): a page's markup lives in a
// view, src/dashboard/views/<purpose>.ts, a plain function from typed props to `Html`; a route file,
// src/dashboard/<area>.ts, wires Elysia, validates, loads and calls views, and holds no `html` template.
// A view imports only markup: src/html/, src/i18n/, src/dashboard/kit/ and other views, anything
// else only with `import type`; never elysia nor deps.ts, not even as a type (a view takes no Deps).
// Both rules are checked on the source text by the functions below, which the last tests feed
// planted violations to show they can fail.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = join(import.meta.dir, "../..");
const DASHBOARD = "src/dashboard";
const VIEWS = `${DASHBOARD}/views/`;

type Source = { path: string; text: string };

function sourceFiles(dir: string): string[] {
  if (!existsSync(join(ROOT, dir))) return [];
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

const read = (path: string): Source => ({ path, text: readFileSync(join(ROOT, path), "utf8") });

/** A route file: directly in src/dashboard/ (views/, kit/ and client/ are folders, so not). */
export function isRouteFile(path: string): boolean {
  return /^src\/dashboard\/[^/]+\.tsx?$/.test(path);
}

// A tagged template `html` (whitespace before the backtick is still a tag).
const TEMPLATE = /(?<![\w$.])html\s*`/;

/** Each `file:line` of a route file that holds an `html` template. */
export function templatesInRoutes(files: readonly Source[]): string[] {
  return files.filter((f) => isRouteFile(f.path)).flatMap((f) => f.text.split("\n").flatMap((line, i) => (TEMPLATE.test(line) ? [`${f.path}:${i + 1}`] : [])));
}

// Every `import … from "x"`, `export … from "x"`, bare `import "x"` and `import("x")`; group 1 is the
// clause between the keyword and `from` (absent for the bare and dynamic forms).
const IMPORT =
  /(?:^|\n)[ \t]*(?:import|export)\s+([\w$\s{},*]*?)\s*from\s*["']([^"']+)["']|(?:^|\n)[ \t]*import\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** `import type {…}`, `export type {…}`, or braces whose every name is marked `type`. */
function typeOnly(clause: string): boolean {
  if (/^type\s/.test(clause)) return true;
  const braces = /^\{([^}]*)\}$/.exec(clause.trim());
  if (!braces) return false;
  const names = braces[1]!
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  return names.length > 0 && names.every((name) => /^type\s/.test(name));
}

const VIEW_MAY_IMPORT = ["src/html/", "src/i18n/", "src/dashboard/kit/", "src/dashboard/views/"];

/** Each `file: specifier` a view imports against the rule. */
export function viewImportViolations(files: readonly Source[]): string[] {
  return files
    .filter((f) => f.path.startsWith(VIEWS))
    .flatMap((f) =>
      [...f.text.matchAll(IMPORT)].flatMap((m) => {
        const specifier = m[2] ?? m[3] ?? m[4]!;
        const clause = m[1]?.trim() ?? "";
        const relativeTo = specifier.startsWith(".");
        const target = relativeTo ? relative(ROOT, resolve(dirname(join(ROOT, f.path)), specifier)) : specifier;
        const never = target === "elysia" || target.startsWith("elysia/") || target === "src/deps.ts";
        if (never) return [`${f.path}: ${specifier}`];
        if (m[1] !== undefined && typeOnly(clause)) return [];
        return relativeTo && VIEW_MAY_IMPORT.some((dir) => target.startsWith(dir)) ? [] : [`${f.path}: ${specifier}`];
      }),
    );
}

describe("dashboard pages: views apart from routes", () => {
  const routeFiles = sourceFiles(DASHBOARD).filter(isRouteFile);
  const viewFiles = sourceFiles(`${DASHBOARD}/views`);

  test("a route file holds no `html` template", () => {
    expect(routeFiles.length).toBeGreaterThan(30);
    expect(templatesInRoutes(routeFiles.map(read))).toEqual([]);
  });

  test("a view imports only markup (html/, i18n/, dashboard kit and views), other things only as types, never elysia or deps", () => {
    expect(viewImportViolations(viewFiles.map(read))).toEqual([]);
  });

  test("the route check finds a planted template, and leaves views, kit and client alone", () => {
    const planted: Source = {
      path: "src/dashboard/made-up.ts",
      text: 'import { html } from "../html/html.ts";\nexport const page = () => html`<p>x</p>`;\nconst b = html `<b></b>`;\n// htmlish`x` and x.html`y` are not the tag\n',
    };
    const view: Source = { path: "src/dashboard/views/made-up.ts", text: "export const V = () => html`<p>x</p>`;" };
    const kit: Source = { path: "src/dashboard/kit/made-up.ts", text: "export const K = () => html`<p>x</p>`;" };
    const client: Source = { path: "src/dashboard/client/made-up.ts", text: "export const C = () => html`<p>x</p>`;" };
    expect(templatesInRoutes([planted, view, kit, client])).toEqual(["src/dashboard/made-up.ts:2", "src/dashboard/made-up.ts:3"]);
  });

  test("the view check finds planted imports of elysia, deps, a store and a package; types and markup pass", () => {
    const planted: Source = {
      path: "src/dashboard/views/made-up.ts",
      text: [
        'import { html } from "../../html/html.ts";',
        'import { t } from "../../i18n/index.ts";',
        'import { field } from "../kit/fields.ts";',
        'import { Other } from "./other.ts";',
        'import type { Campaign } from "../../campaigns/store.ts";',
        'import { type Agent, type Rule } from "../../agents/store.ts";',
        'import { Elysia } from "elysia";',
        'import type { Deps } from "../../deps.ts";',
        "import {",
        "  listCampaigns,",
        "  type Campaign as C,",
        '} from "../../campaigns/store.ts";',
        'export { shellPage } from "../shell.ts";',
        'import "../../db/client.ts";',
        'const lazy = await import("../../agents/store.ts");',
        'import { z } from "zod";',
      ].join("\n"),
    };
    const route: Source = { path: "src/dashboard/made-up.ts", text: 'import { Elysia } from "elysia";' };
    expect(viewImportViolations([planted, route])).toEqual([
      "src/dashboard/views/made-up.ts: elysia",
      "src/dashboard/views/made-up.ts: ../../deps.ts",
      "src/dashboard/views/made-up.ts: ../../campaigns/store.ts",
      "src/dashboard/views/made-up.ts: ../shell.ts",
      "src/dashboard/views/made-up.ts: ../../db/client.ts",
      "src/dashboard/views/made-up.ts: ../../agents/store.ts",
      "src/dashboard/views/made-up.ts: zod",
    ]);
  });
});
