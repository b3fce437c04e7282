// Chat input checks: images by magic bytes, history items.
import { describe, expect, test } from "bun:test";
import { CHAT_LIMITS, checkChatInput, imageProblem } from "../../src/conversations/input.ts";
import { AppError } from "../../src/errors.ts";

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const dataUrl = (type: string, bytes: Uint8Array) => `data:${type};base64,${Buffer.from(bytes).toString("base64")}`;

describe("images", () => {
  test("raster data: URLs whose bytes match their type", () => {
    expect(imageProblem(dataUrl("image/png", PNG))).toBeNull();
    expect(imageProblem(dataUrl("image/jpeg", Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2])))).toBeNull();
    expect(imageProblem(dataUrl("image/gif", Buffer.from("GIF89a......")))).toBeNull();
    expect(imageProblem(dataUrl("image/webp", Buffer.from("RIFF\0\0\0\0WEBPVP8 ")))).toBeNull();
  });
  test("SVG, other types, and bytes that are not the declared type are refused", () => {
    expect(imageProblem(dataUrl("image/svg+xml", Buffer.from("<svg/>")))).toContain("PNG, JPEG, GIF or WebP");
    expect(imageProblem(dataUrl("image/png", Buffer.from("<svg onload=alert(1)>")))).toContain("signature");
    expect(imageProblem(dataUrl("image/jpeg", PNG))).toContain("signature");
    expect(imageProblem("data:text/html;base64,PGgxPg==")).not.toBeNull();
    expect(imageProblem("data:image/png,rawtext")).not.toBeNull();
  });
  test("size: exactly at the limit passes, one byte over fails", () => {
    const at = Buffer.alloc(CHAT_LIMITS.imageBytes);
    PNG.copy(at);
    expect(imageProblem(dataUrl("image/png", at))).toBeNull();
    const over = Buffer.alloc(CHAT_LIMITS.imageBytes + 1);
    PNG.copy(over);
    expect(imageProblem(dataUrl("image/png", over))).toContain("at most");
  });
  test("http(s) URLs are accepted as links, others refused", () => {
    expect(imageProblem("https://cdn.example.com/a.png")).toBeNull();
    expect(imageProblem(`https://e.com/${"a".repeat(CHAT_LIMITS.imageUrl - 14)}`)).toBeNull();
    expect(imageProblem(`https://e.com/${"a".repeat(CHAT_LIMITS.imageUrl - 13)}`)).toContain("at most");
    expect(imageProblem("javascript:alert(1)")).not.toBeNull();
    expect(imageProblem("https://user:pw@e.com/a.png")).toContain("credentials");
    expect(imageProblem("not a url")).not.toBeNull();
  });
});

describe("conversation_history", () => {
  test("speaker or role, text or content, normalised", () => {
    const { reported } = checkChatInput({
      message: "hi",
      conversation_history: [
        { speaker: "user", text: "a" },
        { role: "assistant", content: "b" },
        { role: "Agent", text: "c" },
      ],
    });
    expect(reported).toEqual([
      { speaker: "customer", text: "a" },
      { speaker: "agent", text: "b" },
      { speaker: "agent", text: "c" },
    ]);
  });
  test("unknown speakers and missing text are 400 with the item's path", () => {
    try {
      checkChatInput({
        message: "hi",
        images: ["data:image/svg+xml;base64,PHN2Zy8+"],
        conversation_history: [{ role: "system", text: "x" }, { role: "user" }],
      });
      throw new Error("accepted");
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).details?.map((d) => d.path)).toEqual(["/images/0", "/conversation_history/0/role", "/conversation_history/1/text"]);
    }
  });
  test("a blank message is refused", () => {
    expect(() => checkChatInput({ message: "   " })).toThrow(AppError);
  });
});
