// A real webhook receiver on loopback for the webhook tests: it answers from a script (status
// codes in order, then 200), records every request, and verifies each with the `standardwebhooks`
// package against the secrets it is told, as a customer's receiver would. The library checks the
// timestamp against the receiver's clock: the receiver's clock is the test app's clock.
import { setSystemTime } from "bun:test";
import { Webhook } from "standardwebhooks";
import type { TestApp } from "../support/app.ts";

export interface Received {
  headers: Record<string, string>;
  body: string;
  json: { type: string; version: number; timestamp: string; data: Record<string, any> };
  /** For each secret the receiver knows, whether the request verified with it. */
  verifiedWith: boolean[];
  /** The app clock when it arrived. */
  at: number;
  path: string;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  secrets: string[];
  /** Status codes to answer next, in order; after them 200. */
  script: number[];
  /** Extra headers for the next answers (e.g. a redirect's Location). */
  answerHeaders: Record<string, string>;
  /** When set, the body of every answer. */
  answerBody?: string;
  /** When set, requests are recorded and then never answered. */
  hang: boolean;
  /** Runs after a request is recorded and before it is answered (e.g. to take the database away meanwhile). */
  beforeAnswer?: () => void | Promise<void>;
  /** Resolves at the next request received. */
  next(): Promise<void>;
  close(): void;
}

export function startReceiver(app: TestApp, host = "127.0.0.1"): Receiver {
  const waiting: (() => void)[] = [];
  const receiver: Receiver = {
    url: "",
    port: 0,
    received: [],
    secrets: [],
    script: [],
    answerHeaders: {},
    hang: false,
    next: () => new Promise<void>((resolve) => waiting.push(resolve)),
    close: () => server.stop(true),
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const body = await request.text();
      const headers = Object.fromEntries(request.headers);
      setSystemTime(app.clock.now);
      const verifiedWith = receiver.secrets.map((secret) => {
        try {
          new Webhook(secret).verify(body, headers);
          return true;
        } catch {
          return false;
        }
      });
      setSystemTime();
      let json: Received["json"];
      try {
        json = JSON.parse(body);
      } catch {
        json = { type: "(not json)", version: 0, timestamp: "", data: {} };
      }
      receiver.received.push({ headers, body, json, verifiedWith, at: app.clock.now.getTime(), path: new URL(request.url).pathname });
      for (const resolve of waiting.splice(0)) resolve();
      if (receiver.hang) return new Promise<Response>(() => {});
      await receiver.beforeAnswer?.();
      const status = receiver.script.shift() ?? 200;
      return new Response(status >= 300 && status < 400 ? null : (receiver.answerBody ?? `answer ${status} ${"x".repeat(3000)}`), {
        status,
        headers: receiver.answerHeaders,
      });
    },
  });
  receiver.port = server.port!;
  receiver.url = `http://${host}:${server.port}/hooks`;
  return receiver;
}

/** Creates an endpoint through the dashboard API and teaches the receiver its secret. */
export async function createEndpoint(app: TestApp, auth: Record<string, string>, receiver: Receiver, eventTypes: string[], url = receiver.url) {
  const res = await app.request("/api/webhooks/endpoints", { headers: auth, json: { url, description: "test receiver", event_types: eventTypes } });
  const body = (await res.json()) as any;
  if (res.status !== 201) throw new Error(`endpoint creation failed: ${res.status} ${JSON.stringify(body)}`);
  receiver.secrets.push(body.secret);
  return body as { id: string; secret: string };
}

export async function deliveries(app: TestApp, auth: Record<string, string>, endpointId: string, query = "") {
  const res = await app.request(`/api/webhooks/endpoints/${endpointId}/deliveries${query}`, { headers: auth });
  if (res.status !== 200) throw new Error(`delivery log: ${res.status} ${await res.text()}`);
  return ((await res.json()) as any).deliveries as any[];
}
