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

  /** Highest sample in `[from, to)` of the series (fractions of its length). */
  private peak(from: number, to: number): number {
    const s = this.samples.slice(Math.floor(from * this.samples.length), Math.max(Math.floor(from * this.samples.length) + 1, Math.floor(to * this.samples.length)));
    return Math.max(...s.map((x) => x.mib));
  }

  /**
   * A garbage-collected process's RSS is a sawtooth, so single samples mislead: compare the peak of the
   * first third of the run with the peak of the last third. Flat: the later peak is at most 20 MiB or
   * 10 % (whichever is larger) above the earlier one. A steady load must not raise it. The least-squares
   * trend is printed too, but a run shorter than a few GC cycles makes it noise.
   */
  verdict(): { first: number; last: number; slope: number; flat: boolean } {
    if (this.samples.length < 3) return { first: NaN, last: NaN, slope: 0, flat: true };
    const first = this.peak(0, 1 / 3);
    const last = this.peak(2 / 3, 1);
    return { first, last, slope: this.slopePerMinute(), flat: last - first <= Math.max(20, 0.1 * first) };
  }
}
