// Tokens and field encryption: formats, hashing, and the tampering the cipher must refuse.
import { describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { createFieldCipher } from "../../src/crypto/fields.ts";
import { constantTimeEqual, mintToken, sha256Hex } from "../../src/crypto/tokens.ts";

describe("tokens", () => {
  test("256 random bits, base64url after the prefix, never repeated", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const token = mintToken("svc_ses_");
      expect(token).toMatch(/^svc_ses_[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(token.slice(8), "base64url").length).toBe(32);
      seen.add(token);
    }
    expect(seen.size).toBe(200);
  });

  test("sha256Hex is SHA-256", () => {
    expect(sha256Hex("abc")).toBe(createHash("sha256").update("abc").digest("hex"));
  });

  test("constantTimeEqual", () => {
    expect(constantTimeEqual("secret", "secret")).toBe(true);
    expect(constantTimeEqual("secret", "secreT")).toBe(false);
    expect(constantTimeEqual("secret", "secret2")).toBe(false);
    expect(constantTimeEqual("", "")).toBe(true);
  });
});

describe("field cipher (AES-256-GCM)", () => {
  const cipher = createFieldCipher(randomBytes(32));

  test("round-trips, with a fresh IV every time", () => {
    const a = cipher.encrypt("hunter2", "orgs.identity_secret:1");
    const b = cipher.encrypt("hunter2", "orgs.identity_secret:1");
    expect(a).not.toBe(b);
    expect(a).not.toContain("hunter2");
    expect(cipher.decrypt(a, "orgs.identity_secret:1")).toBe("hunter2");
    expect(cipher.decrypt(cipher.encrypt("", "c"), "c")).toBe("");
    expect(cipher.decrypt(cipher.encrypt("ünïcødé ✓", "c"), "c")).toBe("ünïcødé ✓");
  });

  test("a ciphertext moved to another row or column does not decrypt", () => {
    const sealed = cipher.encrypt("token-value", "connectors.token:row-1");
    expect(() => cipher.decrypt(sealed, "connectors.token:row-2")).toThrow();
    expect(() => cipher.decrypt(sealed, "connectors.refresh_token:row-1")).toThrow();
  });

  test("any flipped bit is refused", () => {
    const sealed = cipher.encrypt("token-value", "ctx");
    const [v, iv, body] = sealed.split(".") as [string, string, string];
    const bytes = Buffer.from(body, "base64url");
    for (const index of [0, bytes.length - 1]) {
      const copy = Buffer.from(bytes);
      copy[index]! ^= 1;
      expect(() => cipher.decrypt(`${v}.${iv}.${copy.toString("base64url")}`, "ctx")).toThrow();
    }
    expect(() => cipher.decrypt(`${v}.${Buffer.alloc(12).toString("base64url")}.${body}`, "ctx")).toThrow();
    expect(() => cipher.decrypt("v2.x.y", "ctx")).toThrow();
    expect(() => cipher.decrypt("garbage", "ctx")).toThrow();
  });

  test("another key cannot read it", () => {
    const other = createFieldCipher(randomBytes(32));
    expect(() => other.decrypt(cipher.encrypt("x", "ctx"), "ctx")).toThrow();
  });
});
