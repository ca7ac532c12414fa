/**
 * Measurements of the soak: SCIM request outcomes and latencies per report window, process RSS read from
 * /proc by pid, and the verdict on memory over time.
 */
import fs from "node:fs";

/** SCIM requests of one window. */
export class RequestWindow {
  requests = 0;
  errors = 0;
  readonly latencies: number[] = [];
  readonly unexpected = new Map<string, number>();

  record(ms: number, ok: boolean, what: string): void {
    this.requests++;
    this.latencies.push(ms);
    if (!ok) {
      this.errors++;
      this.unexpected.set(what, (this.unexpected.get(what) ?? 0) + 1);
    }
  }

  /** The 99th percentile latency (nearest rank), ms. */
  p99(): number {
    if (!this.latencies.length) return 0;
    const sorted = [...this.latencies].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)];
  }
}

/** Resident set size of a process in MiB (Linux /proc), or NaN when it is gone. */
export function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** RSS samples of one process after the warm-up. */
export class RssSeries {
  readonly samples: Array<{ t: number; mib: number }> = [];
  constructor(readonly name: string, readonly pid: number) {}

  sample(t: number): number {
    const mib = rssMiB(this.pid);
    if (!Number.isNaN(mib)) this.samples.push({ t, mib });
    return mib;
  }

  /** Least-squares slope in MiB per minute. */
  slopePerMinute(): number {
    const s = this.samples;
    if (s.length < 3) return 0;
    const mt = s.reduce((a, x) => a + x.t, 0) / s.length;
    const mm = s.reduce((a, x) => a + x.mib, 0) / s.length;
    const num = s.reduce((a, x) => a + (x.t - mt) * (x.mib - mm), 0);
    const den = s.reduce((a, x) => a + (x.t - mt) ** 2, 0);
    return den ? (num / den) * 60000 : 0;
  }

  /**
   * Flat: the last sample is within 20 MiB or 15 % of the first (whichever is larger), and the fitted
   * trend would add less than 20 MiB over ten minutes. A steady load must not grow a process's memory.
   */
  verdict(): { first: number; last: number; slope: number; flat: boolean } {
    const first = this.samples[0]?.mib ?? NaN;
    const last = this.samples[this.samples.length - 1]?.mib ?? NaN;
    const slope = this.slopePerMinute();
    const flat = last - first <= Math.max(20, 0.15 * first) && slope * 10 < 20;
    return { first, last, slope, flat };
  }
}
