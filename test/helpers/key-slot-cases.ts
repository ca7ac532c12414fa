/**
 * Keys of every shape the hash-tag rule distinguishes, and keys the bridge builds: test/store/key-slot.test.ts
 * checks `slotOf` against ioredis's own function on them, test/cluster/cluster-connection.test.ts against
 * Redis's CLUSTER KEYSLOT.
 */
export const SLOT_CASES = [
  "plain", "", "{}", "a{}b", "{a", "a}", "a{b", "{a}", "x{a}y", "x{a}{b}", "{{a}}", "a{b{c}d}",
  "{user1000}.following", "foo{{bar}}zap", "foo{bar}{zap}",
  "scim:{d0001}:s:u:2e9de570-0391-48f3-a2b7-8dea95910a8f", "{scim:q3}:sync:wait", "scim:acct:3fbabd0b:owner:u",
  "é{ünïcödé}x", "{日本}", "a{😀}b", "{\u00ff}",
];

/**
 * Keys that ioredis's `cluster-key-slot` 1.1.1 hashes differently from Redis: an empty tag followed by a
 * later "}" (Redis hashes the whole key; the library hashes what follows the empty tag). ioredis sends such
 * a command to the wrong master, which answers MOVED, and ioredis follows. `slotOf` routes them as ioredis
 * does; no key of the bridge has an empty tag.
 */
export const LIBRARY_SLOT_DEVIATIONS = ["a{}b}", "foo{}{bar}"];
