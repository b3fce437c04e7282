// MCP protocol versions we understand, as server (a client's MCP-Protocol-Version, docs/interface.md A.3)
// and as client of connected servers (the version a server picks in initialize, docs/interface.md B).
export const KNOWN_PROTOCOL_VERSIONS: readonly string[] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

export function isKnownProtocolVersion(version: string): boolean {
  return KNOWN_PROTOCOL_VERSIONS.includes(version);
}
