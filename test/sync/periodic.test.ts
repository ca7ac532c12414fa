/**
 * periodic(): a chore on a timer that never runs beside itself — a tick that comes while the last run
 * is still going does nothing; stop() waits for that run.
 */
import { periodic } from "../../src/sync/periodic";

describe("periodic", () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it("should skip the ticks that come while a run is still going, and run again after it", async () => {
    let runs = 0;
    let running = 0;
    let most = 0;
    let finish: () => void = () => undefined;
    const p = periodic(() => {
      runs++;
      running++;
      most = Math.max(most, running);
      return new Promise<void>((resolve) => { finish = () => { running--; resolve(); }; });
    }, 100);
    await jest.advanceTimersByTimeAsync(100);
    expect(runs).toBe(1);
    await jest.advanceTimersByTimeAsync(1000); // ten ticks while the first run hangs
    expect(runs).toBe(1);
    finish();
    await jest.advanceTimersByTimeAsync(100);
    expect(runs).toBe(2);
    expect(most).toBe(1);
    finish();
    await p.stop();
  });

  it("should go on after a failed run, and stop() should wait for the run in progress", async () => {
    let runs = 0;
    let finish: () => void = () => undefined;
    let ended = false;
    const p = periodic(async () => {
      runs++;
      if (runs === 1) throw new Error("Redis went away");
      await new Promise<void>((resolve) => { finish = resolve; });
      ended = true;
    }, 100);
    await jest.advanceTimersByTimeAsync(200);
    expect(runs).toBe(2);
    let stopped = false;
    const stopping = p.stop().then(() => { stopped = true; });
    await jest.advanceTimersByTimeAsync(500);
    expect(stopped).toBe(false);
    expect(runs).toBe(2); // no tick after stop()
    finish();
    await stopping;
    expect(ended).toBe(true);
  });
});
