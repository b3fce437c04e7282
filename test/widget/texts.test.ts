// The widget's language and words (src/widget/client/texts.ts, README "Languages"): which locale it
// asks for (identify()'s, the snippet's, the browser's first language with a catalogue, else none
// — the org's default), its sentences formatted in that language with English where a text is
// missing or does not format, and speech in the widget's language.
import { expect, test } from "bun:test";
import { CATALOGUES, t as serviceT } from "../../src/i18n/catalogue.ts";
import { CATALOGUE_LANGUAGES } from "../../src/kit/language.ts";
import { forSpeech, speechLanguage } from "../../src/widget/client/speech.ts";
import { CATALOGUED, createTexts, requestedLocale } from "../../src/widget/client/texts.ts";

test("the widget knows the same catalogue languages as the service", () => {
  expect([...CATALOGUED].sort()).toEqual([...CATALOGUE_LANGUAGES].sort());
});

test("identify()'s locale, else the snippet's, else the browser's first catalogued language, else none", () => {
  expect(requestedLocale(["ja", "es"], ["de-DE"])).toBe("ja");
  expect(requestedLocale([null, "es"], ["de-DE"])).toBe("es");
  expect(requestedLocale([undefined, " "], ["sw-KE", "pt-BR", "de"])).toBe("pt-BR");
  expect(requestedLocale([], ["sw", "xx"])).toBeNull();
  expect(requestedLocale([], [])).toBeNull();
  // Bounded as the service bounds it.
  expect(requestedLocale(["a".repeat(80)], [])).toHaveLength(35);
});

test("sentences format in the widget's language, with plural rules; a missing or broken text falls back to English", () => {
  const texts = createTexts();
  expect(texts.t("widget.send")).toBe("Send");
  let writes = 0;
  texts.bind(() => writes++);
  texts.set("ar", "rtl", { ...CATALOGUES.ar, "widget.send": "{broken", "widget.stop": undefined });
  expect(writes).toBe(2);
  expect(texts.language).toBe("ar");
  expect(texts.dir).toBe("rtl");
  expect(texts.t("widget.wait", { seconds: 2 })).toContain("ثانيتين"); // Arabic's dual
  expect(texts.t("widget.send")).toBe("Send");
  expect(texts.t("widget.stop")).toBe("Stop");
  texts.set("es", "ltr", CATALOGUES.es!);
  // The same sentence the service would write (src/i18n/catalogue.ts t()), singular and plural told apart.
  for (const count of [1, 3]) expect(texts.t("widget.open_chat_unread", { count })).toBe(serviceT("es", "widget.open_chat_unread", { count }));
  expect(texts.t("widget.open_chat_unread", { count: 1 })).not.toBe(texts.t("widget.open_chat_unread", { count: 3 }).replace("3", "1"));
});

test("speech is heard and said in the widget's language; the agent's regional form of it is kept", () => {
  expect(speechLanguage("es", "en-US")).toBe("es");
  expect(speechLanguage("es", "es-MX")).toBe("es-MX");
  expect(speechLanguage("ar", undefined)).toBe("ar");
  // "#12" is said as the number alone: the words around it are the sentence's language.
  expect(forSpeech("He abierto el ticket n.º #12.")).toBe("He abierto el ticket n.º 12.");
});
