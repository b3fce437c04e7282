// The catalogue (src/i18n/, README "Languages"): every language holds exactly the English keys,
// each message parses as ICU message format and uses the English sentence's placeholders, and
// formats in its language; and no customer-facing sentence is written outside it.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CATALOGUES, MESSAGE_KEYS, placeholders, t } from "../../src/i18n/catalogue.ts";
import { CATALOGUE_LANGUAGES } from "../../src/kit/language.ts";
import { CUSTOMER_MODULES, customerLiterals } from "./customer-literals.ts";

const ROOT = join(import.meta.dir, "../..");

/** What is wrong with one language's catalogue against the English one, as lines. */
export function catalogueProblems(language: string, messages: Record<string, string>): string[] {
  const problems: string[] = [];
  const en = CATALOGUES.en!;
  for (const key of MESSAGE_KEYS) if (!Object.hasOwn(messages, key)) problems.push(`${language}: misses ${key}`);
  for (const key of Object.keys(messages)) if (!Object.hasOwn(en, key)) problems.push(`${language}: has ${key}, which English does not`);
  for (const key of MESSAGE_KEYS) {
    const message = messages[key];
    if (message === undefined) continue;
    try {
      const used = placeholders(message).join(",");
      const wanted = placeholders(en[key]).join(",");
      if (used !== wanted) problems.push(`${language}: ${key} uses {${used}}, English {${wanted}}`);
    } catch (error) {
      problems.push(`${language}: ${key} does not parse: ${(error as Error).message}`);
    }
  }
  return problems;
}

test("every catalogue language has a catalogue, and no other", () => {
  expect(Object.keys(CATALOGUES).sort()).toEqual([...CATALOGUE_LANGUAGES].sort());
});

test("every language holds every key, no other, each parsing with the English placeholders", () => {
  const problems = Object.entries(CATALOGUES).flatMap(([language, messages]) => catalogueProblems(language, messages));
  expect(problems).toEqual([]);
});

test("the check fails on a missing key, an extra key, a message that does not parse and other placeholders", () => {
  const es = { ...CATALOGUES.es! } as Record<string, string>;
  delete es["widget.send"];
  es["widget.nonsense"] = "Hola";
  es["widget.title"] = "Chatea {con";
  es["agent.ticket_opened"] = "He abierto el ticket n.º {numero}.";
  // An ASCII apostrophe before a brace quotes it: the placeholder is lost.
  es["widget.typing"] = "l'{name} escribe";
  expect(catalogueProblems("es", es).sort()).toEqual(
    [
      "es: misses widget.send",
      "es: has widget.nonsense, which English does not",
      "es: widget.title does not parse: EXPECT_ARGUMENT_CLOSING_BRACE",
      "es: agent.ticket_opened uses {numero}, English {number}",
      "es: widget.typing uses {}, English {name}",
    ].sort(),
  );
});

test("every message formats in its language with plurals through Intl", () => {
  for (const language of Object.keys(CATALOGUES)) {
    for (const key of MESSAGE_KEYS) {
      const params = Object.fromEntries(placeholders(CATALOGUES.en![key]).map((p) => [p, p === "until" ? new Date(0) : p === "status" ? "resolved" : 2]));
      expect(t(language, key, params)).not.toContain("{");
    }
  }
  expect(t("en", "widget.open_chat_unread", { count: 1 })).toBe("Open chat, 1 unread message");
  expect(t("en", "widget.open_chat_unread", { count: 3 })).toBe("Open chat, 3 unread messages");
  expect(t("ar", "widget.wait", { seconds: 2 })).toContain("ثانيتين");
  expect(t("de", "mail.optin_ignore", { until: new Date(Date.UTC(2026, 11, 24, 18, 30)) })).toContain("24. Dezember 2026");
  // Unknown or absent languages are English.
  expect(t("sw", "widget.send")).toBe("Send");
  expect(t(null, "widget.send")).toBe("Send");
  expect(t("pt-BR", "widget.send")).toBe("Enviar");
});

test("no customer-facing sentence is written outside the catalogue (test/house/customer-literals.ts)", () => {
  const files = CUSTOMER_MODULES.flatMap((m) =>
    m.endsWith("/")
      ? readdirSync(join(ROOT, m))
          .filter((f) => f.endsWith(".ts"))
          .map((f) => m + f)
      : [m],
  );
  expect(files.length).toBeGreaterThan(20);
  expect(files.flatMap((f) => customerLiterals(f, readFileSync(join(ROOT, f), "utf8")))).toEqual([]);
});

test("the literal check is red on a planted sentence, and leaves keys, logs, CSS and marked lines alone", () => {
  const planted = [
    'const NOTE = "Your message was added to the ticket.";',
    "emit.text(`I've opened ticket #${n} for you.`);",
    'h("button", {}, "Talk to a person");',
    'const OK = t("widget.send");',
    'deps.log.warn("could not send the rating email", { id });',
    'const css = "font: 15px/1.45 system-ui";',
    'throw new TypeError("identify needs a user_id"); // not for customers: the developer',
    "// A comment may say anything in words.",
    'deps.log.warn("could not send the rating email " +',
    '  "to the customer of the ticket", { id });',
    'const CLOSED = "Your ticket was closed " +',
    '  "because nobody answered it.";',
  ].join("\n");
  expect(customerLiterals("src/widget/client/planted.ts", planted)).toEqual([
    "src/widget/client/planted.ts:1: Your message was added to the ticket.",
    "src/widget/client/planted.ts:2: I've opened ticket #  for you.",
    "src/widget/client/planted.ts:3: Talk to a person",
    "src/widget/client/planted.ts:11: Your ticket was closed",
    "src/widget/client/planted.ts:12: because nobody answered it.",
  ]);
});
