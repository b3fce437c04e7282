// The calibration docs/quality.md prints (bench/calibration.ts): no-answer replies are counted
// apart and kept out of the bins; bins whose share of right answers falls below an earlier one's
// are merged (pool adjacent violators), so the printed curve never falls, every answer is still
// counted, and each merged bin's own share stays visible.
import { describe, expect, test } from "bun:test";
import { type Judged, monotoneBins, noAnswers, rawBins } from "../../bench/calibration.ts";
import { forSeeds } from "../support/seeded.ts";

/** `count` answers at `confidence`, `right` of them from the right page. */
const answers = (confidence: number, count: number, right: number, noAnswer = false): Judged[] =>
  Array.from({ length: count }, (_, i) => ({ confidence, right: i < right, noAnswer }));

describe("calibration", () => {
  test("doc2dial's last run: 0.6–0.7 at 0.80 above 0.7–0.8 at 0.76 becomes one row of both, and so do 1.00 above 0.98", () => {
    const rows = [...answers(0.55, 35, 24), ...answers(0.65, 20, 16), ...answers(0.75, 21, 16), ...answers(0.85, 25, 25), ...answers(0.95, 61, 60)];
    const merged = monotoneBins(rawBins(rows));
    expect(merged.map((b) => b.range)).toEqual(["0.5–0.6", "0.6–0.8", "0.8–1.0"]);
    expect(merged[1]).toEqual({ range: "0.6–0.8", count: 41, share: 32 / 41, own: "0.80, 0.76" });
    expect(merged[2]).toEqual({ range: "0.8–1.0", count: 86, share: 85 / 86, own: "1.00, 0.98" });
  });

  test("no-answer replies are counted apart, not in the bins", () => {
    const rows = [...answers(0.05, 10, 3, true), ...answers(0.05, 4, 2), ...answers(0.15, 6, 6, true)];
    expect(noAnswers(rows)).toEqual({ count: 16, right: 9 / 16 });
    expect(rawBins(rows).map((b) => b.count)).toEqual([4, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(monotoneBins(rawBins(rows))).toEqual([{ range: "0.0–0.1", count: 4, share: 0.5, own: "0.50" }]);
    expect(noAnswers(answers(0.9, 3, 3)).count).toBe(0);
  });

  test("on random answers the merged curve never falls and holds every answer", () => {
    forSeeds(200, (rng) => {
      const rows = Array.from({ length: rng.int(0, 120) }, () => ({ confidence: rng.next(), right: rng.next() < 0.6, noAnswer: rng.next() < 0.2 }));
      const merged = monotoneBins(rawBins(rows));
      for (let i = 1; i < merged.length; i++) expect(merged[i]!.share).toBeGreaterThanOrEqual(merged[i - 1]!.share);
      expect(merged.reduce((s, b) => s + b.count, 0)).toBe(rows.filter((r) => !r.noAnswer).length);
      expect(merged.reduce((s, b) => s + b.share * b.count, 0)).toBeCloseTo(rows.filter((r) => !r.noAnswer && r.right).length, 6);
    });
  });
});
