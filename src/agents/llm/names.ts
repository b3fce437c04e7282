// Provider-safe tool names (docs/interface.md B.11 and E). Our registry names tools with dots
// (`mcp.<slug>.<tool>`, `custom.<slug>`), but OpenAI-compatible servers and Anthropic accept
// function names matching [a-zA-Z0-9_-]{1,64} only. The mapping is:
//
//   * readable when it can be: a name made of dot-separated segments, each of words joined by
//     single underscores (`mcp.github.create_issue`, `search_docs`), maps every `.` to `__`
//     (`mcp__github__create_issue`). On that set the map is injective and `__` → `.` undoes it,
//     because such a name never holds `__` itself nor `_` next to a dot;
//   * hashed otherwise (a name with `__`, a leading/trailing `_` in a segment, another character,
//     or more than 64 characters once mapped): a sanitised prefix, then `___`, then 12 hex digits
//     of the SHA-256 of the original name. Readable names never contain `___`, so the two forms
//     cannot collide with each other; two hashed forms collide only if 48 bits of SHA-256 do,
//     and `ToolNameMap` refuses even that rather than guess.
//
// The pipeline builds one ToolNameMap per request from the tools it offers, and maps the model's
// answer back with `toOriginal`, which knows only those tools: a name the model invents is null.
import { createHash } from "node:crypto";
import { LlmError } from "./errors.ts";

export const PROVIDER_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const READABLE = /^[a-zA-Z0-9-]+(?:_[a-zA-Z0-9-]+)*(?:\.[a-zA-Z0-9-]+(?:_[a-zA-Z0-9-]+)*)*$/;
const HASH_DIGITS = 12;
const MAX = 64;

/** The provider-safe name of a registry tool name. Deterministic; injective (see above). */
export function toProviderName(name: string): string {
  if (READABLE.test(name)) {
    const readable = name.replaceAll(".", "__");
    if (readable.length <= MAX) return readable;
  }
  const hash = createHash("sha256").update(name, "utf8").digest("hex").slice(0, HASH_DIGITS);
  const prefix = name
    .replaceAll(".", "__")
    .replace(/[^a-zA-Z0-9_-]/g, "_")
    .replace(/_+$/, "")
    .slice(0, MAX - 3 - HASH_DIGITS)
    .replace(/_+$/, "");
  return `${prefix}___${hash}`;
}

/**
 * The registry name for a readable provider name, without a map (`mcp__a__b` → `mcp.a.b`);
 * null for a hashed name (it needs the map) or a name that is not provider-safe.
 */
export function fromReadableProviderName(safe: string): string | null {
  if (!PROVIDER_TOOL_NAME.test(safe) || safe.includes("___")) return null;
  const name = safe.replaceAll("__", ".");
  return READABLE.test(name) && toProviderName(name) === safe ? name : null;
}

/** Both directions for the tools offered in one request. */
export class ToolNameMap {
  readonly #toSafe = new Map<string, string>();
  readonly #toOriginal = new Map<string, string>();

  constructor(names: Iterable<string>) {
    for (const name of names) {
      if (this.#toSafe.has(name)) continue;
      const safe = toProviderName(name);
      const other = this.#toOriginal.get(safe);
      if (other !== undefined)
        throw new LlmError(`tool names ${JSON.stringify(other)} and ${JSON.stringify(name)} map to the same provider name`, false, undefined, "name_collision");
      this.#toSafe.set(name, safe);
      this.#toOriginal.set(safe, name);
    }
  }

  /** The provider-safe name of an offered tool (computed for any name, so it never fails). */
  toProvider(name: string): string {
    return this.#toSafe.get(name) ?? toProviderName(name);
  }

  /** The registry name of a provider name the model used; null if no offered tool has it. */
  toOriginal(safe: string): string | null {
    return this.#toOriginal.get(safe) ?? null;
  }
}
