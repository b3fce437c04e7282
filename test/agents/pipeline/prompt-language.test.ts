// The system prompt's language instruction (src/agents/pipeline/prompt.ts): named by Intl in
// English, the code itself when Intl does not know it; remembered per code, correct across the
// remembered set being cleared when full.
import { describe, expect, test } from "bun:test";
import { languageInstruction } from "../../../src/agents/pipeline/prompt.ts";

describe("languageInstruction", () => {
  test("names the language in English with its code, the same on every call", () => {
    const first = languageInstruction("es");
    expect(first).toStartWith('Answer in Spanish (language code "es")');
    expect(languageInstruction("es")).toBe(first);
    expect(languageInstruction("ja")).toStartWith('Answer in Japanese (language code "ja")');
  });

  test("a code Intl does not know is named by itself", () => {
    expect(languageInstruction("qqx")).toStartWith('Answer in qqx (language code "qqx")');
  });

  test("past the remembered set's bound (500 codes), every code is still named right", () => {
    const codes = Array.from({ length: 520 }, (_, i) => `q${String.fromCharCode(97 + (Math.floor(i / 26) % 26))}${String.fromCharCode(97 + (i % 26))}`);
    for (const code of codes) expect(languageInstruction(code)).toContain(`(language code "${code}")`);
    expect(languageInstruction("de")).toStartWith('Answer in German (language code "de")');
    expect(languageInstruction(codes[0]!)).toContain(`(language code "${codes[0]}")`);
  });
});
