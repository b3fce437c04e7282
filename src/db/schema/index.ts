export * from "./core.ts";
export * from "./ratelimit.ts";
export * from "./oauth.ts";
export * from "./workspace.ts";
export * from "./tools.ts";
export * from "./connectors.ts";
export * from "./inbox.ts";
export * from "./llm.ts";
