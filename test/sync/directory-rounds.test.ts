/**
 * DirectoryRounds: one timer per worker process for a per-directory chore (key checks, revivals) instead of
 * a timer per directory (issue 12 item 2).
 */
import { DirectoryRounds } from "../../src/sync/directory-rounds";

describe("DirectoryRounds", () => {
  it("should visit every registered directory once per round, at most `parallel` at once", async () => {
    const visited: string[] = [];
    let running = 0;
    let most = 0;
    const rounds = new DirectoryRounds<string>(60_000, async (item) => {
      most = Math.max(most, ++running);
      await new Promise((r) => setImmediate(r));
      visited.push(item);
      running--;
    }, 3);
    for (let i = 0; i < 10; i++) rounds.add(`d${i}`, `item-${i}`);
    rounds.remove("d4");
    await rounds.runOnce();
    expect(visited.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `item-${i}`).filter((x) => x !== "item-4").sort());
    expect(most).toBe(3);
  });

  it("should visit a directory added with `now` without waiting for the next round", async () => {
    let seen: (id: string) => void = () => undefined;
    const visited = new Promise<string>((resolve) => { seen = resolve; });
    const rounds = new DirectoryRounds<number>(3_600_000, async (_item, id) => seen(id));
    rounds.start();
    rounds.add("late", 1, true);
    expect(await visited).toBe("late");
    await rounds.stop();
  });

  it("should keep going when one directory's visit fails", async () => {
    const visited: string[] = [];
    const rounds = new DirectoryRounds<string>(60_000, async (item) => {
      if (item === "bad") throw new Error("boom");
      visited.push(item);
    }, 1);
    rounds.add("a", "bad");
    rounds.add("b", "good");
    await rounds.runOnce();
    expect(visited).toEqual(["good"]);
  });
});
