// Provider-safe tool names (docs/interface.md B.11): readable where possible, always [a-zA-Z0-9_-]{1,64},
// reversible through the per-request map, never two tools on one name.
import { describe, expect, test } from "bun:test";
import { fromReadableProviderName, PROVIDER_TOOL_NAME, ToolNameMap, toProviderName } from "../../../src/agents/llm/names.ts";

describe("tool names", () => {
  test("dotted registry names map readably and back", () => {
    expect(toProviderName("mcp.github.create_issue")).toBe("mcp__github__create_issue");
    expect(toProviderName("custom.refund")).toBe("custom__refund");
    expect(toProviderName("search_docs")).toBe("search_docs");
    expect(fromReadableProviderName("mcp__github__create_issue")).toBe("mcp.github.create_issue");
    expect(fromReadableProviderName("search_docs")).toBe("search_docs");
  });

  test("names that the readable form would confuse get distinct hashed forms", () => {
    const tricky = ["mcp.a.b", "mcp.a__b", "mcp__a.b", "mcp__a__b", "a._b", "a_.b", "a___b", "mcp.x._private", "mcp.x.tool name", "mcp.x.tööl", "_", ""];
    const safe = tricky.map(toProviderName);
    expect(new Set(safe).size).toBe(tricky.length);
    for (const s of safe) expect(s).toMatch(PROVIDER_TOOL_NAME);
    expect(safe[0]).toBe("mcp__a__b");
    // Only the readable form decodes without the map.
    expect(fromReadableProviderName(safe[1]!)).toBeNull();
  });

  test("the 64-character limit: exactly 64 once mapped stays readable, 65 is hashed and fits", () => {
    const at = `mcp.s.${"t".repeat(64 - "mcp__s__".length)}`;
    expect(toProviderName(at)).toBe(`mcp__s__${"t".repeat(56)}`);
    expect(toProviderName(at).length).toBe(64);
    const over = `${at}t`;
    const hashed = toProviderName(over);
    expect(hashed.length).toBeLessThanOrEqual(64);
    expect(hashed).toMatch(PROVIDER_TOOL_NAME);
    expect(hashed).toContain("___");
    // Two long names sharing their first 64 characters still differ.
    expect(toProviderName(`${over}1`)).not.toBe(toProviderName(`${over}2`));
  });

  test("the map reverses offered tools only, including hashed ones", () => {
    const long = `mcp.connector.${"x".repeat(60)}`;
    const map = new ToolNameMap(["search_docs", "mcp.github.create_issue", long]);
    expect(map.toOriginal(map.toProvider(long))).toBe(long);
    expect(map.toOriginal("mcp__github__create_issue")).toBe("mcp.github.create_issue");
    expect(map.toOriginal("mcp__github__delete_repo")).toBeNull();
    expect(map.toOriginal("search_docs")).toBe("search_docs");
  });
});
