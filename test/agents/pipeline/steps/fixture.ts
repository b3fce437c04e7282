// What the step tests share: an app on the per-file database, an org with the chat knowledge base,
// the turn's ports bound to the app's deps as the composition root binds them, and a turn built
// from a real conversation — the steps are called directly, with a sink that records what they emit.
import type { ConversationMessage, Reply } from "../../../../src/conversations/transcript.ts";
import type { ChatCustomer, ChatSink, ChatTurn, Decided } from "../../../../src/agents/pipeline/chat-turn.ts";
import type { TriageDecision } from "../../../../src/agents/pipeline/triage.ts";
import { type TurnPorts, turnPorts } from "../../../../src/agents/turn-ports.ts";
import { createTestApp, type TestApp } from "../../../support/app.ts";
import { type ChatOrg, seedChatOrg } from "../../../support/chat.ts";

export interface StepsWorld {
  app: TestApp;
  org: ChatOrg;
  ports: TurnPorts;
}

export async function stepsWorld(env: Record<string, string> = {}): Promise<StepsWorld> {
  const app = await createTestApp(env);
  const org = await seedChatOrg(app);
  return { app, org, ports: turnPorts(app.deps) };
}

export interface TurnOptions {
  message: string;
  history?: ConversationMessage[];
  behavior?: string;
  mode?: string;
  chargeTicket?: () => Promise<void>;
  aiAnswersDuringHandoff?: boolean;
  /** Anonymous when absent. */
  customer?: ChatCustomer;
}

/** A turn on a new conversation whose first message is `message`; its knowledge looked up as the turn does. */
export async function newTurn(world: StepsWorld, options: TurnOptions): Promise<ChatTurn & { sessionId: string }> {
  const { ports, org } = world;
  const agent = (await ports.agents.get(org.org_id))!;
  const mode = options.mode ?? "chat";
  const customer = options.customer ?? { endUser: null, verified: false, claims: {} };
  const { conversation, sessionId } = await ports.sessions.start({
    orgId: org.org_id,
    party: { endUserId: customer.endUser?.id ?? null },
    agentId: agent.id,
    mode,
    firstMessage: { text: options.message, images: [], mode },
    language: "en",
  });
  return {
    sessionId,
    orgId: org.org_id,
    agent,
    conversation,
    customer,
    message: options.message,
    texts: await ports.languages.texts(org.org_id, "en"),
    images: [],
    mode,
    behavior: options.behavior,
    history: options.history ?? [],
    knowledge: ports.retrieve(org.org_id, options.message),
    chargeTicket: options.chargeTicket,
    aiAnswersDuringHandoff: options.aiAnswersDuringHandoff,
  };
}

/** Stores the agent's reply to `turn` as the turn does (a ticket it names becomes the conversation's). */
export async function storeReply(world: StepsWorld, turn: ChatTurn, reply: Partial<Reply> & { text: string }): Promise<void> {
  await world.ports.sessions.storeReply(turn.conversation, {
    agentId: turn.agent.id,
    actions: [],
    sources: [],
    confidence: 1,
    routing: null,
    status: "complete",
    ...reply,
  });
}

/** The same conversation, a later message: it and its history read again, as stored now. */
export async function nextTurn(world: StepsWorld, turn: ChatTurn & { sessionId: string }, options: TurnOptions): Promise<ChatTurn & { sessionId: string }> {
  const conversation = (await world.ports.sessions.find(turn.orgId, turn.sessionId, { endUserId: turn.customer.endUser?.id ?? null }))!;
  return {
    ...turn,
    conversation,
    message: options.message,
    behavior: options.behavior,
    history: options.history ?? (await world.ports.sessions.history(conversation)),
    knowledge: world.ports.retrieve(turn.orgId, options.message),
    chargeTicket: options.chargeTicket,
    aiAnswersDuringHandoff: options.aiAnswersDuringHandoff,
  };
}

export const decided = (turn: ChatTurn, decision: TriageDecision): Decided => ({ agent: turn.agent, decision });

/** A sink that keeps what it is told, in order. */
export function recordingSink(): ChatSink & { texts: string[]; actions: any[]; events: string[] } {
  const sink = {
    texts: [] as string[],
    actions: [] as any[],
    events: [] as string[],
    text(text: string) {
      sink.texts.push(text);
      sink.events.push("text");
    },
    action(action: unknown) {
      sink.actions.push(action);
      sink.events.push(`action:${(action as { type: string }).type}`);
    },
    signal: new AbortController().signal,
  };
  return sink;
}
