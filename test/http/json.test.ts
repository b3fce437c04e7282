// Bounded JSON: every limit at its boundary, for the parser every body goes through
// (src/http/json.ts) and for the write-time check of free-form objects (src/http/free-form.ts:
// function and TypeBox type), whose TypeBox kind is installed when an app is built, not on import.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia, t } from "elysia";
import { assertFreeForm, checkFreeForm, FREE_FORM_LIMITS, FreeForm, SCHEMA_LIMITS } from "../../src/http/free-form.ts";
import { JSON_MAX_DEPTH, JsonInputError, parseJsonBounded } from "../../src/http/json.ts";
import { AppError } from "../../src/errors.ts";
import { createLogger } from "../../src/log.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { jsonFromChildBun } from "../support/process.ts";

const nested = (depth: number, open = "[", close = "]", leaf = "") => open.repeat(depth) + leaf + close.repeat(depth);
const nestedValue = (depth: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};
const refusal = (text: string) => {
  try {
    parseJsonBounded(text);
  } catch (error) {
    expect(error).toBeInstanceOf(JsonInputError);
    expect((error as JsonInputError).status).toBe(400);
    expect((error as JsonInputError).code).toBe("invalid_json");
    return (error as JsonInputError).kind;
  }
  return null;
};

describe("parseJsonBounded", () => {
  test(`nesting: exactly ${JSON_MAX_DEPTH} levels parse, one more is refused (arrays and objects)`, () => {
    expect(refusal(nested(JSON_MAX_DEPTH))).toBeNull();
    expect(refusal(nested(JSON_MAX_DEPTH + 1))).toBe("depth");
    expect(refusal(nested(JSON_MAX_DEPTH, '{"a":', "}", "1"))).toBeNull();
    expect(refusal(nested(JSON_MAX_DEPTH + 1, '{"a":', "}", "1"))).toBe("depth");
    // Brackets inside strings are text, not nesting.
    expect(refusal(JSON.stringify("[".repeat(10_000)))).toBeNull();
  });

  test("a million levels are refused fast, without recursion", () => {
    const text = nested(500_000);
    const started = performance.now();
    expect(refusal(text)).toBe("depth");
    expect(refusal(nested(500_000, '{"a":', "}"))).toBe("depth");
    expect(performance.now() - started).toBeLessThan(200);
  });

  test("time is linear in the size of a large flat body", () => {
    const small = JSON.stringify(Array.from({ length: 5_000 }, (_, i) => ({ k: `v${i}`, n: i })));
    const large = JSON.stringify(Array.from({ length: 50_000 }, (_, i) => ({ k: `v${i}`, n: i })));
    // Best of three each, so a busy machine's pauses do not count; 10x the size must cost well
    // under 30x the time (quadratic would be 100x), with a floor for timer resolution.
    const best = (text: string) =>
      Math.min(
        ...[0, 1, 2].map(() => {
          const started = performance.now();
          parseJsonBounded(text);
          return performance.now() - started;
        }),
      );
    const smallMs = best(small);
    expect(best(large)).toBeLessThan(Math.max(30 * smallMs, 500));
  });

  test("C0 control characters other than tab, LF, CR are refused in values and keys, escaped or raw", () => {
    for (const code of [0x00, 0x01, 0x07, 0x08, 0x0b, 0x0c, 0x1b, 0x1f]) {
      const escaped = `\\u${code.toString(16).padStart(4, "0")}`;
      expect(refusal(`{"a":"x${escaped}"}`)).toBe("control_character");
      expect(refusal(`{"a${escaped}":1}`)).toBe("control_character");
      expect(refusal(`["${String.fromCharCode(code)}"]`)).toBe("control_character");
    }
    expect(parseJsonBounded('["a\\tb\\nc\\rd", "\\u0009\\u000a\\u000D"]')).toEqual(["a\tb\nc\rd", "\t\n\r"]);
    // An escaped backslash followed by "u0000" is text, not a NUL.
    expect(parseJsonBounded('["\\\\u0000"]')).toEqual(["\\u0000"]);
    // DEL and C1 are not C0: accepted.
    expect(parseJsonBounded('["\\u007f\\u0085"]')).toEqual(["\u007f\u0085"]);
  });

  test("unpaired surrogates are refused; pairs pass", () => {
    expect(refusal('["\\ud800"]')).toBe("lone_surrogate");
    expect(refusal('["\\udc00"]')).toBe("lone_surrogate");
    expect(refusal('["\\ud800x"]')).toBe("lone_surrogate");
    expect(refusal('{"\\ud800":1}')).toBe("lone_surrogate");
    expect(refusal(`["${"\ud800"}"]`)).toBe("lone_surrogate");
    expect(parseJsonBounded('["\\ud83d\\ude00", "😀"]')).toEqual(["😀", "😀"]);
  });

  test("duplicate keys (also spelled with escapes) and __proto__ are refused; same key in sibling objects is fine", () => {
    expect(refusal('{"a":1,"a":2}')).toBe("duplicate_key");
    expect(refusal('{"a":1,"\\u0061":2}')).toBe("duplicate_key");
    expect(refusal('{"x":{"a":1,"b":{"a":1},"a":2}}')).toBe("duplicate_key");
    expect(refusal('{"__proto__":{"admin":true}}')).toBe("forbidden_key");
    expect(parseJsonBounded('[{"a":1},{"a":2},{"b":{"a":3},"a":4}]')).toEqual([{ a: 1 }, { a: 2 }, { b: { a: 3 }, a: 4 }]);
    expect(parseJsonBounded('{"a":"b","b":"a"}')).toEqual({ a: "b", b: "a" });
  });

  test("agrees with JSON.parse on random accepted documents (quotes, backslashes, escapes, unicode)", () => {
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const pieces = ["a", '"', "\\", "/", "\t", "\n", "é", "😀", "{", "]", ",", ":", " ", "\u2028", "\\u0000", "x".repeat(50)];
    const str = () => Array.from({ length: rand(6) }, () => pieces[rand(pieces.length)]).join("");
    const value = (depth: number): unknown => {
      const kind = depth > 6 ? rand(4) : rand(6);
      if (kind === 0) return str();
      if (kind === 1) return rand(2) ? rand(1e6) / 7 : -rand(100);
      if (kind === 2) return [true, false, null][rand(3)];
      if (kind === 3) return str();
      if (kind === 4) return Array.from({ length: rand(4) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: rand(4) }, (_, i) => [`${str()}#${i}`, value(depth + 1)]));
    };
    for (let n = 0; n < 500; n++) {
      const text = JSON.stringify(value(0), null, rand(2) ? 2 : undefined);
      expect(parseJsonBounded(text)).toEqual(JSON.parse(text));
    }
  });

  test("numbers that overflow a double are refused; large finite ones pass", () => {
    for (const text of ["1e400", "[-1e309]", '{"a":{"b":[1,2,1E+999]}}', `[${"9".repeat(400)}]`])
      expect([text.slice(0, 20), refusal(text)]).toEqual([text.slice(0, 20), "number_range"]);
    expect(parseJsonBounded("[1e308, -1.7976931348623157e308, 1e-400, 18446744073709551616]")).toEqual([
      1e308, -1.7976931348623157e308, 0, 18446744073709551616,
    ]);
    expect(parseJsonBounded('["1e400", {"e999": "x"}]')).toEqual(["1e400", { e999: "x" }]);
  });

  test("relay mode (third-party answers): only nesting and __proto__ are refused", () => {
    const relay = (text: string) => parseJsonBounded(text, { relay: true });
    expect(relay('{"a":"x\\u0000y","a":"\\ud800","n":1e400,"\\u0001":"\\u0001"}')).toEqual({ a: "\ud800", n: Infinity, "\u0001": "\u0001" });
    expect(() => relay(nested(JSON_MAX_DEPTH + 1))).toThrow(JsonInputError);
    expect(() => relay('{"__proto__":{}}')).toThrow(JsonInputError);
    expect(relay(nested(JSON_MAX_DEPTH))).toBeDefined();
    const started = performance.now();
    expect(() => relay(nested(500_000))).toThrow("64 levels");
    expect(performance.now() - started).toBeLessThan(200);
  });

  test("syntax errors are invalid_json of kind syntax", () => {
    for (const text of ["{", '{"a":1', '"\\u12"', "[1,]", "\uFEFF{}", "", "undefined", '"\\x"']) expect(refusal(text)).toBe("syntax");
  });
});

describe("free-form objects (checkFreeForm, assertFreeForm, FreeForm)", () => {
  test(`depth: exactly ${FREE_FORM_LIMITS.maxDepth} passes, one more is refused naming the limit`, () => {
    expect(checkFreeForm(nestedValue(FREE_FORM_LIMITS.maxDepth))).toBeNull();
    expect(checkFreeForm(nestedValue(FREE_FORM_LIMITS.maxDepth + 1))).toContain(`${FREE_FORM_LIMITS.maxDepth} levels`);
    expect(checkFreeForm(nestedValue(SCHEMA_LIMITS.maxDepth), SCHEMA_LIMITS)).toBeNull();
    expect(checkFreeForm(nestedValue(SCHEMA_LIMITS.maxDepth + 1), SCHEMA_LIMITS)).toContain(`${SCHEMA_LIMITS.maxDepth} levels`);
    // 100,000 levels built in memory: refused without a stack overflow.
    expect(checkFreeForm(nestedValue(100_000))).toContain("levels");
  });

  test(`size: exactly ${FREE_FORM_LIMITS.maxBytes} bytes as JSON passes, one more is refused naming the limit`, () => {
    const overhead = JSON.stringify({ a: "" }).length;
    const at = { a: "x".repeat(FREE_FORM_LIMITS.maxBytes - overhead) };
    expect(JSON.stringify(at).length).toBe(FREE_FORM_LIMITS.maxBytes);
    expect(checkFreeForm(at)).toBeNull();
    expect(checkFreeForm({ a: "x".repeat(FREE_FORM_LIMITS.maxBytes - overhead + 1) })).toContain(`${FREE_FORM_LIMITS.maxBytes} bytes`);
    // Bytes, not characters: "é" is two bytes in UTF-8.
    expect(checkFreeForm({ a: "é".repeat((FREE_FORM_LIMITS.maxBytes - overhead) / 2 + 1) })).toContain("bytes");
  });

  test("control characters and lone surrogates in keys or strings, and non-JSON values, are refused", () => {
    expect(checkFreeForm({ a: "x\u0000" })).toContain("control characters");
    expect(checkFreeForm({ "a\u0001": 1 })).toContain("control characters");
    expect(checkFreeForm({ a: ["\ud800"] })).toContain("surrogates");
    expect(checkFreeForm({ a: () => 1 })).toContain("function");
    expect(checkFreeForm({ a: "tab\there", b: [1, null, true, { c: "line\nbreak" }] })).toBeNull();
  });

  test("assertFreeForm throws 400 validation_failed with the field's path and the limit", () => {
    try {
      assertFreeForm(nestedValue(20), "/traits");
      throw new Error("not refused");
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      const e = error as AppError;
      expect([e.status, e.code]).toEqual([400, "validation_failed"]);
      expect(e.message).toContain("8 levels");
      expect(e.details).toEqual([{ path: "/traits", message: expect.stringContaining("8 levels") }]);
    }
  });

  test("FreeForm() in a route schema: 400 naming the limit; arrays are not objects; valid values pass untouched", async () => {
    {
      const { errorHandling } = await import("../../src/http/errors.ts");
      const { parseBody } = await import("../../src/http/body.ts");
      const app = new Elysia()
        .use(errorHandling(createLogger("silent")))
        .onParse(({ request, contentType, path }) => parseBody(request, contentType, path))
        .post("/api/x", ({ body }) => body, { body: t.Object({ traits: FreeForm(), schema: t.Optional(FreeForm(SCHEMA_LIMITS)) }) });
      const post = (body: unknown) =>
        app.handle(new Request("http://localhost/api/x", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }));
      const ok = await post({ traits: nestedValue(8) as object });
      expect(ok.status).toBe(200);
      expect(await ok.json()).toEqual({ traits: nestedValue(8) });
      const deep = await post({ traits: nestedValue(9) as object });
      expect(deep.status).toBe(400);
      const body = (await deep.json()) as { error: { code: string; details: { path: string; message: string }[] } };
      expect(body.error.code).toBe("validation_failed");
      expect(body.error.details).toEqual([{ path: "/traits", message: "Nesting deeper than 8 levels is not accepted." }]);
      const array = await post({ traits: [1] });
      expect(array.status).toBe(400);
      expect((await post({ traits: {}, schema: nestedValue(32) as object })).status).toBe(200);
      const deepSchema = await post({ traits: {}, schema: nestedValue(33) as object });
      expect(deepSchema.status).toBe(400);
      expect(JSON.stringify(await deepSchema.json())).toContain("32 levels");
    }
  });
});

describe("the FreeForm kind is installed when an app is built, not when a module is loaded", () => {
  test("loading the JSON modules leaves TypeBox as it was; errorHandling installs the kind, and only its messages change", async () => {
    // A fresh process: this one has built apps already. Every module that names FreeForm is loaded.
    const src = (file: string) => JSON.stringify(new URL(`../../src/${file}`, import.meta.url).pathname);
    const result = await jsonFromChildBun(
      `
      const { TypeRegistry } = await import("@sinclair/typebox");
      const { GetErrorFunction } = await import("@sinclair/typebox/errors");
      const { Value } = await import("@sinclair/typebox/value");
      const { Type } = await import("@sinclair/typebox");
      const before = GetErrorFunction();
      await import(${src("http/json.ts")});
      const { FreeForm } = await import(${src("http/free-form.ts")});
      await import(${src("sdk/schemas.ts")});
      const afterLoad = { sameErrorFunction: GetErrorFunction() === before, kindRegistered: TypeRegistry.Has("FreeFormObject") };
      const { errorHandling } = await import(${src("http/errors.ts")});
      const { createLogger } = await import(${src("log.ts")});
      errorHandling(createLogger("silent"));
      const deep = { a: { b: { c: { d: { e: { f: { g: { h: { i: 1 } } } } } } } } };
      const schema = Type.Object({ traits: FreeForm(), name: Type.String() });
      const messages = [...Value.Errors(schema, { traits: deep, name: 1 })].map((e) => [e.path, e.message]);
      console.log(JSON.stringify({ afterLoad, kindRegistered: TypeRegistry.Has("FreeFormObject"), messages }));
      `,
      {},
    );
    expect(result).toEqual({
      afterLoad: { sameErrorFunction: true, kindRegistered: false },
      kindRegistered: true,
      messages: [
        ["/traits", "Nesting deeper than 8 levels is not accepted."],
        // Every other schema keeps TypeBox's own wording.
        ["/name", "Expected string"],
      ],
    });
  });
});

describe("the shared body parser uses it for every JSON and form body", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  const post = (path: string, body: string, type = "application/json") => app.request(path, { method: "POST", body, headers: { "content-type": type } });
  const code = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error;

  test(`POST /api/auth/session: a body ${JSON_MAX_DEPTH} levels deep reaches validation, one more is invalid_json`, async () => {
    // The body object is the first level.
    const at = await post("/api/auth/session", `{"email":"a@example.com","password":${nested(JSON_MAX_DEPTH - 1)}}`);
    expect(at.status).toBe(400);
    expect((await code(at)).code).toBe("validation_failed");
    const over = await post("/api/auth/session", `{"email":"a@example.com","password":${nested(JSON_MAX_DEPTH)}}`);
    expect(over.status).toBe(400);
    const error = await code(over);
    expect(error.code).toBe("invalid_json");
    expect(error.message).toContain(`${JSON_MAX_DEPTH} levels`);
  });

  test("the issue's 10,500-deep password object is refused at once", async () => {
    const started = performance.now();
    const res = await post("/api/auth/session", `{"email":"a@example.com","password":${nested(10_500, '{"a":', "}", "1")}}`);
    expect(res.status).toBe(400);
    expect(performance.now() - started).toBeLessThan(100);
  });

  test("NUL in a sign-in e-mail: 400, not a database error", async () => {
    const res = await post("/api/auth/session", '{"email":"a\\u0000@example.com","password":"x"}');
    expect(res.status).toBe(400);
    expect((await code(res)).message).toContain("U+0000");
  });

  test("a form field or name with %00 is 400 validation_failed; tab/CR/LF pass", async () => {
    const nul = await post("/signin", "email=a%00%40example.com&password=x", "application/x-www-form-urlencoded");
    expect(nul.status).toBe(400);
    const name = await post("/signin", "em%01ail=a&password=x", "application/x-www-form-urlencoded");
    expect(name.status).toBe(400);
  });
});
