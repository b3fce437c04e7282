// Where the chat scenario (bench/scenarios/chat.ts) leaves its comparison with an earlier revision
// for docs/quality.md (bench/quality-doc.ts) to quote: apart from both, so neither imports the other.
import { join } from "node:path";
import type { Machine } from "./figures.ts";
import { ROOT } from "./runner.ts";

/** The chat's light-load p99 beside an earlier revision (bench/scenarios/chat.ts, BENCH_REFERENCE), from its latest run. */
export const CHAT_REFERENCE_FILE = join(ROOT, ".cache", "chat-reference.json");

export interface ChatReference {
  at: string;
  reference: string;
  /** Light-load p99 of ours ÷ the reference's, one per round. */
  ratios: number[];
  median: number;
  machine: Machine;
}
