/**
 * Config objects that refuse keys they do not know. A misspelt key (`rateLimt`, `sync.attemps`) would
 * otherwise be dropped silently and the bridge would run on the default; instead the key is named
 * together with the nearest key the object does have ("did you mean `rateLimit`?").
 */
import { z } from "zod";

/** Edit distance (insertions, deletions, substitutions) between two strings. */
function levenshtein(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

/** The valid key nearest to `key` (case-insensitive), when it is close enough to be a typo of it. */
export function nearestKey(key: string, valid: readonly string[]): string | undefined {
  let best: { k: string; d: number } | undefined;
  for (const k of valid) {
    const d = levenshtein(key.toLowerCase(), k.toLowerCase());
    if (!best || d < best.d) best = { k, d };
  }
  return best && best.d <= Math.max(2, Math.floor(key.length / 3)) ? best.k : undefined;
}

/**
 * The message of an unknown-keys issue: for each key the nearest valid key when there is one, else the
 * valid keys. With one key the formatter puts the key in the path (`sync.attemps: unknown key; did you
 * mean \`attempts\`?`).
 */
export function unknownKeysMessage(keys: readonly string[], valid: readonly string[]): string {
  const near = keys.map((k) => nearestKey(k, valid));
  const listed = `expected one of: ${valid.join(", ")}`;
  if (keys.length === 1) return `unknown key; ${near[0] ? `did you mean \`${near[0]}\`?` : listed}`;
  const named = keys.map((k, i) => `\`${k}\`${near[i] ? ` (did you mean \`${near[i]}\`?)` : ""}`).join(", ");
  return `unknown keys ${named}${near.every(Boolean) ? "" : `; ${listed}`}`;
}

/** `z.strictObject` whose unknown-key message names the nearest valid key. */
export function strictObject<T extends z.core.$ZodLooseShape>(shape: T) {
  const valid = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) => (issue.code === "unrecognized_keys" ? unknownKeysMessage(issue.keys, valid) : undefined),
  });
}
