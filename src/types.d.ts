// Bun imports `.sql` files `with { type: "text" }` as strings (src/db/migrations/index.ts).
declare module "*.sql" {
  const text: string;
  export default text;
}
// Bun imports binary assets `with { type: "file" }` as a path (embedded in the compiled binary).
declare module "*.wasm" {
  const path: string;
  export default path;
}
declare module "*.data" {
  const path: string;
  export default path;
}
// The API reference viewer's files (src/openapi.ts), embedded the same way.
declare module "*/swagger-ui-bundle.js" {
  const path: string;
  export default path;
}
declare module "*.css" {
  const path: string;
  export default path;
}
// The Snowball English (Porter2) stemmer ships without types.
declare module "wink-porter2-stemmer" {
  const stem: (word: string) => string;
  export default stem;
}
// d3-dsv (RFC 4180 CSV) ships without types; the one function used (src/agents/question-set.ts).
declare module "d3-dsv" {
  export function csvParseRows(text: string): string[][];
}

declare module "snowball-stemmers" {
  /** Snowball stemmers in JavaScript (ISC): `newStemmer("spanish").stem("contraseñas")`. */
  const snowball: { algorithms(): string[]; newStemmer(name: string): { stem(word: string): string } };
  export default snowball;
}
