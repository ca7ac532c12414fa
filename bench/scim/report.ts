/** Printing of the bench: one table row per server and scenario, ratios, and PASS/FAIL against targets. */
import type { Summary } from "./load";

/** Server-side cost of a run: CPU ms used by the server child (and Redis) during it. */
export interface Cost {
  serverCpuMs: number;
  redisCpuMs?: number;
  /** All of Redis's CPU (ms) during the run, whoever it worked for: with nothing else on that Redis, ours. */
  redisAllCpuMs: number;
  /** CPU (in CPUs, e.g. 0.4) that other work used meanwhile (other processes, Redis serving other clients). */
  otherCpus: number;
  /** Scripts Redis ran for other clients meanwhile. */
  otherScripts: number;
}

const W = 50;
const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits }) : "–");

/** Header of a scenario table. */
export function tableHeader(title: string): void {
  console.log(`\n${title}`);
  console.log(`  ${"server".padEnd(W)}${"requests".padStart(9)}${"req/s".padStart(10)}${"p50 ms".padStart(10)}${"p99 ms".padStart(10)}${"max ms".padStart(10)}   server CPU ms/req`);
}

/** One row: a summary of one server's run of a scenario. */
export function tableRow(label: string, s: Summary, cost?: Cost, requestsForCost = s.count): void {
  const ge = s.abandoned ? "≥" : "";
  let cpu = "";
  if (cost && requestsForCost > 0) {
    cpu = `${fmt(cost.serverCpuMs / requestsForCost, 2)}`;
    if (cost.redisCpuMs !== undefined) cpu += ` (+ redis ${fmt(cost.redisCpuMs / requestsForCost, 2)})`;
  }
  console.log(`  ${label.padEnd(W)}${String(s.count).padStart(9)}${fmt(s.rps, 0).padStart(10)}${(ge + fmt(s.p50)).padStart(10)}${(ge + fmt(s.p99)).padStart(10)}${(ge + fmt(s.max)).padStart(10)}   ${cpu}`);
  const notes: string[] = [];
  if (s.errors) notes.push(`${s.errors} errors`);
  if (cost && cost.otherCpus > 0.1) {
    const redisNote = cost.otherScripts > 0 ? `, Redis ran ${cost.otherScripts.toLocaleString("en-US")} scripts for other clients` : "";
    notes.push(`other work on the machine used ${fmt(cost.otherCpus, 1)} CPU meanwhile${redisNote}: figures may be disturbed`);
  }
  if (s.abandoned) notes.push(`${s.abandoned} still in flight at the time cap, abandoned (their age is counted as their latency: a lower bound)`);
  if (notes.length) console.log(`  ${"".padEnd(W)}${notes.join("; ")}`);
}

/** A target line: PASS/FAIL and what was measured against what. */
export interface Verdict {
  name: string;
  pass: boolean;
  detail: string;
}

/** Prints `ratio` lines and returns a verdict. */
export function verdict(name: string, pass: boolean, detail: string): Verdict {
  console.log(`  → ${pass ? "PASS" : "FAIL"}  ${name}: ${detail}`);
  return { name, pass, detail };
}

/** Ratio line, ours/baseline. */
export function ratioLine(what: string, ours: number, baseline: number): number {
  const r = ours / baseline;
  console.log(`  ratio ours/baseline, ${what}: ${Number.isFinite(r) ? r.toPrecision(3) : "–"}×`);
  return r;
}

/** The median of per-round figures (the mean of the middle two for an even count). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

export { fmt, W as LABEL_WIDTH };
