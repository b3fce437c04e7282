// Text analysis per language (src/kit/analyzer.ts): words by Unicode segmentation, Snowball stems
// and stop words per language, no English stemming of other languages.
import { describe, expect, test } from "bun:test";
import { analyzerFor, hasStemmer, segmentWords } from "../../src/kit/analyzer.ts";
import { stem, terms, words } from "../../src/kit/words.ts";

describe("words by Unicode segmentation", () => {
  test("Chinese is split into words, not kept as one run", () => {
    const got = analyzerFor("zh").words("我如何重置我的密码？");
    expect(got.length).toBeGreaterThan(2);
    expect(got).toContain("密码");
    expect(got.join("")).toBe("我如何重置我的密码");
  });

  test("Japanese is split into words", () => {
    const got = analyzerFor("ja").words("パスワードをリセットするにはどうすればいいですか");
    expect(got).toContain("パスワード");
    expect(got).toContain("リセット");
  });

  test("Thai is split into words", () => {
    const got = analyzerFor("th").words("ฉันจะรีเซ็ตรหัสผ่านได้อย่างไร");
    expect(got).toContain("รีเซ็ต");
    expect(got.length).toBeGreaterThan(3);
  });

  test("a Hindi word keeps its vowel signs (combining marks stay inside words)", () => {
    expect(analyzerFor("hi").words("हिन्दी में पासवर्ड बदलें")).toEqual(["हिन्दी", "में", "पासवर्ड", "बदलें"]);
    // The old split on letters and digits alone cut them apart.
    expect("हिन्दी".match(/[\p{L}\p{N}]+/gu)!.length).toBeGreaterThan(1);
  });

  test("segmentation alone (the benchmark's BM25) keeps every word, lower-cased", () => {
    expect(segmentWords("Der Hund, 我的密码")).toEqual(["der", "hund", "我的", "密码"]);
  });

  test("French elisions are split at the apostrophe; English contractions are joined as before", () => {
    expect(analyzerFor("fr").words("l’eau d'accord")).toEqual(["l", "eau", "d", "accord"]);
    expect(words("don't won’t")).toEqual(["dont", "wont"]);
  });
});

describe("stems per language", () => {
  test("Snowball stems for Spanish, German, French, Russian, Portuguese, Italian, Dutch, Turkish", () => {
    expect(analyzerFor("es").stem("contraseñas")).toBe(analyzerFor("es").stem("contraseña"));
    expect(analyzerFor("es").stem("restablecer")).toBe("restablec");
    expect(analyzerFor("de").stem("passwörter")).toBe(analyzerFor("de").stem("passwort"));
    expect(analyzerFor("fr").stem("réinitialiser")).toBe("réinitialis");
    expect(analyzerFor("ru").stem("пароли")).toBe(analyzerFor("ru").stem("пароль"));
    expect(analyzerFor("pt").stem("senhas")).toBe("senh");
    expect(analyzerFor("it").stem("password")).toBe("password");
    expect(analyzerFor("nl").stem("wachtwoorden")).toBe(analyzerFor("nl").stem("wachtwoord"));
    expect(analyzerFor("tr").stem("şifreler")).toBe("şifre");
  });

  test("English keeps its Porter2 stems", () => {
    expect(stem("consolidating")).toBe("consolid");
    expect(analyzerFor("en").stem("received")).toBe("receiv");
    expect(analyzerFor("en-GB").stem("received")).toBe("receiv");
  });

  test("no English stemming of other languages: Spanish plurals are not cut as English ones", () => {
    // Porter2 would make "tarjetas" → "tarjeta" and "años" → "año" only by accident; it turns "posees" into "pose".
    expect(analyzerFor("es").stem("posees")).not.toBe(stem("posees"));
    // A language without a stemmer here keeps its words as written.
    expect(hasStemmer("zh")).toBe(false);
    expect(analyzerFor("zh").stem("密码")).toBe("密码");
    // Greek is compared without its accents, as its stop list is written.
    expect(analyzerFor("el").words("Κωδικοί")).toEqual(["κωδικοι"]);
  });

  test("an unknown or invalid tag reads as English", () => {
    expect(analyzerFor(null).language).toBe("en");
    expect(analyzerFor("not a tag!").language).toBe("en");
    expect(analyzerFor("pt-BR").language).toBe("pt");
  });
});

describe("stop words per language", () => {
  test("Spanish and German questions keep their subject only", () => {
    expect(analyzerFor("es").terms("¿Cómo restablezco mi contraseña?")).toEqual(["restablezc", "contraseñ"]);
    expect(analyzerFor("de").terms("Wie setze ich mein Passwort zurück?")).toEqual(["setz", "passwort"]);
  });

  test("Hindi, Russian and Japanese drop their function words", () => {
    expect(analyzerFor("hi").isContent("में")).toBe(false);
    expect(analyzerFor("hi").isContent("पासवर्ड")).toBe(true);
    expect(analyzerFor("ru").isContent("как")).toBe(false);
    expect(analyzerFor("ja").isContent("を")).toBe(false);
  });

  test("Chinese drops particles and function words of two characters, keeps single characters that carry a subject", () => {
    const zh = analyzerFor("zh");
    for (const word of ["的", "了", "吗", "呢", "什么", "哪里"]) expect(zh.isContent(word)).toBe(false);
    for (const word of ["上", "下", "水", "改革", "牙齿"]) expect(zh.isContent(word)).toBe(true);
    expect(zh.terms("纤毛是用来做什么的？")).not.toContain("的");
  });

  test("a lone ideograph is a word; a lone letter of an alphabet is not", () => {
    expect(analyzerFor("zh").isContent("水")).toBe(true);
    expect(analyzerFor("es").isContent("x")).toBe(false);
    expect(analyzerFor("es").isContent("7")).toBe(true);
  });

  test("English keeps its own list (question filler included)", () => {
    expect(terms("What is the best place to learn more about refunds?")).toEqual(["refund"]);
    // Spanish stop words are not English ones: an English analyzer keeps "como".
    expect(terms("como")).toEqual(["como"]);
  });
});
