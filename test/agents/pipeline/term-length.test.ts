// Which unknown words count against coverage, by script: a short everyday word is left out, a word
// of Han, katakana or Hangul characters is as long as the letters it stands for.
import { describe, expect, test } from "bun:test";
import { coverageTerms, termLength } from "../../../src/agents/pipeline/knowledge.ts";

describe("termLength", () => {
  test("letters count one each; Han, katakana and Hangul three; hiragana one", () => {
    expect(termLength("take")).toBe(4);
    expect(termLength("首都")).toBe(6);
    expect(termLength("モンゴル")).toBe(12);
    expect(termLength("수도")).toBe(6);
    expect(termLength("どう")).toBe(2);
  });
});

describe("coverageTerms", () => {
  const index = new Set(["パスワード", "リセット"]);
  test("a Japanese question about another subject keeps its subject words in the coverage", () => {
    const terms = new Map([
      ["モンゴル", 1],
      ["首都", 1],
    ]);
    expect([...coverageTerms(index, terms).keys()]).toEqual(["モンゴル", "首都"]);
  });
  test("short hiragana words no page uses are left out, the page's words kept", () => {
    const terms = new Map([
      ["パスワード", 1],
      ["リセット", 1],
      ["どう", 1],
      ["いい", 1],
    ]);
    expect([...coverageTerms(index, terms).keys()]).toEqual(["パスワード", "リセット"]);
  });
});
