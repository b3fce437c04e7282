// Identifiers. Every id we mint is a UUID (crypto.randomUUID); a path or form value that is not
// one can name no row, so callers answer 404 (or 400) before asking the database, which would
// otherwise reject the cast with a 500.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** RFC 9562 section 4 textual form (any version), case-insensitive. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
