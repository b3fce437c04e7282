// Step 2, answer: the knowledge looked up for the message (under way since the turn stored it),
// then the model's answer with the agent's tools bound to this customer, streamed to the sink.
// In mode voice or video the reply is written for the ear (../../voice-text.ts).
import { boundCustomerOf } from "../../../customers/records.ts";
import type { CallScope } from "../../../ports/tools.ts";
import type { ProviderKind } from "../../llm/types.ts";
import type { Agent } from "../../service.ts";
import type { TurnPorts } from "../../turn-ports.ts";
import { forMode } from "../../voice-text.ts";
import { answer, type AnswerResult } from "../answer.ts";
import type { ChatSink, ChatTurn } from "../chat-turn.ts";
import type { ScoredPassage } from "../knowledge.ts";
import { conversationMessages, systemText } from "../prompt.ts";

export type AnswerPorts = Pick<TurnPorts, "model" | "tools">;

/** What the model said (or that it found no answer: `result.answered`), over which passages, by which kind of provider. */
export interface Answered {
  passages: ScoredPassage[];
  result: AnswerResult;
  provider: ProviderKind;
}

export async function answerStep(ports: AnswerPorts, turn: ChatTurn, agent: Agent, sink: ChatSink): Promise<Answered> {
  const passages = await turn.knowledge;
  const { orgId, conversation, customer } = turn;
  const scope: CallScope = {
    actor: { kind: "customer", endUserId: customer.endUser?.id ?? null, sessionId: conversation.id },
    orgId,
    agentId: agent.id,
    customer: customer.endUser ? boundCustomerOf(customer.endUser) : undefined,
    channel: "chat",
  };
  const [model, listed] = await Promise.all([ports.model(orgId, agent), ports.tools.list(scope)]);
  const provider = forMode(turn.mode, model, turn.message);
  const result = await answer({
    provider,
    system: systemFor(turn, agent),
    messages: conversationMessages(turn.history, { text: turn.message, images: turn.images.length }),
    passages,
    // The runtime lists only what a customer's chat may call (src/tools/registry.ts `denial`).
    tools: listed,
    // A tool may name the session (its audit row, a ticket it opens): the session is written first.
    callTool: async (name, args) => {
      await turn.persisted?.();
      return ports.tools.call(scope, name, args);
    },
    signal: sink.signal,
    language: turn.texts.language,
    say: turn.texts.t,
    emit: sink,
  });
  return { passages, result, provider: provider.kind };
}

function systemFor(turn: ChatTurn, agent: Agent): string {
  const { customer } = turn;
  const endUser = customer.endUser;
  return systemText({
    instructions: agent.instructions,
    agentName: agent.name,
    // What is stored under a merely claimed id was written by whoever claimed it before: the
    // model hears it only for a verified customer, otherwise only what this request says.
    customer: endUser
      ? customer.verified
        ? { name: endUser.name || null, email: endUser.email, verified: true, claims: customer.claims, traits: endUser.traits }
        : { name: null, email: null, verified: false, claims: {}, traits: customer.reported ?? {} }
      : null,
    context: turn.conversation.context,
    behavior: turn.behavior,
    language: turn.texts.language,
  });
}
