// The house's figures, for src/: files, floors and rooms, arrows between rooms, circles, arrows up
// a floor; the longest function and every function over 80 lines; the functions and other places
// that take the whole `Deps`; lines wider than the formatter's width. Printed as markdown tables.
//
//   bun scripts/house-figures.ts [root]     (root: a checkout of this repository; default this one)
//
// The import graph and the floor table are test/house's (import-graph.ts, floors.ts): another
// checkout is measured against this checkout's floors, so two revisions are held to one table.
// Functions are found by the TypeScript compiler's parser (its API, `typescript/unstable/async`):
// function declarations, methods, constructors, accessors, arrow functions and function
// expressions that have a body; a function's length runs from its first line to its last.
// What takes the whole `Deps` is decided here, once (`isWholeDeps`): this report counts the
// functions with such a parameter and every parameter, property and type alias of that type
// (`depsIn`), which test/house/deps-params.ts reads for the house test and `bun scripts/deps-census.ts`.
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { API } from "typescript/unstable/async";
import {
  isArrowFunction,
  isCallExpression,
  isClassDeclaration,
  isFunctionDeclaration,
  isFunctionExpression,
  isIdentifier,
  isImportDeclaration,
  isMethodDeclaration,
  isNamedImports,
  isNamespaceImport,
  isParameterDeclaration,
  isPropertyAccessExpression,
  isPropertyAssignment,
  isPropertyDeclaration,
  isPropertySignatureDeclaration,
  isQualifiedName,
  isStringLiteral,
  isTypeAliasDeclaration,
  isTypeReferenceNode,
  isVariableDeclaration,
  type Node,
  type ParameterDeclaration,
  type SourceFile,
  SyntaxKind,
  type TypeNode,
} from "typescript/unstable/ast";
import { FLOORS } from "../test/house/floors.ts";
import { circles, type Edge, floorOf, importEdges, roomOf, sourceFiles, upward } from "../test/house/import-graph.ts";

/** Over this many lines a function is listed. */
export const LONG_FUNCTION = 80;
/** The formatter's width (biome.json "lineWidth"): a line wider than this is counted. */
export const WIDE_LINE = 160;

export type Fn = { name: string; file: string; line: number; lines: number; wholeDeps: boolean };

const FUNCTION_KINDS = new Set<SyntaxKind>([
  SyntaxKind.FunctionDeclaration,
  SyntaxKind.MethodDeclaration,
  SyntaxKind.Constructor,
  SyntaxKind.GetAccessor,
  SyntaxKind.SetAccessor,
  SyntaxKind.ArrowFunction,
  SyntaxKind.FunctionExpression,
]);

/**
 * Parses `files` (relative to `root`) with the compiler, one source tree per file, in their order.
 * `planted` supplies the text of files that are not on disk (by path relative to `root`).
 */
export async function parse(root: string, files: string[], planted: Record<string, string> = {}): Promise<SourceFile[]> {
  const config = join(root, "house-figures.tsconfig.json"); // never written: served below
  const texts = new Map(Object.entries(planted).map(([file, text]) => [join(root, file), text]));
  texts.set(
    config,
    JSON.stringify({
      compilerOptions: { noLib: true, noResolve: true, types: [], noEmit: true, allowImportingTsExtensions: true },
      files: files.map((f) => join(root, f)),
    }),
  );
  const api = new API({ cwd: root, fs: { readFile: (name) => texts.get(name), fileExists: (name) => (texts.has(name) ? true : undefined) } });
  try {
    const snapshot = await api.updateSnapshot({ openProjects: [config] });
    const project = snapshot.getProject(config) ?? snapshot.getProjects()[0];
    if (!project) throw new Error("the compiler opened no project");
    return await Promise.all(
      files.map(async (f) => {
        const tree = await project.program.getSourceFile(join(root, f));
        if (!tree) throw new Error(`the compiler did not read ${f}`);
        return tree;
      }),
    );
  } finally {
    await api.close();
  }
}

/** The local names under which `file` sees the `Deps` of src/deps.ts: plain names, and namespaces (`d.Deps`). */
function depsNames(tree: SourceFile, file: string): { names: Set<string>; namespaces: Set<string> } {
  const names = new Set<string>(file === "src/deps.ts" ? ["Deps"] : []);
  const namespaces = new Set<string>();
  for (const statement of tree.statements) {
    if (!isImportDeclaration(statement) || !isStringLiteral(statement.moduleSpecifier)) continue;
    const target = join(dirname(file), statement.moduleSpecifier.text).replace(/\.[jt]s$/, "");
    const bindings = statement.importClause?.namedBindings;
    if (target !== "src/deps" || !bindings) continue;
    if (isNamespaceImport(bindings)) namespaces.add(bindings.name.text);
    else if (isNamedImports(bindings))
      for (const element of bindings.elements) if ((element.propertyName ?? element.name).text === "Deps") names.add(element.name.text);
  }
  return { names, namespaces };
}

/** Whether `type` names the `Deps` of src/deps.ts itself, under the names `seen` (a reference with no type arguments). */
function namesDeps(type: TypeNode | undefined, seen: { names: Set<string>; namespaces: Set<string> }): boolean {
  if (!type || !isTypeReferenceNode(type) || type.typeArguments?.length) return false;
  const name = type.typeName;
  if (isIdentifier(name)) return seen.names.has(name.text);
  return isQualifiedName(name) && isIdentifier(name.left) && seen.namespaces.has(name.left.text) && name.right.text === "Deps";
}

/** Whether `type` is the whole `Deps`, read-only or not (not `Pick<Deps, …>`, `Partial<Deps>` or a member's type). */
function isWholeDeps(type: TypeNode | undefined, seen: { names: Set<string>; namespaces: Set<string> }): boolean {
  if (type && isTypeReferenceNode(type) && isIdentifier(type.typeName) && type.typeName.text === "Readonly" && type.typeArguments?.length === 1)
    return namesDeps(type.typeArguments[0], seen);
  return namesDeps(type, seen);
}

/** A place of a file typed the whole `Deps`: `deps (line 12)`, `outer (line 8)`, `type AllDeps (line 3)`. */
export type WholeDeps = { name: string; line: number };

/**
 * Every parameter (of any function or signature, with a body or not), property (of an interface,
 * a type literal or a class) and type alias of `tree` (the source of `file`) typed the whole
 * `Deps`; a variable's annotation (`const inTx: Deps = { ...deps, db: tx }`) is not one. Also how
 * many `Pick<Deps, …>` it writes (an alias of one counts once, where it is declared).
 */
export function depsIn(tree: SourceFile, file: string): { whole: WholeDeps[]; picks: number } {
  const deps = depsNames(tree, file);
  const whole: WholeDeps[] = [];
  let picks = 0;
  const visit = (node: Node): void => {
    if (isParameterDeclaration(node) || isPropertySignatureDeclaration(node) || isPropertyDeclaration(node) || isTypeAliasDeclaration(node)) {
      if (isWholeDeps(node.type, deps)) {
        const name = isTypeAliasDeclaration(node)
          ? `type ${node.name.text}`
          : (textOf(node.name) ?? `(${isParameterDeclaration(node) ? "destructured" : "computed"})`);
        whole.push({ name, line: tree.getLineAndCharacterOfPosition(node.getStart(tree)).line + 1 });
      }
    } else if (isTypeReferenceNode(node) && isIdentifier(node.typeName) && node.typeName.text === "Pick" && namesDeps(node.typeArguments?.[0], deps)) picks++;
    node.forEachChild(visit);
  };
  visit(tree);
  return { whole, picks };
}

function textOf(name: Node | undefined): string | undefined {
  if (!name) return undefined;
  if (isIdentifier(name) || isStringLiteral(name)) return name.text;
  return undefined;
}

/** A readable name: the function's own, else what holds it (variable, property, class), else the call it is passed to. */
function nameOf(node: Node): string {
  const own = textOf((node as { name?: Node }).name);
  const parent = node.parent;
  const holder = parent && isClassDeclaration(parent) ? textOf(parent.name) : undefined;
  if (node.kind === SyntaxKind.Constructor) return `${holder ?? "(class)"}.constructor`;
  if (own) return holder ? `${holder}.${own}` : own;
  if (isFunctionDeclaration(node)) return "(default)";
  if (parent && (isVariableDeclaration(parent) || isPropertyAssignment(parent) || isPropertyDeclaration(parent))) {
    const held = textOf(parent.name);
    if (held) return held;
  }
  if (parent && isCallExpression(parent)) {
    const callee = parent.expression;
    const called = isPropertyAccessExpression(callee) ? callee.name.text : isIdentifier(callee) ? callee.text : "call";
    const first = parent.arguments[0];
    return `(passed to ${called}${first && isStringLiteral(first) ? ` "${first.text}"` : ""})`;
  }
  return "(anonymous)";
}

/** Every function with a body in `tree` (the source of `file`), with its first line and its length in lines. */
export function functionsIn(tree: SourceFile, file: string): Fn[] {
  const deps = depsNames(tree, file);
  const found: Fn[] = [];
  const visit = (node: Node): void => {
    if (FUNCTION_KINDS.has(node.kind) && (node as { body?: Node }).body) {
      const first = tree.getLineAndCharacterOfPosition(node.getStart(tree)).line;
      const last = tree.getLineAndCharacterOfPosition(node.end).line;
      const parameters = (node as { parameters?: readonly ParameterDeclaration[] }).parameters ?? [];
      found.push({ name: nameOf(node), file, line: first + 1, lines: last - first + 1, wholeDeps: parameters.some((p) => isWholeDeps(p.type, deps)) });
    }
    node.forEachChild(visit);
  };
  visit(tree);
  return found;
}

/** Lines of `text` wider than `width` code points (as an editor counts them). */
export function wideLines(text: string, width = WIDE_LINE): number {
  return text.split("\n").filter((line) => [...line].length > width).length;
}

export type Figures = {
  files: number;
  floors: number;
  rooms: number;
  unplaced: string[];
  imports: number;
  arrows: number;
  roomCircles: string[][];
  fileCircles: string[][];
  upward: string[];
  upwardArrows: number;
  functions: Fn[];
  /** Parameters, properties and type aliases typed the whole `Deps` (`depsIn`): what `bun scripts/deps-census.ts` totals. */
  wholeDeps: number;
  wide: { lines: number; files: number };
};

/** Strongly connected rooms: the circles of the room graph. */
function roomGraph(edges: Edge[]): { arrows: Edge[]; rooms: string[] } {
  const arrows = new Map<string, Edge>();
  for (const { from, to } of edges) {
    const a = roomOf(from);
    const b = roomOf(to);
    if (a !== b) arrows.set(`${a} ${b}`, { from: a, to: b });
  }
  const rooms = [...new Set([...arrows.values()].flatMap(({ from, to }) => [from, to]))];
  return { arrows: [...arrows.values()], rooms };
}

export async function measure(root: string): Promise<Figures> {
  const files = sourceFiles(root, "src");
  const edges = importEdges(root, files);
  const rooms = [...new Set(files.map(roomOf))].sort();
  const graph = roomGraph(edges);
  const up = upward(edges);
  const trees = await parse(root, files);
  const functions = trees.flatMap((tree, i) => functionsIn(tree, files[i]!));
  const wholeDeps = trees.reduce((n, tree, i) => n + depsIn(tree, files[i]!).whole.length, 0);
  const widths = files.map((f) => wideLines(readFileSync(join(root, f), "utf8")));
  return {
    files: files.length,
    floors: FLOORS.length,
    rooms: rooms.length,
    unplaced: rooms.filter((room) => !floorOf.has(room)),
    imports: edges.length,
    arrows: graph.arrows.length,
    roomCircles: circles(graph.rooms, graph.arrows),
    fileCircles: circles(files, edges),
    upward: up,
    upwardArrows: new Set(up.map((line) => line.split(" -> ").map(roomOf).join(" "))).size,
    functions,
    wholeDeps,
    wide: { lines: widths.reduce((a, b) => a + b, 0), files: widths.filter((n) => n > 0).length },
  };
}

function table(head: string[], rows: (string | number)[][]): string {
  return [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((row) => `| ${row.join(" | ")} |`)].join("\n");
}

export function report(root: string, f: Figures): string {
  const long = f.functions.filter((fn) => fn.lines > LONG_FUNCTION).sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));
  const longest = [...f.functions].sort((a, b) => b.lines - a.lines)[0];
  const whole = f.functions.filter((fn) => fn.wholeDeps);
  const wholeFiles = [...new Set(whole.map((fn) => fn.file))].sort();
  const where = (fn: Fn) => `\`${fn.file}:${fn.line}\``;
  return [
    `# The house's figures: ${root}`,
    "",
    "## Import graph of src/",
    "",
    table(
      ["Figure", "Count"],
      [
        [".ts files", f.files],
        ["floors", f.floors],
        ["rooms (top-level folders and files)", f.rooms],
        ["rooms without a floor", f.unplaced.length ? `${f.unplaced.length} (${f.unplaced.join(", ")})` : 0],
        ["imports between files", f.imports],
        ["arrows (distinct room → room imports)", f.arrows],
        ["circles of rooms", f.roomCircles.length],
        ["circles of files", f.fileCircles.length],
        ["arrows up (or across) a floor", f.upwardArrows],
        ["imports up (or across) a floor", f.upward.length],
      ],
    ),
    "",
    "## Functions",
    "",
    table(
      ["Figure", "Value"],
      [
        ["functions", f.functions.length],
        ["longest", longest ? `\`${longest.name}\` ${where(longest)}, ${longest.lines} lines` : "none"],
        [`over ${LONG_FUNCTION} lines`, long.length],
      ],
    ),
    "",
    ...(long.length
      ? [
          `### Over ${LONG_FUNCTION} lines`,
          "",
          table(
            ["Lines", "Function", "Where"],
            long.map((fn) => [fn.lines, `\`${fn.name}\``, where(fn)]),
          ),
          "",
        ]
      : []),
    "## The whole `Deps`",
    "",
    table(
      ["Figure", "Count"],
      [
        ["functions with a parameter of type `Deps` (not `Pick<Deps, …>`)", whole.length],
        ["files holding them", wholeFiles.length],
        ["parameters, properties and type aliases of type `Deps` (`bun scripts/deps-census.ts`)", f.wholeDeps],
      ],
    ),
    "",
    ...(wholeFiles.length
      ? [
          table(
            ["File", "Functions"],
            wholeFiles.map((file) => [
              `\`${file}\``,
              whole
                .filter((fn) => fn.file === file)
                .map((fn) => `\`${fn.name}\``)
                .join(", "),
            ]),
          ),
          "",
        ]
      : []),
    "## Lines",
    "",
    table(
      ["Figure", "Count"],
      [
        [`lines over ${WIDE_LINE} characters`, f.wide.lines],
        ["files holding them", f.wide.files],
      ],
    ),
    "",
  ].join("\n");
}

if (import.meta.main) {
  const root = resolve(process.argv[2] ?? join(import.meta.dir, ".."));
  process.stdout.write(report(relative(process.cwd(), root) || ".", await measure(root)));
}
