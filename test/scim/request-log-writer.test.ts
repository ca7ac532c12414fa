/**
 * The request log's writer: the entries of one directory answered while its previous batch is being
 * written wait for that write and then go together in one call, so the calls do not grow with the load.
 */
import { createLogger } from "../../src/observability/logger";
import { RequestLogWriter } from "../../src/scim/request-log/request-log-writer";
import type { RequestLogStore } from "../../src/scim/request-log/request-log-store";
import type { NewRequestLogEntry } from "../../src/scim/request-log/request-log-entry";

const LIMITS = { maxAgeDays: 30, maxMegabytes: 50 };
const entry = (requestId: string): NewRequestLogEntry => ({ at: new Date().toISOString(), requestId, method: "POST", path: "/Users", status: 201, durationMs: 1 });
const turn = () => new Promise((r) => setImmediate(r));

it("should write the entries answered during a write together once it answered, one call per directory", async () => {
  const calls: Array<{ dir: string; ids: string[] }> = [];
  let answer!: () => void;
  const store = {
    appendMany: (dir: string, entries: NewRequestLogEntry[]) => {
      calls.push({ dir, ids: entries.map((e) => e.requestId) });
      return new Promise<string>((resolve) => { answer = () => resolve("1-0"); });
    },
  } as unknown as RequestLogStore;
  const writer = new RequestLogWriter(store, createLogger("silent"));
  writer.add("d", entry("a"), LIMITS);
  await turn();
  expect(calls).toEqual([{ dir: "d", ids: ["a"] }]);
  writer.add("d", entry("b"), LIMITS);
  await turn();
  writer.add("d", entry("c"), LIMITS);
  await turn();
  expect(calls).toHaveLength(1); // b and c wait for a's write
  answer();
  await turn();
  await turn();
  expect(calls).toEqual([{ dir: "d", ids: ["a"] }, { dir: "d", ids: ["b", "c"] }]);
});
