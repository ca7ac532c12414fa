/**
 * `slotOf` (src/store/key-slot.ts) gives every key the slot ioredis's own function gives it, tagged or not,
 * and keeps one entry per hash tag, never one per key. test/cluster/cluster-connection.test.ts checks the
 * same keys against Redis's CLUSTER KEYSLOT, and that a cluster connection routes by them without MOVED.
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

  it("should keep one entry per hash tag, not one per key, and never more than its bound", () => {
    const tag = `t-${Date.now()}`;
    const before = keptTags();
    for (let i = 0; i < 100; i++) slotOf(`p:{${tag}}:user:${i}`);
    expect(keptTags()).toBe(before + 1);
    for (let i = 0; i < MAX_TAGS + 10; i++) slotOf(`p:{bound-${i}}:k`);
    expect(keptTags()).toBeLessThanOrEqual(MAX_TAGS);
    expect(slotOf(`p:{${tag}}:user:1`)).toBe(calculateSlot(`p:{${tag}}:user:1`));
  });
});
