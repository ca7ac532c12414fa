/**
 * Hash slots of keys. ioredis's Cluster client computes the slot of each command's first key with
 * `cluster-key-slot`, which first copies the whole key into an array of UTF-8 bytes: a ~90-character key
 * per command, a dozen commands per reconcile. Every key of the bridge carries a hash tag (a directory's
 * `{<prefix>:<dir>}`, a queue shard's `{<prefix>:q<n>}`), so only the tag is hashed, in place: an ASCII tag
 * straight from the key's characters, any other tag's slot computed once and kept (`npm run
 * bench:cluster-client` measures the client CPU per command).
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

/*
 * Redis Cluster specification, key distribution model: "HASH_SLOT = CRC16(key) mod 16384", where the CRC16
 * is "Name: XMODEM (also known as ZMODEM or CRC-16/ACORN), Width: 16 bit, Poly: 1021 (That is actually
 * x^16 + x^12 + x^5 + 1), Initialization: 0000, Reflect Input byte: False, Reflect Output CRC: False, Xor
 * constant to output CRC: 0000, Output for "123456789": 31C3".
 */
const CRC16 = new Uint16Array(256);
for (let b = 0; b < 256; b++) {
  let crc = b << 8;
  for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  CRC16[b] = crc;
}

/**
 * The slot of the tag `key[from, to)`, hashed from the key's characters in place: no copy of the tag and no
 * lookup keyed by it, which would hash the copied string again. Redis hashes the UTF-8 bytes of a key, so a tag with a
 * character past ASCII goes through the library's function instead (undefined here).
 */
function asciiTagSlot(key: string, from: number, to: number): number | undefined {
  let crc = 0;
  for (let i = from; i < to; i++) {
    const ch = key.charCodeAt(i);
    if (ch > 0x7f) return undefined;
    crc = (CRC16[((crc >> 8) ^ ch) & 0xff] ^ (crc << 8)) & 0xffff;
  }
  return crc & 0x3fff;
}

/** The hash slot of `key`: the one ioredis's `cluster-key-slot` gives it. */
export function slotOf(key: string | Buffer): number {
  if (typeof key !== "string") return calculateSlot(key);
  const open = key.indexOf("{");
  const close = open < 0 ? -1 : key.indexOf("}", open + 1);
  // no tag, or an empty one ("{}"): the library hashes the key as it does today
  if (close <= open + 1) return calculateSlot(key);
  const ascii = asciiTagSlot(key, open + 1, close);
  if (ascii !== undefined) return ascii;
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
