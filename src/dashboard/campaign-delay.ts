// A step's delay as the dashboard writes and reads it: `3d`, `12h`, `30m`, `45s` or `0`.
const UNITS: [string, number][] = [
  ["d", 86_400],
  ["h", 3_600],
  ["m", 60],
  ["s", 1],
];

/** A delay in seconds as the dashboard writes it: the largest exact unit (`3d`, `90m`, `45s`, `0`). */
export function formatDelay(seconds: number): string {
  if (seconds === 0) return "0";
  for (const [unit, size] of UNITS) if (seconds % size === 0) return `${seconds / size}${unit}`;
  return `${seconds}s`;
}

/** `3d`, `12h`, `30m`, `45s` or plain seconds; null when it is not one of those. */
export function parseDelay(text: string): number | null {
  const match = /^(\d{1,9})\s*([dhms]?)$/i.exec(text.trim());
  if (!match) return null;
  const size = UNITS.find(([unit]) => unit === (match[2] || "s").toLowerCase())![1];
  return Number(match[1]) * size;
}
