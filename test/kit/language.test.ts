// Languages: tags normalised through Intl, detection of sentences in the catalogue's languages and
// others, short or unclear texts left to the fallbacks, and the fallback order itself.
import { describe, expect, test } from "bun:test";
import { customerLanguage, detectLanguage, firstLanguage, isRtl, normalizeLanguage } from "../../src/kit/language.ts";

describe("normalizeLanguage", () => {
  test("keeps the primary subtag of a BCP 47 tag, lower-cased", () => {
    expect(normalizeLanguage("pt-BR")).toBe("pt");
    expect(normalizeLanguage("zh-Hans-CN")).toBe("zh");
    expect(normalizeLanguage("EN_us")).toBe("en");
    expect(normalizeLanguage("ast")).toBe("ast");
  });
  test("refuses what is not a tag", () => {
    for (const bad of ["", "e", "english!", "12", "x".repeat(36), null, 42, {}, "en--US"]) expect(normalizeLanguage(bad)).toBeNull();
  });
});

describe("detectLanguage", () => {
  const sentences: [string, string][] = [
    ["¿Cómo restablezco mi contraseña?", "es"],
    ["Wie setze ich mein Passwort zurück?", "de"],
    ["How do I reset my password?", "en"],
    ["Comment réinitialiser mon mot de passe ?", "fr"],
    ["Como redefinir minha senha?", "pt"],
    ["Come reimposto la password?", "it"],
    ["Hoe reset ik mijn wachtwoord?", "nl"],
    ["パスワードをリセットするには?", "ja"],
    ["如何重置密码？", "zh"],
    ["كيف أعيد تعيين كلمة المرور؟", "ar"],
    ["रीसेट पासवर्ड कैसे करें?", "hi"],
    ["รีเซ็ตรหัสผ่านอย่างไร", "th"],
  ];
  for (const [text, language] of sentences) test(`${language}: ${text}`, async () => expect(await detectLanguage(text)).toBe(language));

  test("too few letters to tell: null, whatever the script", async () => {
    expect(await detectLanguage("ok?")).toBeNull();
    expect(await detectLanguage("123 456 !!!")).toBeNull();
    expect(await detectLanguage("")).toBeNull();
  });
  test("the letter minimum is counted in letters, at its boundary", async () => {
    const text = "Wie setze ich mein Passwort zurück?"; // 29 letters; spaces and "?" are none
    expect(await detectLanguage(text, 29)).toBe("de");
    expect(await detectLanguage(text, 30)).toBeNull();
  });
  test("a long text is read only in its first 2,000 characters", async () => {
    expect(await detectLanguage(`${"Wie setze ich mein Passwort zurück? ".repeat(60)}${"How do I reset my password? ".repeat(2000)}`)).toBe("de");
  });
});

describe("fallbacks", () => {
  test("the first tag that is one, else the fallback", () => {
    expect(firstLanguage([null, "not a tag!", "es-MX", "de"])).toBe("es");
    expect(firstLanguage([undefined, ""], "fr")).toBe("fr");
  });
  test("a message that can be told wins; else conversation, widget, org", async () => {
    expect(await customerLanguage("¿Dónde está mi pedido?", { conversation: "de", widget: "fr", org: "en" })).toBe("es");
    expect(await customerLanguage("ok", { conversation: "de", widget: "fr", org: "en" })).toBe("de");
    expect(await customerLanguage("ok", { conversation: null, widget: "fr-CA", org: "en" })).toBe("fr");
    expect(await customerLanguage("ok", { org: "nl" })).toBe("nl");
    expect(await customerLanguage("ok", {})).toBe("en");
  });
  test("right-to-left languages", () => {
    expect(isRtl("ar")).toBe(true);
    expect(isRtl("he")).toBe(true);
    expect(isRtl("es")).toBe(false);
    expect(isRtl(null)).toBe(false);
  });
});
