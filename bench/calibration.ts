// The calibration docs/quality.md prints (bench/quality-doc.ts): what a support team reads
// "confidence" as — of the answers given at this confidence, how many came from the right page.
//
//   * A no-answer reply (the agent said the articles do not answer and offered a person, with the
//     closest article as its one source) is not an answer: it is counted apart, with how often the
//     article it named was the labelled page, and kept out of the bins. Mixed in, the low bins
//     read the share of refusals that happened to name the right page.
//   * Bins of 0.1 whose share of right answers falls below an earlier bin's are merged with it
//     (pool adjacent violators, weighted by answers: the isotonic regression of "right" on the
//     bins), and the merged range is printed with each bin's own share beside it. Two bins a few
//     answers apart in the wrong order say the data cannot tell them apart, not that confidence
//     means less above; the merged row says exactly that, and hides no answer.
// Pure: no I/O.

export interface Judged {
  confidence: number;
  /** The first source is the labelled page. */
  right: boolean;
  /** The reply said the articles do not answer (the builtin no-answer sentences of the catalogue, src/i18n/en.ts `agent.no_answer*`). */
  noAnswer: boolean;
}

export interface RawBin {
  /** Bin index, 0 (0.0–0.1) to 9 (0.9–1.0). */
  i: number;
  count: number;
  right: number;
}

export interface MergedBin {
  /** "0.6–0.8": the bins merged. */
  range: string;
  count: number;
  share: number;
  /** Each merged bin's own share ("0.80, 0.76"), empty bins left out. */
  own: string;
}

const edge = (i: number) => (i / 10).toFixed(1);
const binOf = (confidence: number) => Math.min(9, Math.max(0, Math.floor(confidence * 10 + 1e-9)));

/** The answers (no-answer replies left out) in bins of 0.1, empty bins included. */
export function rawBins(rows: readonly Judged[]): RawBin[] {
  const bins = Array.from({ length: 10 }, (_, i) => ({ i, count: 0, right: 0 }));
  for (const r of rows) {
    if (r.noAnswer) continue;
    const bin = bins[binOf(r.confidence)]!;
    bin.count++;
    if (r.right) bin.right++;
  }
  return bins;
}

/** Pool adjacent violators over the non-empty bins: every merged share is at least the one before. */
export function monotoneBins(bins: readonly RawBin[]): MergedBin[] {
  const blocks: { from: number; to: number; count: number; right: number; members: RawBin[] }[] = [];
  for (const bin of bins) {
    if (bin.count === 0) continue;
    blocks.push({ from: bin.i, to: bin.i, count: bin.count, right: bin.right, members: [bin] });
    while (blocks.length >= 2) {
      const last = blocks.at(-1)!;
      const before = blocks.at(-2)!;
      if (before.right / before.count <= last.right / last.count) break;
      blocks.splice(-2, 2, {
        from: before.from,
        to: last.to,
        count: before.count + last.count,
        right: before.right + last.right,
        members: [...before.members, ...last.members],
      });
    }
  }
  return blocks.map((b) => ({
    range: `${edge(b.from)}–${edge(b.to + 1)}`,
    count: b.count,
    share: b.right / b.count,
    own: b.members.map((m) => (m.right / m.count).toFixed(2)).join(", "),
  }));
}

/** The no-answer replies: how many, and the share whose named article was the labelled page. */
export function noAnswers(rows: readonly Judged[]): { count: number; right: number } {
  const refused = rows.filter((r) => r.noAnswer);
  return { count: refused.length, right: refused.length === 0 ? Number.NaN : refused.filter((r) => r.right).length / refused.length };
}
