// JSON-RPC 2.0 envelopes for the tool server (docs/interface.md 4.2, 7.1): validating one message,
// building responses. Batches are arrays of messages (valid in MCP 2025-03-26). Error codes are
// RPC in src/errors.ts, next to the AppError they map.
import { RPC } from "../errors.ts";

export type RpcId = string | number;

export interface RpcRequest {
  /** Absent for notifications. */
  id?: RpcId;
  method: string;
  params?: Record<string, unknown>;
}

export interface RpcResponse {
  jsonrpc: "2.0";
  id: RpcId | null;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export const success = (id: RpcId, result: unknown): RpcResponse => ({ jsonrpc: "2.0", id, result });
export const failure = (id: RpcId | null, error: { code: number; message: string; data?: unknown }): RpcResponse => ({ jsonrpc: "2.0", id, error });

function validId(id: unknown): id is RpcId {
  return typeof id === "string" ? id.length <= 256 : typeof id === "number" && Number.isSafeInteger(id);
}

/** Checks one message's envelope. MCP forbids null ids; ids are strings or integers. */
export function parseMessage(message: unknown): { request: RpcRequest } | { error: RpcResponse } {
  if (typeof message !== "object" || message === null || Array.isArray(message))
    return { error: failure(null, { code: RPC.INVALID_REQUEST, message: "Invalid Request: a JSON-RPC message must be an object." }) };
  const m = message as Record<string, unknown>;
  const id = "id" in m ? m.id : undefined;
  const replyId = validId(id) ? id : null;
  if (m.jsonrpc !== "2.0") return { error: failure(replyId, { code: RPC.INVALID_REQUEST, message: 'Invalid Request: jsonrpc must be "2.0".' }) };
  if ("id" in m && !validId(id)) return { error: failure(null, { code: RPC.INVALID_REQUEST, message: "Invalid Request: id must be a string or an integer." }) };
  if (typeof m.method !== "string" || m.method === "")
    return { error: failure(replyId, { code: RPC.INVALID_REQUEST, message: "Invalid Request: method must be a non-empty string." }) };
  if ("params" in m && m.params !== undefined && (typeof m.params !== "object" || m.params === null || Array.isArray(m.params)))
    return { error: failure(replyId, { code: RPC.INVALID_PARAMS, message: "Invalid params: params must be an object." }) };
  return { request: { ...(validId(id) ? { id } : {}), method: m.method, ...(m.params ? { params: m.params as Record<string, unknown> } : {}) } };
}
