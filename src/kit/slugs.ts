// Slugs name an integration inside tool names (`custom.<slug>`, `mcp.<slug>.<tool>`), so they stay
// short, lower-case and free of the dot that separates the parts (docs/interface.md 2.2).
export const SLUG = /^[a-z][a-z0-9_]{0,31}$/;

/** The validation message for a value that is not a slug. */
export const SLUG_RULE = `must match ${SLUG.source}`;

export function isSlug(value: string): boolean {
  return SLUG.test(value);
}
