// Holds many event streams open for bench/scenarios/conversations.ts, in a process of its own:
// Bun's fetch runs at most BUN_CONFIG_MAX_HTTP_REQUESTS requests at once (256 by default), which
// the parent raises for this process only. Input (argv[2], JSON): {url, key, sessions: string[]},
// one stream per entry. Output, one JSON line each: {"open": n} once every stream answered 200,
// then {"text", "at"} for each message event, `at` in epoch milliseconds (performance.timeOrigin
// + performance.now(), comparable with the parent's clock).
import { createParser } from "eventsource-parser";

const { url, key, sessions } = JSON.parse(process.argv[2]!) as { url: string; key: string; sessions: string[] };
const out = (line: unknown) => process.stdout.write(`${JSON.stringify(line)}\n`);

async function hold(sessionId: string): Promise<void> {
  const res = await fetch(`${url}/api/sdk/conversations/${sessionId}/events`, { headers: { authorization: `Bearer ${key}` } });
  if (res.status !== 200) throw new Error(`events: ${res.status} ${await res.text()}`);
  const parser = createParser({
    onEvent(event) {
      if (event.event === "message") out({ text: (JSON.parse(event.data) as { text: string }).text, at: performance.timeOrigin + performance.now() });
    },
  });
  void (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body!) parser.feed(decoder.decode(chunk, { stream: true }));
    } catch {}
  })();
}

for (let i = 0; i < sessions.length; i += 50) await Promise.all(sessions.slice(i, i + 50).map(hold));
out({ open: sessions.length });
