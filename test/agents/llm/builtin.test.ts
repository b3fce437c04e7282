// The builtin provider: from a small knowledge base it answers with the
// right passage, as plain text that starts with the answer (the page is the reply's source); for what the base cannot answer it says it does not know
// and offers a person, without inventing anything. No network, no key.
import { describe, expect, test } from "bun:test";
import {
  builtinAnswer,
  builtinProvider,
  PLAIN_COVERAGE_THRESHOLD as COVERAGE_THRESHOLD,
  coverage,
  EXTRACT_MAX,
  NO_ANSWER,
} from "../../../src/agents/llm/builtin.ts";
import type { Passage } from "../../../src/agents/llm/types.ts";
import { DEMO_DOCS } from "../../../src/orgs/demo.ts";
import { collect, request, textOf } from "./helpers.ts";

// The demo knowledge base: every doc a passage, with strong evidence (score) and no measured
// coverage, so the builtin measures coverage itself.
const base: Passage[] = DEMO_DOCS.map((doc, i) => ({
  docId: `doc-${i}`,
  title: doc.title,
  url: i === 0 ? "https://help.example.com/reset" : null,
  text: doc.body,
  score: 0.9,
}));
const ask = (question: string, passages = base) => builtinAnswer({ messages: [{ role: "user", content: question }], passages });

describe("builtin provider", () => {
  const answered: [string, string, string][] = [
    ["How do I reset my password?", "Resetting your password", "Forgot password?"],
    ["I forgot my password, what now?", "Resetting your password", "reset link"],
    ["Which payment methods do you accept?", "Billing, invoices and payment methods", "Mastercard"],
    ["Where can I download my invoices?", "Billing, invoices and payment methods", "Settings > Billing > Invoices"],
    ["How long is the free trial?", "Getting started", "14 days"],
    ["How do I cancel my plan?", "Cancelling or changing your plan", "end of the current billing period"],
    ["What are your support hours?", "Contacting a person", "Monday to Friday"],
  ];
  for (const [question, title, quoted] of answered)
    test(`answers "${question}" from "${title}", starting with the answer`, () => {
      const answer = ask(question);
      const body = DEMO_DOCS.find((d) => d.title === title)!.body;
      expect(answer).toContain(quoted);
      // The reply opens with the passage's own first words, not with a frame naming the page.
      expect(body.startsWith(answer.slice(0, 20))).toBe(true);
      expect(answer).not.toContain(`"${title}"`);
      expect(answer).not.toBe(NO_ANSWER);
    });

  test("names no page in its text: no From, Source or See also line repeats what the reply's sources list", () => {
    const answer = ask("How do I reset my password?");
    // The passage quoted as it reads (it has no markdown markers), and nothing after it.
    expect(answer).toBe(DEMO_DOCS[0]!.body);
    expect(answer).not.toContain("https://help.example.com/reset");
    expect(answer).not.toMatch(/^(From|Source|See also)\b/m);
  });

  test("weak evidence is offered as a lead that names the article, then the quote", () => {
    const weak = base.map((p) => ({ ...p, score: 0.3 }));
    const answer = ask("How do I reset my password?", weak);
    expect(answer.startsWith('This article may help: "Resetting your password".\n\n')).toBe(true);
    expect(answer).toContain("Forgot password?");
  });

  for (const question of ["What is the capital of France?", "Can I pay with bitcoin?", "Do you integrate with Salesforce?", "Is the service HIPAA compliant?"])
    test(`says plainly it does not know, and offers a person: "${question}"`, () => {
      const answer = ask(question);
      expect(answer).toBe(NO_ANSWER);
      expect(answer).toContain("couldn't find");
      expect(answer).toContain("connect you with a person");
    });

  test("with no passages at all it does not know", () => {
    expect(ask("How do I reset my password?", [])).toBe(NO_ANSWER);
  });

  test("never invents: every sentence of an answer is a passage's or the fixed frame", () => {
    const answer = ask("Which payment methods do you accept?");
    const body = DEMO_DOCS[1]!.body;
    const words = (t: string) => t.replace(/\s+/g, " ");
    for (const line of answer.split("\n").filter((l) => l !== "")) expect(words(body)).toContain(line.replace(/^(•|\d+\.) /, ""));
  });

  test("a long passage is quoted by its most relevant stretch, a list kept with its heading, within the cap", () => {
    const filler = Array.from({ length: 30 }, (_, i) => `Paragraph ${i} talks about something unrelated to the question at hand in some detail.`).join("\n");
    const text = `${filler}\nTo export your data:\n1. Open Settings > Data.\n2. Choose Export.\n3. Download the archive.\n${filler}`;
    const answer = ask("How do I export my data?", [{ docId: "d", title: "Data export", url: null, text, score: 1 }]);
    expect(answer).toContain("To export your data:\n1. Open Settings > Data.\n2. Choose Export.\n3. Download the archive.");
    expect(answer.length).toBeLessThanOrEqual(EXTRACT_MAX);
    // Whole lines: it starts at the list's introduction and ends at a line's end.
    expect(answer.startsWith("To export your data:")).toBe(true);
    expect(answer).toMatch(/[.!?:]$/);
  });

  test(`a passage of EXTRACT_MAX characters as plain text is quoted whole; one more, and from its most relevant sentence`, () => {
    const passage = (text: string) => [{ docId: "d", title: "Data export", url: null, text, score: 1 }];
    const question = "How do I export my data?";
    const relevant = "To export your data, open Settings and choose Export.";
    const at = (n: number) => {
      const filler = `Our company was founded long ago in a small town. `;
      const head = `${filler.repeat(6)}${relevant} `;
      return head + "x".repeat(n - head.length - 1) + ".";
    };
    const whole = at(EXTRACT_MAX);
    expect(whole.length).toBe(EXTRACT_MAX);
    expect(ask(question, passage(whole))).toBe(whole);
    const over = at(EXTRACT_MAX + 1);
    const answer = ask(question, passage(over));
    expect(answer.startsWith(relevant)).toBe(true);
    expect(answer.length).toBeLessThanOrEqual(EXTRACT_MAX);
  });

  test("coverage is the share of the question's terms found; the threshold decides", () => {
    expect(coverage("reset password", "Resetting your password")).toBe(1);
    expect(coverage("pay bitcoin", "You can pay by card")).toBe(0.5);
    expect(0.5).toBeLessThan(COVERAGE_THRESHOLD);
    expect(coverage("the of and", "anything")).toBe(0);
  });

  test("greetings and thanks get a short reply, not an apology", () => {
    expect(ask("Hello!")).toContain("Ask me a question");
    expect(ask("thanks a lot")).toContain("You're welcome");
  });

  test("it streams the answer in several text events and ends with done; 0x1E never appears", async () => {
    const passages = [{ docId: "d", title: "Reset\u001e", url: null, text: "To reset your password\u001e open Settings.", score: 1 }];
    const { events, error } = await collect(builtinProvider(), request({ passages }));
    expect(error).toBeUndefined();
    expect(events.filter((e) => e.type === "text").length).toBeGreaterThan(1);
    expect(events.at(-1)).toMatchObject({ type: "done", stop: "end" });
    expect(textOf(events)).not.toContain("\u001e");
    expect(textOf(events)).toBe(builtinAnswer({ messages: request().messages, passages }));
  });

  test("it answers the customer's last message, not an earlier one", () => {
    const answer = builtinAnswer({
      messages: [
        { role: "user", content: "How do I reset my password?" },
        { role: "assistant", content: "..." },
        { role: "user", content: "What is the capital of France?" },
      ],
      passages: base,
    });
    expect(answer).toBe(NO_ANSWER);
  });
});
