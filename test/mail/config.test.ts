// SMTP_URL and MAIL_FROM: what is accepted, what is refused with the variable named, and the defaults.
import { expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config.ts";

const load = (env: Record<string, string>) => loadConfig({ BASE_URL: "https://agents.example.com", ...env });

test("SMTP_URL: smtp:// or smtps:// with a host; unset means no sending", () => {
  expect(load({}).smtpUrl).toBeUndefined();
  expect(load({ SMTP_URL: "smtp://127.0.0.1:2525" }).smtpUrl).toBe("smtp://127.0.0.1:2525");
  expect(load({ SMTP_URL: "smtps://user:p%40ss@smtp.example.com:465" }).smtpUrl).toBe("smtps://user:p%40ss@smtp.example.com:465");
  for (const bad of ["http://smtp.example.com", "smtp.example.com:25", "smtp://", "mailto:x@example.com"]) {
    expect(() => load({ SMTP_URL: bad })).toThrow(ConfigError);
    try {
      load({ SMTP_URL: bad });
    } catch (error) {
      expect((error as ConfigError).variable).toBe("SMTP_URL");
      expect((error as Error).message).not.toContain("p%40ss");
    }
  }
});

test("MAIL_FROM: a bare address, defaulting to no-reply at BASE_URL's host", () => {
  expect(load({}).mailFrom).toBe("no-reply@agents.example.com");
  expect(loadConfig({}).mailFrom).toBe("no-reply@localhost.localdomain");
  expect(load({ MAIL_FROM: "news@mail.example.com" }).mailFrom).toBe("news@mail.example.com");
  expect(load({ MAIL_FROM: `${"a".repeat(64)}@example.com` }).mailFrom).toHaveLength(76);
  for (const bad of ["Acme <news@example.com>", "news@example.com\r\nBcc: x@y.z", "no-at-sign", `${"a".repeat(65)}@example.com`, "a b@example.com"])
    expect(() => load({ MAIL_FROM: bad })).toThrow(/MAIL_FROM/);
});
