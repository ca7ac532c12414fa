/**
 * The status page's queue and lag charts, sampled by every worker every 15 s (each minute keeps the
 * highest): the directory's queue depth, and the age of its oldest waiting change — which grows while a
 * directory is paused or its platform is down, when no job finishes to report a lag. An idle directory
 * is not written (a minute with nothing recorded is a 0 on the chart already) and costs one probe.
 */
import type { RedisConnection } from "../../store/connection";
import type { MinuteCounters } from "../../activity/minute-counters";
import type { SyncStateStore } from "../state/sync-state";
import type { AdmissionProbe } from "../admission/admission-store";
import { oldestWaiting } from "./waiting";

const SAMPLE_MS = 15_000;

export interface ChartSamplerDeps {
  redis: RedisConnection;
  keyPrefix: string;
  state: SyncStateStore;
  counters: MinuteCounters;
  /** Backlog and admitted of each directory (one round trip). */
  probe(dirs: string[]): Promise<Map<string, AdmissionProbe>>;
  /** The directories this worker serves. */
  directories(): string[];
}

/** One sample of every served directory. */
export async function sampleCharts(d: ChartSamplerDeps): Promise<void> {
  for (const [id, p] of await d.probe(d.directories())) {
    if (p.backlog + p.admitted === 0) continue;
    await d.counters.max(id, "queue", p.backlog + p.admitted);
    const w = await oldestWaiting(d.redis, d.keyPrefix, id, (await d.state.meta(id)).pausedAt);
    await d.counters.max(id, "lag", w.ageMs);
  }
}

/** Samples every 15 s until the returned timer is cleared. */
export function startChartSampler(d: ChartSamplerDeps): NodeJS.Timeout {
  const timer = setInterval(() => { sampleCharts(d).catch(() => undefined); }, SAMPLE_MS);
  timer.unref();
  return timer;
}
