// The slug the dashboard proposes for a connector's name: lower-case ASCII letters, digits and _,
// starting with a letter, at most 32 characters. The server (../connectors.ts slugFromName) and the
// browser use this one function.
export function slugOf(name: string): string {
  return name
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^[^a-z]+|_+$/g, "")
    .slice(0, 32)
    .replace(/_+$/, "");
}
