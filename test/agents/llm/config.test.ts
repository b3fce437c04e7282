// LLM_* settings: parsed once, validated, documented defaults.
import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../../src/config.ts";

const base = { NODE_ENV: "test" };
const llm = (env: Record<string, string>) => loadConfig({ ...base, ...env }).llm;
const refused = (env: Record<string, string>, variable: string) => {
  let error: unknown;
  try {
    loadConfig({ ...base, ...env });
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as ConfigError).variable).toBe(variable);
};

describe("LLM configuration", () => {
  test("defaults: builtin, no key, no network", () => {
    expect(llm({})).toEqual({ provider: "builtin", baseUrl: "", apiKey: undefined, model: "builtin-extractive", timeoutSeconds: 60, maxTokens: 1024 });
  });

  test("openai and anthropic default to the vendors' public APIs and need a model", () => {
    expect(llm({ LLM_PROVIDER: "openai", LLM_MODEL: "gpt-4o-mini" })).toMatchObject({
      provider: "openai",
      baseUrl: "https://api.openai.com/v1",
      model: "gpt-4o-mini",
    });
    expect(llm({ LLM_PROVIDER: "anthropic", LLM_MODEL: "claude-x", LLM_API_KEY: "sk" })).toMatchObject({ baseUrl: "https://api.anthropic.com", apiKey: "sk" });
    refused({ LLM_PROVIDER: "openai" }, "LLM_MODEL");
    refused({ LLM_PROVIDER: "anthropic" }, "LLM_MODEL");
  });

  test("a base URL keeps its path and query, loses a trailing slash, and must be plain http(s)", () => {
    expect(llm({ LLM_PROVIDER: "openai", LLM_MODEL: "llama3.1", LLM_BASE_URL: "http://127.0.0.1:11434/v1/" }).baseUrl).toBe("http://127.0.0.1:11434/v1");
    for (const bad of ["ftp://x/v1", "not a url", "https://user:pw@x/v1", "https://x/v1#f"]) refused({ LLM_BASE_URL: bad }, "LLM_BASE_URL");
    expect(llm({ LLM_BASE_URL: "https://gw.example.com/openai/v1/?api-version=2025-01-01" }).baseUrl).toBe(
      "https://gw.example.com/openai/v1?api-version=2025-01-01",
    );
    expect(llm({ LLM_BASE_URL: "http://127.0.0.1:8080" }).baseUrl).toBe("http://127.0.0.1:8080");
  });

  test("unknown providers and out-of-range numbers are refused, naming the variable; the limits pass exactly", () => {
    refused({ LLM_PROVIDER: "mistral" }, "LLM_PROVIDER");
    expect(llm({ LLM_TIMEOUT_SECONDS: "600", LLM_MAX_TOKENS: "200000" })).toMatchObject({ timeoutSeconds: 600, maxTokens: 200_000 });
    refused({ LLM_TIMEOUT_SECONDS: "601" }, "LLM_TIMEOUT_SECONDS");
    refused({ LLM_TIMEOUT_SECONDS: "0" }, "LLM_TIMEOUT_SECONDS");
    refused({ LLM_MAX_TOKENS: "200001" }, "LLM_MAX_TOKENS");
    expect(llm({ LLM_MODEL: "m".repeat(200) }).model.length).toBe(200);
    refused({ LLM_MODEL: "m".repeat(201) }, "LLM_MODEL");
  });
});
