// Configuration: defaults, and one clear message naming the variable for every bad value.
import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../src/config.ts";

const KEY = Buffer.alloc(32, 7).toString("base64");

function errorOf(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("loadConfig", () => {
  test("defaults", () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      host: "0.0.0.0",
      baseUrl: "http://localhost:3000",
      dataDir: "./data",
      nodeEnv: "production",
      logLevel: "info",
      seedDemo: true,
      trustProxy: false,
      sessionTtlHours: 168,
    });
    expect(c.databaseUrl).toBeUndefined();
    expect(c.secretKey).toBeUndefined();
    expect(Object.isFrozen(c)).toBe(true);
  });

  test("BASE_URL follows PORT and loses a trailing slash", () => {
    expect(loadConfig({ PORT: "8080" }).baseUrl).toBe("http://localhost:8080");
    expect(loadConfig({ BASE_URL: "https://agents.example.com/" }).baseUrl).toBe("https://agents.example.com");
  });

  test("SEED_DEMO=0 disables the demo; SECRET_KEY of 32 bytes is accepted", () => {
    expect(loadConfig({ SEED_DEMO: "0" }).seedDemo).toBe(false);
    expect(loadConfig({ SECRET_KEY: KEY }).secretKey?.length).toBe(32);
    expect(loadConfig({ DATABASE_URL: "postgres://u@h/db", SECRET_KEY: KEY }).databaseUrl).toBe("postgres://u@h/db");
  });

  test("named prepared statements are on unless DATABASE_PREPARE=0", () => {
    expect(loadConfig({}).databasePrepare).toBe(true);
    expect(loadConfig({ DATABASE_PREPARE: "0" }).databasePrepare).toBe(false);
  });

  const bad: [Record<string, string>, string, RegExp][] = [
    [{ PORT: "abc" }, "PORT", /whole number from 1 to 65535.*"abc"/],
    [{ PORT: "0" }, "PORT", /from 1 to 65535/],
    [{ PORT: "65536" }, "PORT", /from 1 to 65535/],
    [{ BASE_URL: "not a url" }, "BASE_URL", /absolute http\(s\) URL/],
    [{ BASE_URL: "localhost:3000" }, "BASE_URL", /http or https/],
    [{ BASE_URL: "ftp://example.com" }, "BASE_URL", /http or https/],
    [{ BASE_URL: "https://example.com/app" }, "BASE_URL", /no path/],
    [{ DATABASE_URL: "mysql://x/y", SECRET_KEY: KEY }, "DATABASE_URL", /postgres:\/\//],
    [{ DATABASE_URL: "postgres://u@h/db" }, "SECRET_KEY", /required when DATABASE_URL is set/],
    [{ SECRET_KEY: "c2hvcnQ=" }, "SECRET_KEY", /32 random bytes/],
    [{ SECRET_KEY: Buffer.alloc(33).toString("base64") }, "SECRET_KEY", /32 random bytes/],
    [{ NODE_ENV: "staging" }, "NODE_ENV", /one of development, production, test/],
    [{ LOG_LEVEL: "loud" }, "LOG_LEVEL", /one of debug, info, warn, error, silent/],
    [{ SEED_DEMO: "yes" }, "SEED_DEMO", /one of 0, 1, true, false/],
    [{ SESSION_TTL_HOURS: "0" }, "SESSION_TTL_HOURS", /from 1/],
  ];
  for (const [env, variable, message] of bad) {
    test(`${variable}=${JSON.stringify(Object.values(env)[0])} is refused with a message naming it`, () => {
      const error = errorOf(env);
      expect(error.variable).toBe(variable);
      expect(error.message.startsWith(variable)).toBe(true);
      expect(error.message).toMatch(message);
      expect(error.message).not.toContain("\n");
    });
  }
});

describe("live conversation streams", () => {
  test("defaults; each bound passes at its limit and is refused one over, naming the variable", () => {
    expect(loadConfig({}).sdkStreams).toEqual({ perKeyIp: 5, max: 5000, heartbeatSeconds: 20 });
    expect(loadConfig({ SDK_STREAM_HEARTBEAT_SECONDS: "25", SDK_STREAMS_PER_KEY_IP: "1000", SDK_STREAMS_MAX: "1000000" }).sdkStreams).toEqual({
      perKeyIp: 1000,
      max: 1_000_000,
      heartbeatSeconds: 25,
    });
    expect(loadConfig({ SDK_STREAM_HEARTBEAT_SECONDS: "1", SDK_STREAMS_PER_KEY_IP: "1", SDK_STREAMS_MAX: "1" }).sdkStreams).toEqual({
      perKeyIp: 1,
      max: 1,
      heartbeatSeconds: 1,
    });
    for (const [name, value] of [
      ["SDK_STREAM_HEARTBEAT_SECONDS", "26"],
      ["SDK_STREAM_HEARTBEAT_SECONDS", "0"],
      ["SDK_STREAMS_PER_KEY_IP", "1001"],
      ["SDK_STREAMS_PER_KEY_IP", "0"],
      ["SDK_STREAMS_MAX", "1000001"],
      ["SDK_STREAMS_MAX", "x"],
    ] as const)
      expect(errorOf({ [name]: value }).message).toContain(name);
  });
});

describe("speech servers and voice limits", () => {
  test("unset: no server speech, the documented limits", () => {
    expect(loadConfig({}).speech).toEqual({ timeoutSeconds: 20, maxAudioBytes: 2 * 1024 * 1024, maxSeconds: 120, perKeyIp: 60 });
  });

  test("STT_* and TTS_*: a trailing slash dropped, the default models and voice", () => {
    const c = loadConfig({ STT_BASE_URL: "http://127.0.0.1:8000/v1/", STT_API_KEY: "k", TTS_BASE_URL: "https://api.openai.com/v1" });
    expect(c.speech.stt).toEqual({ baseUrl: "http://127.0.0.1:8000/v1", apiKey: "k", model: "whisper-1" });
    expect(c.speech.tts).toEqual({ baseUrl: "https://api.openai.com/v1", apiKey: undefined, model: "tts-1", voice: "alloy" });
  });

  test("bad URLs and voices are refused naming the variable", () => {
    for (const [name, value] of [
      ["STT_BASE_URL", "ftp://x/v1"],
      ["TTS_BASE_URL", "https://u:p@x/v1"],
      ["STT_BASE_URL", "https://x/v1?a=b"],
      ["TTS_BASE_URL", "not a url"],
      ["TTS_VOICE", "a/b"],
      ["TTS_VOICE", "v".repeat(65)],
      ["STT_MODEL", "m".repeat(201)],
    ] as const)
      expect(errorOf({ STT_BASE_URL: "http://x/v1", TTS_BASE_URL: "http://y/v1", [name]: value }).variable).toBe(name);
    expect(loadConfig({ TTS_VOICE: "v".repeat(64), STT_MODEL: "m".repeat(200), STT_BASE_URL: "http://x/v1" }).speech.stt!.model).toHaveLength(200);
  });

  test("each limit at both ends", () => {
    for (const [name, low, high] of [
      ["SPEECH_TIMEOUT_SECONDS", 1, 300],
      ["VOICE_MAX_AUDIO_BYTES", 1024, 25 * 1024 * 1024],
      ["VOICE_MAX_SECONDS", 5, 600],
      ["VOICE_RATE_LIMIT_PER_KEY_IP_PER_MINUTE", 1, 100_000_000],
    ] as const) {
      expect(() => loadConfig({ [name]: String(low) })).not.toThrow();
      expect(() => loadConfig({ [name]: String(high) })).not.toThrow();
      expect(errorOf({ [name]: String(low - 1) }).variable).toBe(name);
      expect(errorOf({ [name]: String(high + 1) }).variable).toBe(name);
    }
  });
});
