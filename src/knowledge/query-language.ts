// The language a question is read in (docs/decisions.md "Text analysis per language"): only an org
// whose pages are in more than one language needs to know — a question in a monolingual help
// centre is read with the analyzer of its pages' language whatever it is written in (its words
// cannot match them otherwise). Then it is the customer's language, in the order of
// src/kit/language.ts `customerLanguage`: the message's own when detection can tell — the language
// of the pages the detector scores highest (`detectAmong`) — else the conversation's, else the
// widget's locale, else the detector's best guess among the pages' languages, else the org's
// default (read only when it is needed).
import type { Deps } from "../deps.ts";
import { customerLanguage, detectAmong } from "../kit/language.ts";
import { orgDefaultLanguage } from "../tenancy/orgs.ts";
import type { LexicalIndex } from "./lexical.ts";

/** What the customer's side says of their language, besides the message. */
export interface LanguageHints {
  conversation?: string | null;
  widget?: string | null;
}

/** The language to read `text` in against `index`; undefined when the index's pages are all in one language. */
export async function queryLanguage(
  deps: Pick<Deps, "db">,
  orgId: string,
  index: LexicalIndex,
  text: string,
  hints: LanguageHints = {},
): Promise<string | undefined> {
  if (index.languages.size < 2) return undefined;
  const detected = await detectAmong(text, index.languages.list());
  if (detected?.reliable) return detected.language;
  if (hints.conversation || hints.widget) return customerLanguage("", hints);
  if (detected) return detected.language;
  return customerLanguage("", { org: await orgDefaultLanguage(deps.db, orgId) });
}
