/**
 * `slotOf` (src/store/key-slot.ts) gives every key the slot ioredis's own function gives it, tagged or not,
 * hashes an ASCII tag in place (nothing kept) and keeps one entry per other hash tag, never one per key.
 * test/cluster/cluster-connection.test.ts checks the same keys against Redis's CLUSTER KEYSLOT, and that a
 * cluster connection routes by them without MOVED.
 */
import calculateSlot from "cluster-key-slot";
import { MAX_TAGS, keptTags, slotOf } from "../../src/store/key-slot";
import { LIBRARY_SLOT_DEVIATIONS, SLOT_CASES } from "../helpers/key-slot-cases";

describe("slotOf", () => {
  it("should give the slot ioredis computes, for every shape of key", () => {
    for (const key of [...SLOT_CASES, ...LIBRARY_SLOT_DEVIATIONS]) {
      expect([key, slotOf(key)]).toEqual([key, calculateSlot(key)]);
      // a second call answers from the kept tag, and still agrees
      expect([key, slotOf(key)]).toEqual([key, calculateSlot(key)]);
      expect([key, slotOf(Buffer.from(key))]).toEqual([key, calculateSlot(key)]);
    }
  });

  it("should hash with the specification's CRC16 (its check value: \"123456789\" → 0x31C3)", () => {
    expect(slotOf("{123456789}")).toBe(0x31c3 & 0x3fff);
    expect(slotOf("x{123456789}y")).toBe(0x31c3 & 0x3fff);
  });

  it("should hash an ASCII tag in place, as the library does, for any characters and length", () => {
    const ascii = (n: number) => Array.from({ length: n }, () => String.fromCharCode(Math.floor(Math.random() * 128))).join("");
    for (let i = 0; i < 2000; i++) {
      const tag = ascii(1 + (i % 80)).replace(/[{}]/g, "x");
      const key = `${ascii(i % 7).replace(/[{}]/g, "y")}{${tag}}${ascii(i % 5)}`;
      expect([key, slotOf(key)]).toEqual([key, calculateSlot(key)]);
    }
  });

  it("should keep nothing for an ASCII tag", () => {
    const before = keptTags();
    for (let i = 0; i < 100; i++) slotOf(`p:{ascii-${Date.now()}-${i}}:user:${i}`);
    expect(keptTags()).toBe(before);
  });

  it("should keep one entry per non-ASCII hash tag, not one per key, and never more than its bound", () => {
    const tag = `tä-${Date.now()}`;
    const before = keptTags();
    for (let i = 0; i < 100; i++) slotOf(`p:{${tag}}:user:${i}`);
    expect(keptTags()).toBe(before + 1);
    for (let i = 0; i < MAX_TAGS + 10; i++) slotOf(`p:{bound-é-${i}}:k`);
    expect(keptTags()).toBeLessThanOrEqual(MAX_TAGS);
    expect(slotOf(`p:{${tag}}:user:1`)).toBe(calculateSlot(`p:{${tag}}:user:1`));
  });
});
