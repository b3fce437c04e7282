// Variables in a step: which names exist, fallbacks, values that count as missing, and escaping —
// a value can neither inject HTML nor be read as markdown in the HTML part; the text part gets it
// verbatim; a subject stays one line.
import { describe, expect, test } from "bun:test";
import { renderStep, type TemplateCustomer, templateProblems, UNSUBSCRIBE_MARK, variableValue, withUnsubscribeUrl } from "../../src/campaigns/templates.ts";

const customer: TemplateCustomer = {
  name: "Ada  Lovelace",
  email: "ada@example.com",
  externalId: "u-1",
  traits: { plan: "pro", seats: 3, trial: false, empty: "", nested: { tier: "gold" }, list: [1, 2], nothing: null },
  company: { name: "Analytical Engines", traits: { size: 12 } },
};

describe("templateProblems", () => {
  test("known variables and fallbacks pass; unknown names and stray braces are named", () => {
    expect(
      templateProblems(
        '{{name}} {{ first_name }} {{email}} {{user_id}} {{company.name}} {{traits.plan}} {{traits.nested.tier}} {{company.traits.size}} {{name | "there"}}',
      ),
    ).toEqual([]);
    expect(templateProblems("{{nmae}}")[0]).toContain("unknown variable {{nmae}}");
    expect(templateProblems("{{traits}}")[0]).toContain("unknown variable");
    expect(templateProblems("{{traits.a.b.c.d.e}}")[0]).toContain("unknown variable");
    expect(templateProblems("Hello {{ name")[0]).toContain('"{{" does not start a valid variable');
    expect(templateProblems("{{name | there}}")[0]).toContain('"{{"');
    expect(templateProblems("no variables, single { braces }")).toEqual([]);
  });
});

describe("variableValue", () => {
  test("fields, traits and company; numbers and booleans as text; objects, lists, null and empty as missing", () => {
    expect(variableValue(customer, "first_name")).toBe("Ada");
    expect(variableValue(customer, "user_id")).toBe("u-1");
    expect(variableValue(customer, "company.name")).toBe("Analytical Engines");
    expect(variableValue(customer, "traits.seats")).toBe("3");
    expect(variableValue(customer, "traits.trial")).toBe("false");
    expect(variableValue(customer, "traits.nested.tier")).toBe("gold");
    expect(variableValue(customer, "company.traits.size")).toBe("12");
    for (const missing of ["traits.empty", "traits.nested", "traits.list", "traits.nothing", "traits.absent", "traits.plan.deeper", "traits.toString"])
      expect([missing, variableValue(customer, missing)]).toEqual([missing, undefined]);
    expect(variableValue({ ...customer, company: null }, "company.name")).toBeUndefined();
  });
});

describe("renderStep", () => {
  test("fallbacks fill missing values; an absent value without fallback is empty", () => {
    const mail = renderStep({ subject: 'Hi {{traits.absent | "there"}}{{traits.absent}}!', body: "x" }, customer, "C");
    expect(mail.subject).toBe("Hi there!");
  });

  test("values are escaped in HTML and inert as markdown; verbatim in text; subjects stay one line", () => {
    const hostile: TemplateCustomer = { ...customer, name: '<img src=x onerror=alert(1)> **bold** [link](https://evil.example) "q"\r\nBcc: x@evil.example' };
    const mail = renderStep(
      { subject: "Hello {{name}}", body: "Dear {{name}}, see [your account](https://app.example/{{user_id}})." },
      hostile,
      "Onboarding <script>",
    );
    expect(mail.subject).not.toMatch(/[\r\n]/);
    expect(mail.html).not.toContain("<img");
    expect(mail.html).toContain("&#60;img src=x onerror=alert(1)&#62; **bold** [link](https://evil.example) &#34;q&#34;");
    expect(mail.html).not.toContain("<strong>bold");
    expect(mail.html).not.toContain('href="https://evil.example"');
    expect(mail.html).toContain('<a href="https://app.example/u-1">your account</a>');
    expect(mail.html).toContain("Onboarding &#60;script&#62;");
    expect(mail.text).toContain('Dear <img src=x onerror=alert(1)> **bold** [link](https://evil.example) "q"');
  });

  test("markdown of the org's body is rendered; the unsubscribe link goes in both parts, escaped in HTML", () => {
    const mail = renderStep({ subject: "s", body: "# Title\n\n- one\n- two" }, customer, "C");
    expect(mail.html).toContain("<h1>Title</h1>");
    expect(mail.html).toContain("<li>one</li>");
    expect(mail.text).toContain(`Unsubscribe: ${UNSUBSCRIBE_MARK}`);
    const sent = withUnsubscribeUrl(mail, "https://x.example/u/a&b");
    expect(sent.text).toContain("Unsubscribe: https://x.example/u/a&b");
    expect(sent.html).toContain('href="https://x.example/u/a&#38;b"');
    expect(sent.html).not.toContain(UNSUBSCRIBE_MARK);
  });
});
