// The dashboard kit's pieces on their own (every page uses them; the page tests go through them
// with real requests): the form route's four outcomes, the list table's empty row and hidden
// heads, the pagers' links at their edges.
import { describe, expect, test } from "bun:test";
import { AppError } from "../../src/errors.ts";
import { html } from "../../src/html/html.ts";
import { detailErrors, type Refused, submitForm } from "../../src/dashboard/kit/form-route.ts";
import { cursorPager, listTable, pageNumber, pageOf, pager } from "../../src/dashboard/kit/table.ts";
import { rejectionOf } from "../support/settle.ts";

function spec(call: () => Promise<string>, validate = (): { input: string; errors: Record<string, string> } => ({ input: "in", errors: {} })) {
  const seen: { rendered?: Refused; done?: string } = {};
  const form = {
    values: { name: "typed" },
    validate,
    call,
    done: (result: string) => {
      seen.done = result;
      return new Response(null, { status: 303 });
    },
    render: (refused: Refused) => {
      seen.rendered = refused;
      return new Response("page", { status: refused.status });
    },
    refused: (error: AppError) => (error.status === 409 ? { name: error.message } : null),
  };
  return { form, seen };
}

describe("submitForm", () => {
  test("valid input: the service is called with it and done answers", async () => {
    const { form, seen } = spec(async () => "made");
    expect((await submitForm(form)).status).toBe(303);
    expect(seen).toEqual({ done: "made" });
  });

  test("the form's own errors: the page again, 400, the typed values kept, the service not called", async () => {
    let called = false;
    const { form, seen } = spec(
      async () => ((called = true), "x"),
      () => ({ input: "", errors: { name: "Give it a name." } }),
    );
    expect((await submitForm(form)).status).toBe(400);
    expect(called).toBe(false);
    expect(seen.rendered).toEqual({ values: { name: "typed" }, errors: { name: "Give it a name." }, status: 400 });
  });

  test("a refusal the page maps: the page again with the service's status and message", async () => {
    const { form, seen } = spec(async () => {
      throw new AppError(409, "conflict", "That name is taken.");
    });
    expect((await submitForm(form)).status).toBe(409);
    expect(seen.rendered).toEqual({ values: { name: "typed" }, errors: { name: "That name is taken." }, status: 409 });
  });

  test("a refusal the page does not map, a 5xx and any other error go through to withMember", async () => {
    for (const error of [AppError.notFound("No such thing."), new AppError(503, "unavailable", "Try again."), new Error("boom")]) {
      const { form, seen } = spec(async () => {
        throw error;
      });
      expect(await rejectionOf(submitForm(form))).toBe(error);
      expect(seen).toEqual({});
    }
  });

  test("detailErrors: a field per detail path, the first message wins, worded as a sentence unless plain", () => {
    const error = AppError.badRequest("Invalid.", [
      { path: "/steps/0/subject", message: "must not be empty" },
      { path: "/steps/0/body", message: "too long" },
      { path: "/steps/1/subject", message: "second" },
    ]);
    expect(detailErrors(error, ([a, , c]) => `${a}_${c}`, "name")).toEqual({ steps_subject: "Must not be empty.", steps_body: "Too long." });
    expect(detailErrors(error, () => "x", "name", { plain: true })).toEqual({ x: "must not be empty" });
    expect(detailErrors(AppError.badRequest("Invalid."), () => "x", "name")).toEqual({ name: "Invalid." });
  });
});

describe("listTable and pagers", () => {
  const table = (rows: string[], empty: string | null) =>
    listTable({ caption: "Things", columns: ["Name", { label: "Actions", hidden: true }], rows, row: (r) => html`<tr><td>${r}</td><td></td></tr>`, empty })
      .value;

  test("rows escaped, a hidden head for a column of buttons, one empty row spanning every column", () => {
    expect(table(["<a>"], "None.")).toContain("<tr><td>&#60;a&#62;</td><td></td></tr>");
    expect(table(["a"], "None.")).not.toContain("None.");
    expect(table([], "None.")).toContain('<tr><td colspan="2">None.</td></tr>');
    expect(table([], null)).toContain("<tbody></tbody>");
    expect(table([], null)).toContain('<th scope="col"><span class="sr-only">Actions</span></th>');
    expect(table([], null)).toContain('<caption class="sr-only">Things</caption>');
  });

  test("page numbers: 1 to 100,000; anything else is page 1", () => {
    expect([pageNumber("2"), pageNumber("100000"), pageNumber("100001"), pageNumber("0"), pageNumber("1.5"), pageNumber(undefined)]).toEqual([
      2, 100_000, 1, 1, 1, 1,
    ]);
    expect(pageOf([1, 2, 3], 1, 2)).toEqual({ items: [1, 2], page: 1, hasMore: true, total: 3 });
    expect(pageOf([1, 2, 3], 2, 2)).toEqual({ items: [3], page: 2, hasMore: false, total: 3 });
  });

  test("pager keeps the other parameters; none on a single page", () => {
    expect(pager("/x", { q: "a b" }, 1, false).value).toBe("");
    const two = pager("/x", { q: "a b", page: "2" }, 2, true).value;
    expect(two).toContain('href="/x?q=a+b" rel="prev"');
    expect(two).toContain('href="/x?q=a+b&#38;page=3" rel="next"');
  });

  test("cursorPager: first page and next page links, none when there is one page", () => {
    expect(cursorPager("/x", {}, null).value).toBe("");
    expect(cursorPager("/x", { status: "open" }, "c2").value).toBe(
      '<nav class="pager" aria-label="Pages"><a href="/x?status=open&#38;cursor=c2" rel="next">Next page →</a></nav>',
    );
    expect(cursorPager("/x", { cursor: "c2" }, null).value).toBe('<nav class="pager" aria-label="Pages"><a href="/x">← First page</a></nav>');
  });
});
