export * from "./core.ts";
export * from "./ratelimit.ts";
