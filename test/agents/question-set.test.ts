// Question sets as a person writes them (src/agents/question-set.ts): plain lines, CSV with a
// header (RFC 4180: quoted commas, quotes and line breaks) and JSON Lines, told apart by content or
// file name; errors name the line; bounds at their limit and one over. And the judge of an answer
// with an expected passage (src/agents/evaluate.ts `judge`).
import { describe, expect, test } from "bun:test";
import { EVAL_LIMITS, judge } from "../../src/agents/evaluate.ts";
import { formatOf, parseQuestionSet, QUESTION_SET } from "../../src/agents/question-set.ts";
import { AppError } from "../../src/errors.ts";

const details = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).status).toBe(400);
    return (e as AppError).details ?? [];
  }
  throw new Error("expected a 400");
};

describe("formats", () => {
  test("plain lines: one question a line, blank lines skipped, nothing expected", () => {
    expect(parseQuestionSet("How do I reset my password?\n\n  Can I pay with Visa, or Mastercard?  \r\n")).toEqual({
      format: "lines",
      questions: [{ question: "How do I reset my password?" }, { question: "Can I pay with Visa, or Mastercard?" }],
    });
  });

  test("CSV: header in any order, quoted commas, quotes and line breaks, a BOM, empty cells", () => {
    const csv =
      '\uFEFFexpected_passage,question,expected_doc\r\n"Forgot password","How do I ""reset"" my password, please?",Resetting your password\r\n,"Two\nlines?",\r\n';
    const { format, questions } = parseQuestionSet(csv);
    expect(format).toBe("csv");
    expect(questions).toEqual([
      {
        question: 'How do I "reset" my password, please?',
        expectedDoc: "Resetting your password",
        expectedPhrase: undefined,
        expectedPassage: "Forgot password",
      },
      { question: "Two\nlines?", expectedDoc: undefined, expectedPhrase: undefined, expectedPassage: undefined },
    ]);
  });

  test("JSON Lines as before, with expected_passage", () => {
    const { format, questions } = parseQuestionSet('{"question": "q?", "expected_doc": "D", "expected_passage": "some text"}');
    expect(format).toBe("jsonl");
    expect(questions).toEqual([{ question: "q?", expectedDoc: "D", expectedPhrase: undefined, expectedPassage: "some text" }]);
  });

  test("told apart by content, else by the file's extension", () => {
    expect(formatOf("question,expected_doc\nq,d")).toBe("csv");
    expect(formatOf('{"question":"q"}')).toBe("jsonl");
    expect(formatOf("How are you?")).toBe("lines");
    expect(formatOf("question\nq", "set.txt")).toBe("csv");
    expect(formatOf("q,r", "set.csv")).toBe("csv");
    expect(formatOf("q", "set.jsonl")).toBe("jsonl");
  });
});

describe("errors name the line", () => {
  test("CSV: a row with more fields than the header, a row without a question", () => {
    const d = details(() => parseQuestionSet("question,expected_doc\nfine?,Page\ntoo,many,fields\n,Page only\n"));
    expect(d).toEqual([
      { path: "/3", message: "3 fields where the header names 2" },
      { path: "/4", message: "needs a question" },
    ]);
  });

  test("a .csv without a header of known columns", () => {
    expect(details(() => parseQuestionSet("q,answer\nx,y", "set.csv"))[0]!.path).toBe("/1");
  });

  test("JSON Lines: the bad line", () => {
    expect(details(() => parseQuestionSet('{"question":"a"}\nnot json'))).toEqual([{ path: "/2", message: "not a JSON object" }]);
  });
});

describe("bounds at their limit and one over", () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `question ${i}`).join("\n");
  test("questions", () => {
    expect(parseQuestionSet(lines(EVAL_LIMITS.questions)).questions).toHaveLength(EVAL_LIMITS.questions);
    expect(details(() => parseQuestionSet(lines(EVAL_LIMITS.questions + 1)))[0]!.message).toContain(`at most ${EVAL_LIMITS.questions}`);
    const csv = (n: number) => `question\n${lines(n)}`;
    expect(parseQuestionSet(csv(EVAL_LIMITS.questions)).questions).toHaveLength(EVAL_LIMITS.questions);
    expect(details(() => parseQuestionSet(csv(EVAL_LIMITS.questions + 1)))[0]!.path).toBe("/");
  });

  test("characters of a field", () => {
    expect(parseQuestionSet("x".repeat(EVAL_LIMITS.chars)).questions).toHaveLength(1);
    expect(details(() => parseQuestionSet("x".repeat(EVAL_LIMITS.chars + 1)))).toEqual([
      { path: "/1", message: `at most ${EVAL_LIMITS.chars} characters a question` },
    ]);
    expect(parseQuestionSet(`question,expected_passage\nq,${"p".repeat(EVAL_LIMITS.chars)}`).questions).toHaveLength(1);
    expect(details(() => parseQuestionSet(`question,expected_passage\nq,${"p".repeat(EVAL_LIMITS.chars + 1)}`))[0]!.path).toBe("/2");
  });

  test("characters and lines of the whole text", () => {
    const at = `question\n${"a".repeat(10)}\n`.padEnd(QUESTION_SET.chars, " ");
    expect(parseQuestionSet(at).questions).toHaveLength(1);
    expect(details(() => parseQuestionSet(`${at} `))[0]!.message).toBe(`at most ${QUESTION_SET.chars} characters`);
    const blank = `question\nq?${"\n".repeat(QUESTION_SET.lines - 2)}`;
    expect(parseQuestionSet(blank).questions).toEqual([{ question: "q?", expectedDoc: undefined, expectedPhrase: undefined, expectedPassage: undefined }]);
    expect(details(() => parseQuestionSet(`${blank}\n`))[0]!.message).toBe(`at most ${QUESTION_SET.lines} lines`);
  });
});

describe("judged by page and passage", () => {
  const first = { doc_id: "d1", title: "Resetting your password", text: "## Reset\nChoose  Forgot\npassword on the sign-in page." };
  test("the right page is not enough when the passage does not hold the expected text", () => {
    expect(judge({ question: "q", expectedDoc: "Resetting your password" }, "", first)).toBe(true);
    expect(judge({ question: "q", expectedDoc: "resetting your password", expectedPassage: "choose forgot password" }, "", first)).toBe(true);
    expect(judge({ question: "q", expectedDoc: "Resetting your password", expectedPassage: "emailed link" }, "", first)).toBe(false);
    expect(judge({ question: "q", expectedDoc: "Other page", expectedPassage: "Forgot password" }, "", first)).toBe(false);
    expect(judge({ question: "q", expectedPassage: "FORGOT PASSWORD" }, "", first)).toBe(true);
    expect(judge({ question: "q", expectedPassage: "Forgot password" }, "", undefined)).toBe(false);
    expect(judge({ question: "q", expectedPhrase: "sign-in" }, "Use the Sign-in page.", first)).toBe(true);
    expect(judge({ question: "q" }, "", first)).toBeNull();
  });
});
