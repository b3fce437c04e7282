export * from "./core.ts";
export * from "./ratelimit.ts";
export * from "./oauth.ts";
