// Confidence and escalation (the formula is in docs/decisions.md).
import { describe, expect, test } from "bun:test";
import { CONFIDENCE, confidenceOf, escalationFor, evidenceOf, frustrationIn, heldOf } from "../../../src/agents/pipeline/confidence.ts";

const base = { question: "How do I reset my password?", coverage: 1, toolCalls: 0, toolFailures: 0, frustrated: false, answered: true };

describe("confidence = clamp(K + 0.1·T − 0.3·F − 0.4·U)", () => {
  test("strong evidence, no tools", () => expect(confidenceOf({ ...base, coverage: 0.9 })).toBe(0.9));
  test("the evidence is K", () => expect(confidenceOf({ ...base, coverage: 0.55 })).toBe(0.55));
  test("successful tools add, failed tools subtract", () => {
    expect(confidenceOf({ ...base, coverage: 0.9, toolCalls: 2 })).toBe(1);
    expect(confidenceOf({ ...base, coverage: 0.9, toolCalls: 2, toolFailures: 1 })).toBe(0.8);
  });
  test("frustration subtracts", () => expect(confidenceOf({ ...base, coverage: 0.9, frustrated: true })).toBe(0.6));
  test("a provider that said it found no answer (as data, never read from its words) is low whatever the evidence", () => {
    expect(confidenceOf({ ...base, coverage: 0.3, answered: false })).toBe(0);
    expect(confidenceOf({ ...base, coverage: 0.8, answered: false })).toBe(0.4);
  });
  test("a message without content words, nothing looked up: neutral", () => {
    expect(confidenceOf({ ...base, question: "hello!", coverage: 0 })).toBe(0.5);
  });
  test("the threshold is 0.5", () => expect(CONFIDENCE.offerBelow).toBe(0.5));
});

describe("evidence", () => {
  test("a page that clearly leads is likely right; a tie is not, however well it covers the question", () => {
    expect(evidenceOf({ first: 10, second: 0, coverage: 1, unknown: 0 })).toBeGreaterThan(0.9);
    expect(evidenceOf({ first: 10, second: 9.9, coverage: 1, unknown: 0 })).toBeLessThan(0.5);
    expect(evidenceOf({ first: 10, second: 7, coverage: 1, unknown: 0 })).toBeGreaterThan(evidenceOf({ first: 10, second: 7, coverage: 0.2, unknown: 0 }));
  });
  test("a page far ahead of the others is no answer when it holds little of the question", () => {
    // One matching rare word out of several: the page leads because nothing else matches at all.
    expect(evidenceOf({ first: 10, second: 0, coverage: 0.2, unknown: 0 })).toBeLessThan(0.5);
    expect(heldOf({ coverage: 0.2, unknown: 0 })).toBeLessThan(0.5);
    expect(heldOf({ coverage: 0.9, unknown: 0 })).toBeGreaterThan(0.95);
  });
  test("each word no page uses lowers the chance an answer is there, up to unknownMax of them", () => {
    const held = [0, 1, 2, 3, 4].map((unknown) => heldOf({ coverage: 0.6, unknown }));
    for (let i = 1; i < CONFIDENCE.unknownMax + 1; i++) expect(held[i]!).toBeLessThan(held[i - 1]!);
    expect(held[4]).toBe(held[3]!);
    expect(evidenceOf({ first: 10, second: 0, coverage: 0.6, unknown: 2 })).toBeLessThan(0.5);
  });
  test("evidence is the chance an answer is held times the chance it is this page", () => {
    const r = { first: 10, second: 4, coverage: 0.7, unknown: 1 };
    const page = 1 / (1 + Math.exp(-(CONFIDENCE.intercept + CONFIDENCE.margin * 0.6 + CONFIDENCE.coverage * 0.7)));
    expect(evidenceOf(r)).toBeCloseTo(page * heldOf(r), 3);
  });
});

test("frustration signals in behaviour data and in the message", () => {
  expect(frustrationIn("page_view /billing; rage_click #pay x5", "hi")).toBe(true);
  expect(frustrationIn("clicked 7 times on Save", "hi")).toBe(true);
  expect(frustrationIn("page_view /docs; scroll 80%", "How do I export?")).toBe(false);
  expect(frustrationIn(undefined, "This is useless, still not working")).toBe(true);
  expect(frustrationIn(undefined, "WHY DOES THIS NOT WORK AT ALL")).toBe(true);
  expect(frustrationIn(undefined, "Where is the API key?")).toBe(false);
  // Only letters with a case can be capitals: a question in a script without case naming an acronym is not shouting.
  expect(frustrationIn(undefined, "导致人们想要将SR99提升到州际标准的是哪些因素？")).toBe(false);
  expect(frustrationIn(undefined, "ข้อแตกต่าง 2 ประการของเทคโนโลยี X.25 และ ARPNET CITA คืออะไร")).toBe(false);
  expect(frustrationIn(undefined, "AAA के अनुसार, गैसोलीन से रहित गैस स्टेशनों का प्रतिशत कितना था?")).toBe(false);
  expect(frustrationIn(undefined, "ПОЧЕМУ ЭТО НЕ РАБОТАЕТ СОВСЕМ")).toBe(true);
});

test("frustration in the catalogue's languages, as whole words or CJK phrases", () => {
  expect(frustrationIn(undefined, "Esto es inútil, sigue sin funcionar")).toBe(true);
  expect(frustrationIn(undefined, "Das ist nutzlos")).toBe(true);
  expect(frustrationIn(undefined, "J’en ai marre, rien ne marche")).toBe(true);
  expect(frustrationIn(undefined, "Que absurdo, nada funciona")).toBe(true);
  expect(frustrationIn(undefined, "Sono stufo")).toBe(true);
  expect(frustrationIn(undefined, "Dit is waardeloos")).toBe(true);
  expect(frustrationIn(undefined, "这个太差了，浪费时间")).toBe(true);
  expect(frustrationIn(undefined, "全然役に立たない")).toBe(true);
  expect(frustrationIn(undefined, "هذا غير مفيد")).toBe(true);
  // Whole words only: "nul" is French for useless, "nula" (Spanish, none) is not a complaint.
  expect(frustrationIn(undefined, "¿Cómo restablezco mi contraseña? La factura es nula")).toBe(false);
  expect(frustrationIn(undefined, "Wie setze ich mein Passwort zurück?")).toBe(false);
  expect(frustrationIn(undefined, "パスワードをリセットするには？")).toBe(false);
});

describe("escalation", () => {
  test("at the threshold nothing happens; just below, a person is offered", () => {
    expect(escalationFor(0.5, false, false)).toBe("none");
    expect(escalationFor(0.49, false, false)).toBe("offer");
  });
  test("frustration alone offers a person", () => expect(escalationFor(0.9, true, false)).toBe("offer"));
  test("low twice in a row, or low and frustrated, opens a ticket", () => {
    expect(escalationFor(0.2, false, true)).toBe("ticket");
    expect(escalationFor(0.2, true, false)).toBe("ticket");
    expect(escalationFor(0.9, false, true)).toBe("none");
  });
});
