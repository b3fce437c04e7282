// Translators on loopback speaking their real wire formats, each answering from a queue the test
// fills (`next(text)`) or refusing (`refuse(status)`), and recording every request it received:
//   fakeLibreTranslate — POST /translate, JSON {q, source, target, format, api_key} → {translatedText};
//                        errors {error} (403 "Invalid API key", 500 …)
//   fakeDeepl          — POST /v2/translate, Authorization: DeepL-Auth-Key, JSON {text: [..], target_lang,
//                        source_lang} → {translations: [{detected_source_language, text}]}; errors {message}
//   fakeModel          — an OpenAI-compatible Chat Completions server (test/support/fake-llm.ts), streamed
// With nothing queued a server answers 500, so a test that did not expect a request sees it fail.
import { fakeOpenAi } from "../support/fake-llm.ts";

export interface Recorded {
  path: string;
  headers: Record<string, string>;
  body: any;
}

export interface FakeTranslator {
  kind: "libretranslate" | "deepl" | "model";
  baseUrl: string;
  key: string;
  requests: Recorded[];
  next(text: string): void;
  refuse(status: number): void;
  close(): Promise<void>;
}

type Answer = { text: string } | { status: number };

async function serve(kind: "libretranslate" | "deepl", key: string): Promise<FakeTranslator> {
  const queue: Answer[] = [];
  const requests: Recorded[] = [];
  const path = kind === "libretranslate" ? "/translate" : "/v2/translate";
  const error = (status: number, message: string) => Response.json(kind === "libretranslate" ? { error: message } : { message }, { status });
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const text = await request.text();
      let body: any = text;
      try {
        body = JSON.parse(text);
      } catch {}
      requests.push({ path: url.pathname, headers: Object.fromEntries(request.headers), body });
      if (request.method !== "POST" || url.pathname !== path) return error(404, "Not Found");
      const given = kind === "libretranslate" ? body?.api_key : request.headers.get("authorization");
      if (given !== (kind === "libretranslate" ? key : `DeepL-Auth-Key ${key}`))
        return error(403, kind === "libretranslate" ? "Invalid API key" : "Wrong auth key");
      const answer = queue.shift();
      if (!answer) return error(500, "nothing queued");
      if ("status" in answer) return error(answer.status, answer.status === 403 ? "Forbidden: quota or key" : "Internal Server Error");
      return kind === "libretranslate"
        ? Response.json({ translatedText: answer.text })
        : Response.json({ translations: [{ detected_source_language: String(body?.source_lang ?? "ES"), text: answer.text }] });
    },
  });
  return {
    kind,
    baseUrl: `http://127.0.0.1:${server.port}`,
    key,
    requests,
    next: (text) => void queue.push({ text }),
    refuse: (status) => void queue.push({ status }),
    close: async () => {
      await server.stop(true);
    },
  };
}

export const fakeLibreTranslate = (key = "lt-key-123") => serve("libretranslate", key);
export const fakeDeepl = (key = "deepl-key-456:fx") => serve("deepl", key);

export async function fakeModel(key = "sk-translate-789"): Promise<FakeTranslator> {
  const fake = await fakeOpenAi();
  fake.apiKey = key;
  return {
    kind: "model",
    baseUrl: fake.baseUrl,
    key,
    get requests() {
      return fake.requests.map((r) => ({ path: r.path, headers: r.headers, body: r.body }));
    },
    next: (text) => fake.enqueue({ steps: [{ text }] }),
    // The adapter retries a 5xx once: both attempts fail.
    refuse: (status) => fake.enqueue(...(status >= 500 ? [{ status }, { status }] : [{ status }])),
    close: () => fake.close(),
  };
}
