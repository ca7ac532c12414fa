/** inLanes: every item visited in order, never more than `lanes` at once; the first error stops new visits. */
import { inLanes } from "../../src/sync/lanes";

/** A visit that stays open until the test lets it end, so the number running at once can be counted. */
function gatedVisits() {
  const started: number[] = [];
  const open = new Map<number, () => void>();
  let running = 0;
  let peak = 0;
  const visit = (n: number) => new Promise<void>((resolve) => {
    started.push(n);
    running++;
    peak = Math.max(peak, running);
    open.set(n, () => { running--; open.delete(n); resolve(); });
  });
  const settleAll = async (done: Promise<void>) => {
    for (;;) {
      await new Promise((r) => setImmediate(r));
      if (!open.size) break;
      for (const end of [...open.values()]) end();
    }
    await done;
  };
  return { started, visit, settleAll, peak: () => peak };
}

describe("inLanes", () => {
  it("should visit every item in order with at most `lanes` running at once", async () => {
    const g = gatedVisits();
    const items = Array.from({ length: 50 }, (_, i) => i);
    await g.settleAll(inLanes(items, 8, g.visit));
    expect(g.started).toEqual(items);
    expect(g.peak()).toBe(8);
  });

  it("should start no visit after the first error, and throw that error once the running ones end", async () => {
    const visited: number[] = [];
    const run = inLanes([1, 2, 3, 4, 5, 6], 2, async (n) => {
      visited.push(n);
      await new Promise((r) => setImmediate(r));
      if (n === 2) throw new Error("item 2 failed");
      if (n === 3) throw new Error("item 3 failed too");
    });
    await expect(run).rejects.toThrow("item 2 failed");
    expect(visited).toEqual([1, 2, 3]);
  });

  it("should stop starting visits once `stopped` says so", async () => {
    const visited: number[] = [];
    await inLanes([1, 2, 3, 4], 1, async (n) => { visited.push(n); }, () => visited.length >= 2);
    expect(visited).toEqual([1, 2]);
  });

  it("should do nothing for no items", async () => {
    const visit = jest.fn(async () => undefined);
    await inLanes([], 4, visit);
    expect(visit).not.toHaveBeenCalled();
  });
});
