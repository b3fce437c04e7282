// Triage: requests for a person, routing rules, handoff.
import { describe, expect, test } from "bun:test";
import { acceptsOffer, asksForPerson, ruleMatches, triage, type TriageAgent } from "../../../src/agents/pipeline/triage.ts";

describe("a direct request for a person", () => {
  const asks = [
    "Can I talk to a human?",
    "I want to speak to someone",
    "connect me with an agent please",
    "human please",
    "Agent!",
    "real person",
    "I need a real person",
    "get me a person",
    "Is there a human I can chat with?",
    "transfer me to a representative",
    "LIVE CHAT",
    "Could you put me through to a customer service rep",
    "speak to a manager",
    "I'd like to talk with your support team member",
    "operator",
    "I’d prefer a human",
    "Can I have an agent?",
    "need a human to talk to",
  ];
  for (const message of asks) test(`"${message}"`, () => expect(asksForPerson(message)).toBe(true));

  const not = [
    "How do I reset my password?",
    "I don't want to talk to a human",
    "Do your agents work weekends?",
    "How do I add a person to my team?",
    "what is a support agent license",
    "Can someone explain the pricing?",
    "the agent crashed",
    "Does the human resources module export?",
    "I need a support agent seat for my colleague",
    "We want an agent license for the new team",
  ];
  for (const message of not) test(`not "${message}"`, () => expect(asksForPerson(message)).toBe(false));
});

test("yes to an offer, and only a plain yes", () => {
  for (const yes of ["yes", "Yes please", "sure!", "ok", "please do", "go ahead, thanks"]) expect(acceptsOffer(yes)).toBe(true);
  for (const no of ["yes, but how do I reset it?", "no", "no thanks", "maybe later"]) expect(acceptsOffer(no)).toBe(false);
});

describe("routing rules", () => {
  test("keywords match whole words and phrases, case-insensitively", () => {
    const rule = { match: { keywords: ["refund", "money back"] }, team: "billing" };
    expect(ruleMatches(rule, "I want a REFUND now")).toBe(true);
    expect(ruleMatches(rule, "can I get my money back?")).toBe(true);
    expect(ruleMatches(rule, "refunded items")).toBe(false);
    expect(ruleMatches(rule, "money")).toBe(false);
  });

  test("an intent matches its lexicon; an unknown intent matches its own name", () => {
    expect(ruleMatches({ match: { intent: "billing" }, team: "billing" }, "Why was I charged twice?")).toBe(true);
    expect(ruleMatches({ match: { intent: "billing" }, team: "billing" }, "How do I reset my password?")).toBe(false);
    expect(ruleMatches({ match: { intent: "warranty" }, team: "hardware" }, "Is this under warranty?")).toBe(true);
  });
});

describe("triage", () => {
  const agent: TriageAgent = {
    id: "a1",
    status: "active",
    skills: [],
    routingRules: [
      { match: { keywords: ["invoice"] }, team: "billing" },
      { match: { keywords: ["api", "webhook"] }, team: "developer_support", action: "handoff" },
      { match: { keywords: ["kubernetes"] }, team: "devops", action: "handoff" },
    ],
  };
  const agents: TriageAgent[] = [
    agent,
    { id: "a2", status: "disabled", skills: ["developer support"], routingRules: [] },
    { id: "a3", status: "inactive", skills: ["Developer-Support"], routingRules: [] },
  ];
  const base = { agent, agents, mode: "chat", personOffered: false };

  test("livehelp mode routes to a person whatever the message", () => {
    expect(triage({ ...base, mode: "livehelp", message: "How do I reset my password?" })).toEqual({
      kind: "route",
      action: "live_help",
      team: null,
      reason: "livehelp_mode",
    });
  });
  test("a request for a person routes before any rule", () => {
    expect(triage({ ...base, message: "invoice question, can I talk to a human?" })).toMatchObject({
      kind: "route",
      action: "live_help",
      reason: "person_requested",
    });
  });
  test("yes after an offer routes; yes without one does not", () => {
    expect(triage({ ...base, personOffered: true, message: "yes please" })).toMatchObject({ kind: "route", reason: "offer_accepted" });
    expect(triage({ ...base, message: "yes please" })).toEqual({ kind: "answer" });
  });
  test("the first matching rule routes to its team", () => {
    expect(triage({ ...base, message: "Where is my invoice?" })).toEqual({ kind: "route", action: "route", team: "billing", reason: "rule", rule: 0 });
  });
  test("a handoff goes to an enabled agent with the skill, skipping disabled ones", () => {
    expect(triage({ ...base, message: "My webhook is not firing" })).toEqual({ kind: "handoff", agentId: "a3", skill: "developer_support", rule: 1 });
  });
  test("a handoff nobody has the skill for routes to the team instead", () => {
    expect(triage({ ...base, message: "kubernetes deployment" })).toMatchObject({ kind: "route", action: "route", team: "devops" });
  });
  test("anything else is answered", () => {
    expect(triage({ ...base, message: "How do I reset my password?" })).toEqual({ kind: "answer" });
  });
});
