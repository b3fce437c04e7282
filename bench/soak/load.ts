// The soak's mixed load: closed-loop workers, each picking an operation by weight and the next
// instance that is up (as a load balancer that follows /readyz would), recording every request's
// start, duration and outcome, and every write the service acknowledged with a 2xx — the list the
// invariants later look for in the database.
import { SignJWT } from "jose";
import type { Instance } from "./instances.ts";
import type { SoakOrg } from "./setup.ts";

export interface Sample {
  /** Start, in ms since the load began. */
  at: number;
  ms: number;
  op: string;
  /** HTTP status; 0 when no answer came (connection refused or cut). */
  status: number;
  /** A 503 with Retry-After: a correct refusal, not an error. */
  refusal: boolean;
  /** A 2xx whose body says the work failed (a stream ending in its error record, a JSON-RPC error). */
  failedBody: boolean;
  instance: string;
}

export interface Acks {
  chatSessions: string[];
  identified: string[];
  events: string[];
  enrolled: string[];
  tickets: string[];
  messages: string[];
}

export interface Load {
  samples: Sample[];
  acks: Acks;
  stop(): Promise<void>;
}

type Op = (ctx: { base: string; n: number }) => Promise<{ res: Response; failedBody?: boolean; ack?: () => void }>;

const WEIGHTS: [string, number][] = [
  ["chat", 3],
  ["chat_stream", 3],
  ["mcp_search", 2],
  ["mcp_note", 1],
  ["identify", 2],
  ["events", 2],
  ["enrol", 1],
  ["ticket", 1],
  ["reply", 1],
];

export function startLoad(org: SoakOrg, instances: Instance[], options: { workers: number; pauseMs: number; start: number }): Load {
  const samples: Sample[] = [];
  const acks: Acks = { chatSessions: [], identified: [], events: [], enrolled: [], tickets: [], messages: [] };
  const key = { authorization: `Bearer ${org.widgetKey}`, "content-type": "application/json" };
  const secret = new TextEncoder().encode(org.identitySecret);
  const userToken = (claims: Record<string, string>) => new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setExpirationTime("15m").sign(secret);
  const post = (url: string, headers: Record<string, string>, body: unknown) =>
    fetch(url, { method: "POST", headers, body: JSON.stringify(body), signal: AbortSignal.timeout(120_000) });
  const mcp = (base: string, name: string, args: Record<string, unknown>, n: number) =>
    post(
      `${base}/api/mcp`,
      { authorization: `Bearer ${org.accessToken}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      { jsonrpc: "2.0", id: n, method: "tools/call", params: { name, arguments: args } },
    );
  const ops: Record<string, Op> = {
    async chat({ base }) {
      const res = await post(`${base}/api/sdk/chat`, key, { message: "How do I reset my password?", user_id: "anonymous" });
      const body = res.ok ? ((await res.json()) as { session_id: string }) : null;
      return { res, ack: () => acks.chatSessions.push(body!.session_id) };
    },
    async chat_stream({ base }) {
      const res = await post(`${base}/api/sdk/chat/stream`, key, { message: "Where do I reset my password?" });
      if (!res.ok) return { res };
      const text = await res.text();
      const complete = text.includes("\x1e__ACTIONS__");
      return { res, failedBody: !complete, ack: () => acks.chatSessions.push(res.headers.get("x-session-id")!) };
    },
    async mcp_search({ base, n }) {
      const res = await mcp(base, "search_docs", { query: "password" }, n);
      const body = res.ok ? ((await res.json()) as any) : null;
      return { res, failedBody: !!body && (body.error !== undefined || body.result?.isError === true) };
    },
    async mcp_note({ base, n }) {
      const res = await mcp(base, "inbox_add_note", { ticket: org.noteTicket, body: `Soak note ${n}` }, n);
      const body = res.ok ? ((await res.json()) as any) : null;
      const failed = !!body && (body.error !== undefined || body.result?.isError === true);
      const id = failed || !body ? undefined : (body.result?.structuredContent?.id ?? JSON.parse(body.result?.content?.[0]?.text ?? "{}").id);
      return { res, failedBody: failed || (res.ok && !id), ack: () => acks.messages.push(id) };
    },
    async identify({ base, n }) {
      const user_id = `soak-i-${n}`;
      const res = await post(`${base}/api/sdk/users/identify`, key, {
        user_id,
        user_token: await userToken({ user_id }),
        email: `${user_id}@example.com`,
        name: `Soak ${n}`,
      });
      const body = res.ok ? ((await res.json()) as { id: string }) : null;
      return { res, ack: () => acks.identified.push(body!.id) };
    },
    async events({ base, n }) {
      const id = `soak-e-${n}`;
      const res = await post(`${base}/api/sdk/events`, key, { events: [{ name: "soak_event", properties: { soak_id: id } }], anonymous_id: `anon-${n}` });
      return { res, ack: () => acks.events.push(id) };
    },
    async enrol({ base, n }) {
      const user_id = `soak-s-${n}`;
      const res = await post(`${base}/api/sdk/series`, key, {
        campaign: "soak-welcome",
        action: "enroll",
        user_id,
        user_token: await userToken({ user_id, email: `${user_id}@example.com`, name: `Series ${n}` }),
      });
      const body = res.ok ? ((await res.json()) as { customer_id: string }) : null;
      return { res, ack: () => acks.enrolled.push(body!.customer_id) };
    },
    async ticket({ base, n }) {
      const res = await post(`${base}/api/sdk/tickets/create`, key, {
        subject: `Soak ticket ${n}`,
        message: "Something is not working.",
        email: `soak-t-${n}@example.com`,
      });
      const body = res.ok ? ((await res.json()) as { id: string }) : null;
      return { res, ack: () => acks.tickets.push(body!.id) };
    },
    async reply({ base, n }) {
      const ticket = acks.tickets[n % Math.max(1, acks.tickets.length)] ?? org.noteTicket;
      const res = await post(
        `${base}/api/tickets/${ticket}/replies`,
        { authorization: `Bearer ${org.session}`, "content-type": "application/json" },
        { body: `Soak reply ${n}` },
      );
      const body = res.ok ? ((await res.json()) as { id: string }) : null;
      return { res, ack: () => acks.messages.push(body!.id) };
    },
  };
  const total = WEIGHTS.reduce((s, [, w]) => s + w, 0);
  const pick = () => {
    let r = Math.random() * total;
    for (const [name, w] of WEIGHTS) if ((r -= w) < 0) return name;
    return WEIGHTS[0]![0];
  };
  let running = true;
  let counter = 0;
  let next = 0;
  async function worker() {
    while (running) {
      const live = instances.filter((i) => i.up);
      if (live.length === 0) {
        await Bun.sleep(100);
        continue;
      }
      const inst = live[next++ % live.length]!;
      const op = pick();
      const n = ++counter;
      const t0 = performance.now();
      let status = 0;
      let refusal = false;
      let failedBody = false;
      try {
        const out = await ops[op]!({ base: inst.url, n });
        status = out.res.status;
        refusal = status === 503 && out.res.headers.has("retry-after");
        failedBody = out.failedBody ?? false;
        if (out.res.ok && !failedBody) out.ack?.();
        else if (!out.res.bodyUsed) await out.res.arrayBuffer().catch(() => {});
      } catch {
        status = status || 0;
      }
      samples.push({ at: t0 - options.start, ms: performance.now() - t0, op, status, refusal, failedBody, instance: inst.name });
      if (options.pauseMs > 0) await Bun.sleep(options.pauseMs);
    }
  }
  const workers = Array.from({ length: options.workers }, () => worker());
  return {
    samples,
    acks,
    async stop() {
      running = false;
      await Promise.all(workers);
    },
  };
}
