/**
 * Hash slots of keys, computed once per hash tag. ioredis's Cluster client computes the slot of each
 * command's first key with `cluster-key-slot`, which first copies the whole key into an array of UTF-8
 * bytes: a ~90-character key per command, a dozen commands per reconcile. Every key of the bridge carries
 * a hash tag (a directory's `{<prefix>:<dir>}`, a queue shard's `{<prefix>:q<n>}`), so the tags are few
 * and their slots are kept. `npm run bench:cluster-client` (a two-key script, medians of 5 rounds): 11.1
 * µs of client CPU per command with ioredis's Cluster, 8.2 with this, 5.6 on a single node.
 *
 * Redis Cluster specification, hash tags: "IF the key contains a { character. AND IF there is a }
 * character to the right of {. AND IF there are one or more characters between the first occurrence of {
 * and the first occurrence of }. Then instead of hashing the key, only what is between the first
 * occurrence of { and the following first occurrence of } is hashed."
 */
import calculateSlot from "cluster-key-slot";

/** Tags kept at most; past it the memo starts again (a bound, not a cache policy: tags are few). */
export const MAX_TAGS = 65536;

const slots = new Map<string, number>();

/** The hash slot of `key`: the one ioredis's `cluster-key-slot` gives it. */
export function slotOf(key: string | Buffer): number {
  if (typeof key !== "string") return calculateSlot(key);
  const open = key.indexOf("{");
  const close = open < 0 ? -1 : key.indexOf("}", open + 1);
  // no tag, or an empty one ("{}"): the library hashes the key as it does today
  if (close <= open + 1) return calculateSlot(key);
  const tag = key.slice(open + 1, close);
  let slot = slots.get(tag);
  if (slot === undefined) {
    if (slots.size >= MAX_TAGS) slots.clear();
    // the tag holds no "}", so hashing it as a key hashes all of it
    slot = calculateSlot(tag);
    slots.set(tag, slot);
  }
  return slot;
}

/** How many tags are kept (tests). */
export function keptTags(): number {
  return slots.size;
}
