// The builtin's reply as plain text: a passage's markdown (and HTML, and PDF text broken across
// lines) read by marked and linkedom, only its words kept; and, for random markdown passages, a
// reply that carries no markdown markers, link or image syntax, HTML, or a "From" frame.
import { describe, expect, test } from "bun:test";
import { builtinAnswer, EXTRACT_MAX } from "../../../src/agents/llm/builtin.ts";
import { plainText } from "../../../src/agents/llm/plain-text.ts";

describe("plain text of a passage", () => {
  test("headings keep their words, not their marks", () => {
    expect(plainText("# Return policy\n\nReturns are free.\n\n### Exchanges ###\nAsk us.")).toBe("Return policy\n\nReturns are free.\n\nExchanges\n\nAsk us.");
    expect(plainText("Return policy\n=============\nReturns are free.")).toBe("Return policy\n\nReturns are free.");
  });

  test("lists: bullets become •, numbers stay, nested items are indented, a list keeps its introduction", () => {
    expect(plainText("To return an item:\n- pack it\n- print the label\n- drop it off")).toBe(
      "To return an item:\n• pack it\n• print the label\n• drop it off",
    );
    expect(plainText("* one\n* two\n\n+ three")).toBe("• one\n• two\n\n• three");
    expect(plainText("3. Open Settings.\n4. Choose **Export**.\n   - CSV\n   - JSON")).toBe("3. Open Settings.\n4. Choose Export.\n  • CSV\n  • JSON");
    expect(plainText("- [x] done\n- [ ] to do")).toBe("• done\n• to do");
  });

  test("links become their text, images nothing, bare URLs stay as written", () => {
    expect(plainText('See [our shipping page](https://shop.example/shipping "Shipping") or [Back to all articles](/index.html).')).toBe(
      "See our shipping page or Back to all articles.",
    );
    expect(plainText("Click ![the gear icon](/img/gear.png) Settings.\n\n![screenshot](a.png)")).toBe("Click Settings.");
    expect(plainText("Write to <support@shop.example> or visit https://shop.example/help.")).toBe(
      "Write to support@shop.example or visit https://shop.example/help.",
    );
    expect(plainText("[ref link][1] here\n\n[1]: https://x.example/")).toBe("ref link here");
    // A paragraph or item of links alone is navigation, not the page's text.
    expect(plainText("Returns are free.\n\n[Back to all articles](/index.html)\n\nRelated:\n- [Shipping](/s) · [Refunds](/r)\n- Ask [us](/c) anything")).toBe(
      "Returns are free.\n\nRelated:\n• Ask us anything",
    );
  });

  test("emphasis, strikethrough and code keep their text; a code block its lines; a quote its words", () => {
    expect(plainText("It is **free**, *fast*, __simple__, _kind_ and ~~slow~~ `quick`.")).toBe("It is free, fast, simple, kind and slow quick.");
    expect(plainText("Run:\n\n```sh\nnpm install\nnpm start\n```\n\n> **Note:** it takes a minute.")).toBe(
      "Run:\n\nnpm install\nnpm start\n\nNote: it takes a minute.",
    );
    expect(plainText("Escaped \\*stars\\* and 5 \\* 3 stay.")).toBe("Escaped *stars* and 5 * 3 stay.");
  });

  test("a table becomes one line per row, each cell named by its column", () => {
    expect(plainText("| Plan | Price |\n|------|-------|\n| Basic | $5 |\n| Pro | **$10** |")).toBe("Plan: Basic; Price: $5\nPlan: Pro; Price: $10");
  });

  test("HTML is read as a browser reads it: tags, scripts and styles never reach the text, entities are decoded", () => {
    expect(plainText('<div class="note"><p>Returns are <b>free</b> &amp; easy.</p><script>alert(1)</script><style>p{}</style></div>')).toBe(
      "Returns are free & easy.",
    );
    expect(plainText("Line one<br>line two &lt;b&gt; &copy; 2024 <span>kept</span><!-- gone -->")).toBe("Line one line two <b> © 2024 kept");
    expect(plainText("<table><tr><td>a</td><td>b</td></tr></table>")).toBe("a; b");
  });

  test("PDF text broken across lines is joined, and a word hyphenated at a line's end made whole", () => {
    expect(plainText("Orders placed before noon are\nshipped the same day. Delivery infor-\nmation is sent by\nemail.\n\nReturns are free.")).toBe(
      "Orders placed before noon are shipped the same day. Delivery information is sent by email.\n\nReturns are free.",
    );
    // A hyphen that belongs to the word stays.
    expect(plainText("a well-\nKnown name and e-mail")).toBe("a well- Known name and e-mail");
  });
});

describe("the builtin's reply reads as an answer", () => {
  const answer = (question: string, text: string, score = 0.9) =>
    builtinAnswer({
      messages: [{ role: "user", content: question }],
      passages: [{ docId: "d", title: "Returns", url: "https://shop.example/returns", text, score, held: 1 }],
    });

  test("it starts with the answer, not with the page's heading or a From frame, and drops the footer's link syntax", () => {
    const reply = answer(
      "Are returns free?",
      "# Return policy\n\nReturns are **free** within 30 days.\n\n## Still stuck?\n[Back to all articles](/index.html)",
    );
    expect(reply.startsWith("Returns are free within 30 days.")).toBe(true);
    expect(reply).not.toContain("](");
    expect(reply).not.toContain('From "');
  });

  test("a long PDF passage is quoted in whole sentences, joined across its line breaks, within EXTRACT_MAX", () => {
    const filler = Array.from({ length: 20 }, (_, i) => `Section ${i} describes\nsomething unrelated to\nthe question in detail.`).join(" ");
    const text = `${filler} Refunds are paid to the\noriginal card within ten\nbusiness days. ${filler}`;
    const reply = answer("When are refunds paid?", text);
    expect(reply.length).toBeLessThanOrEqual(EXTRACT_MAX);
    expect(reply.startsWith("Refunds are paid to the original card within ten business days.")).toBe(true);
    expect(reply).toMatch(/[.!?]$/);
    expect(reply).not.toContain("\n");
  });

  test("a single sentence longer than EXTRACT_MAX is cut at a word and marked", () => {
    const long = `Refunds ${"and more words ".repeat(80)}end.`;
    const reply = answer("refunds", long);
    expect(reply.length).toBeLessThanOrEqual(EXTRACT_MAX);
    expect(reply.endsWith("words…")).toBe(true);
  });

  test("property: for random markdown passages the reply holds no markdown marker, link or image syntax, HTML tag or From frame", () => {
    // A small seeded generator (mulberry32), so a failure names its seed and repeats.
    const rng = (seed: number) => () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const WORDS = ["refund", "order", "shipping", "password", "account", "invoice", "return", "label", "card", "delivery", "days", "free", "support"];
    for (let seed = 1; seed <= 300; seed++) {
      const r = rng(seed);
      const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
      const phrase = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(" ");
      const inline = () =>
        pick([
          () => phrase(3),
          () => `**${phrase(2)}**`,
          () => `*${phrase(2)}*`,
          () => `_${phrase(1)}_`,
          () => `[${phrase(2)}](https://shop.example/${pick(WORDS)})`,
          () => `[${phrase(1)}](/${pick(WORDS)}.html)`,
          () => `![${phrase(1)}](/img/${pick(WORDS)}.png)`,
          () => `\`${pick(WORDS)}\``,
          () => `<b>${phrase(1)}</b>`,
          () => `~~${phrase(1)}~~`,
        ])();
      const sentence = () => `${Array.from({ length: 1 + Math.floor(r() * 4) }, inline).join(" ")}.`;
      const block = () =>
        pick([
          () => `${"#".repeat(1 + Math.floor(r() * 6))} ${phrase(2)}`,
          () => Array.from({ length: 1 + Math.floor(r() * 5) }, sentence).join(r() < 0.5 ? " " : "\n"),
          () => Array.from({ length: 2 + Math.floor(r() * 3) }, () => `${pick(["-", "*", "+", "1."])} ${sentence()}`).join("\n"),
          () => `| ${phrase(1)} | ${phrase(1)} |\n|---|---|\n| ${inline()} | ${inline()} |`,
          () => `> ${sentence()}`,
          // Raw HTML carries HTML inside (CommonMark reads markdown inside an HTML block as text, as a browser shows it).
          () => `<div><p>${phrase(2)} <b>${phrase(1)}</b> <a href="/${pick(WORDS)}">${phrase(2)}</a>.</p><img src="/a.png" alt="x"></div>`,
          () => "```\nsome code\n```",
          () => "---",
        ])();
      const text = Array.from({ length: 2 + Math.floor(r() * 12) }, block).join("\n\n");
      const reply = answer(`${pick(WORDS)} ${pick(WORDS)}?`, text, r() < 0.5 ? 0.9 : 0.3);
      const where = `seed ${seed}: ${JSON.stringify(reply)}`;
      expect(reply.includes("]("), where).toBe(false);
      expect(/^\s*#/m.test(reply), where).toBe(false);
      expect(reply.includes("**"), where).toBe(false);
      expect(reply.includes('From "'), where).toBe(false);
      expect(/<\/?[a-z][^>]*>/i.test(reply), where).toBe(false);
      expect(/^\s*[-*+] /m.test(reply), where).toBe(false);
      expect(reply.includes("!["), where).toBe(false);
      expect(reply.includes("`"), where).toBe(false);
    }
  });
});
