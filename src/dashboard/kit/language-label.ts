// How the dashboard names a language: its English name from Intl (CLDR) and its code, "Spanish (es)";
// "Unknown" for a document or conversation whose language is not known.
const names = new Intl.DisplayNames(["en"], { type: "language", fallback: "code" });

/** `code` null or "unknown": not known. */
export function languageLabel(code: string | null | undefined): string {
  if (!code || code === "unknown") return "Unknown";
  try {
    const name = names.of(code);
    return name && name !== code ? `${name} (${code})` : code;
  } catch {
    return code;
  }
}
