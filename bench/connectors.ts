// Preparing and timing the connector rows of `npm run bench` on our server, over HTTP only, as
// the dashboard and an MCP client would: connect, refresh and disconnect third-party MCP servers
// (`/api/integrations/mcp/servers`, docs/interface.md 4.1) with a dashboard session, switch a connector
// tool on for the org's agent (`PATCH /api/agents/{id}/actions`), and call it through our tool
// server (`POST /api/mcp` tools/call `mcp.<slug>.echo`). Nothing here imports the server's code.
import { expectStatus, mcpCall } from "./mcp.ts";
import { messageOf } from "../src/errors.ts";

/** The org feature flag without which connecting is refused (403). */
export const CONNECTORS_FLAG = "mcp_external_servers";

/** What every echo call sends, and so what it must get back. */
export const ECHO_TEXT = "How do I reset my password if I no longer have access to my email?";

const SERVERS = "/api/integrations/mcp/servers";

export interface ConnectAnswer {
  id: string;
  status: string;
  tool_count: number;
  error: string | null;
}

/** The dashboard API of one signed-in member (a session bearer from `POST /api/auth/session`). */
export class Dashboard {
  constructor(
    readonly baseUrl: string,
    private readonly bearer: string,
  ) {}

  private headers() {
    return { "content-type": "application/json", authorization: `Bearer ${this.bearer}` };
  }

  /** POST …/servers: saves the connector, then initialize + tools/list (+ icon) before answering. Throws unless it connected. */
  async connect(name: string, slug: string, url: string): Promise<ConnectAnswer> {
    const res = await expectStatus(
      await fetch(this.baseUrl + SERVERS, { method: "POST", headers: this.headers(), body: JSON.stringify({ name, slug, url, auth_method: "none" }) }),
      201,
      `POST ${SERVERS}`,
    );
    const answer = (await res.json()) as ConnectAnswer;
    if (answer.status !== "connected") throw new Error(`POST ${SERVERS} (${url}): status ${answer.status}: ${answer.error}`);
    return answer;
  }

  /** PATCH …/servers/{id} with `{}`: the handshake and discovery again. Throws unless it stayed connected. */
  async refresh(id: string): Promise<{ status: string; tool_count: number }> {
    const res = await expectStatus(
      await fetch(`${this.baseUrl}${SERVERS}/${id}`, { method: "PATCH", headers: this.headers(), body: "{}" }),
      200,
      `PATCH ${SERVERS}/{id}`,
    );
    const view = (await res.json()) as { status: string; tool_count: number; last_error: string | null };
    if (view.status !== "connected") throw new Error(`PATCH ${SERVERS}/${id}: status ${view.status}: ${view.last_error}`);
    return view;
  }

  /** DELETE …/servers/{id}: the slug is free again. */
  async disconnect(id: string): Promise<void> {
    const res = await expectStatus(
      await fetch(`${this.baseUrl}${SERVERS}/${id}`, { method: "DELETE", headers: this.headers() }),
      204,
      `DELETE ${SERVERS}/{id}`,
    );
    await res.arrayBuffer();
  }

  /** Switches actions on for an agent (connector tools start off). */
  async enableActions(agentId: string, actionIds: string[]): Promise<void> {
    const res = await expectStatus(
      await fetch(`${this.baseUrl}/api/agents/${agentId}/actions`, { method: "PATCH", headers: this.headers(), body: JSON.stringify({ enable: actionIds }) }),
      200,
      "PATCH /api/agents/{id}/actions",
    );
    await res.arrayBuffer();
  }
}

export interface DiscoveryTimes {
  /** POST …/servers, per counted run, in ms as this client saw it. */
  connectMs: number[];
  /** PATCH …/servers/{id}, per counted run. */
  refreshMs: number[];
  /** tool_count of the last connect. */
  tools: number;
}

/**
 * `warmupRuns + runs` sequential rounds against one upstream server, each: connect it under slug
 * `<slugPrefix>_<i>` (timed), refresh it (timed), disconnect it (not timed), so only one of them
 * is live at a time and every slug is new. Only the last `runs` rounds are kept.
 */
export async function timeDiscovery(dashboard: Dashboard, upstreamUrl: string, slugPrefix: string, runs: number, warmupRuns: number): Promise<DiscoveryTimes> {
  const times: DiscoveryTimes = { connectMs: [], refreshMs: [], tools: 0 };
  for (let i = 0; i < warmupRuns + runs; i++) {
    const t0 = performance.now();
    const created = await dashboard.connect(`Bench discovery ${i}`, `${slugPrefix}_${i}`, upstreamUrl);
    const t1 = performance.now();
    await dashboard.refresh(created.id);
    const t2 = performance.now();
    await dashboard.disconnect(created.id);
    times.tools = created.tool_count;
    if (i >= warmupRuns) {
      times.connectMs.push(t1 - t0);
      times.refreshMs.push(t2 - t1);
    }
  }
  return times;
}

/** The JSON-RPC message our tool server gets for a connector's echo tool. */
export function echoCall(slug: string) {
  return { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: `mcp.${slug}.echo`, arguments: { text: ECHO_TEXT } } } as const;
}

/** Checks one echo answer of our tool server: a problem, or undefined when it echoed ECHO_TEXT. */
export function echoProblem(body: string): string | undefined {
  const answer = JSON.parse(body) as { result?: { isError?: boolean; content?: { text?: string }[] } };
  if (!answer.result || answer.result.isError === true || answer.result.content?.[0]?.text !== ECHO_TEXT) return `unexpected answer: ${body.slice(0, 300)}`;
  return undefined;
}

/**
 * Calls the echo tool through our tool server until it answers (within `timeoutMs`): the tool
 * server reads agent toggles from a per-org snapshot kept up to 1 s, so a toggle just switched on
 * can take that long to show. Throws with the last answer if it never does.
 */
export async function awaitEcho(baseUrl: string, bearer: string, slug: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let problem: string | undefined;
    try {
      problem = echoProblem(JSON.stringify(await mcpCall(`${baseUrl}/api/mcp`, echoCall(slug), bearer)));
    } catch (error) {
      problem = messageOf(error);
    }
    if (problem === undefined) return;
    if (Date.now() > deadline) throw new Error(`tools/call mcp.${slug}.echo: ${problem}`);
    await Bun.sleep(100);
  }
}
