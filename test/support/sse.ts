// Reading a text/event-stream response in tests, with the same parser the widget uses.
import { createParser, type EventSourceMessage } from "eventsource-parser";

export interface EventReader {
  events: EventSourceMessage[];
  comments: string[];
  /** Resolves with the first event (counting from `from`) that `match` accepts; rejects when the stream ends first. */
  waitFor(match: (e: EventSourceMessage) => boolean, from?: number): Promise<EventSourceMessage>;
  /** Resolves when a comment `match` accepts has arrived. */
  waitForComment(match: (c: string) => boolean): Promise<string>;
  /** Resolves when the body ends (the server closed it). */
  ended: Promise<void>;
  close(): void;
}

export function readEvents(response: Response): EventReader {
  const events: EventSourceMessage[] = [];
  const comments: string[] = [];
  const waiters = new Set<() => void>();
  let done = false;
  const notify = () => {
    for (const w of [...waiters]) w();
  };
  const parser = createParser({
    onEvent: (e) => {
      events.push(e);
      notify();
    },
    onComment: (c) => {
      comments.push(c.trim());
      notify();
    },
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const ended = (async () => {
    try {
      for (;;) {
        const { done: end, value } = await reader.read();
        if (end) break;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch {}
    done = true;
    notify();
  })();
  const until = <T>(check: () => T | undefined): Promise<T> =>
    new Promise((resolve, reject) => {
      const attempt = () => {
        const found = check();
        if (found !== undefined) {
          waiters.delete(attempt);
          resolve(found);
        } else if (done) {
          waiters.delete(attempt);
          reject(new Error("the stream ended first"));
        }
      };
      waiters.add(attempt);
      attempt();
    });
  return {
    events,
    comments,
    waitFor: (match, from = 0) => until(() => events.slice(from).find(match)),
    waitForComment: (match) => until(() => comments.find(match)),
    ended,
    close: () => void reader.cancel().catch(() => {}),
  };
}
