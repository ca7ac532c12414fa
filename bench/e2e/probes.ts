/**
 * Two probes `bench:e2e` runs before its main push, each on users of its own (`<probe>-<i>@bench.example`):
 *   - cost: the Redis work per user synced end to end (SCIM POST until the platform holds it): client round trips
 *     and commands run inside scripts, net of what the idle bridge does in the same time (MONITOR, private Redis);
 *   - lag: users pushed at a steady rate while the platform answers after a fixed latency; per user, the time
 *     from the bridge's 201 to the platform's `meta.created`, p50 / p95 / max.
 */
import type { Monitor } from "./redis-monitor";
import { perItem } from "./redis-monitor";

export interface ProbeContext {
  /** One SCIM request to the bridge; the parsed body, or undefined on an error status. */
  scim(method: "POST", path: string, body: unknown): Promise<Record<string, unknown> | undefined>;
  /** Users the simulator holds. */
  simUsers(): Promise<number>;
  /** `meta.created` (epoch ms) of the simulator's users, by userName. */
  simCreated(): Promise<Map<string, number>>;
  /** Sets the simulator's latency (ms), keeping its rate limit. */
  simLatency(ms: number): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const userBody = (name: string, i: number) => ({
  schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: `${name}-${i}@bench.example`, displayName: `Probe ${name} ${i}`,
  name: { givenName: "Probe", familyName: `${name} ${i}` }, emails: [{ value: `${name}-${i}@bench.example`, type: "work", primary: true }], active: true,
});

async function untilSimHolds(ctx: ProbeContext, users: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await ctx.simUsers()) < users) {
    if (Date.now() > deadline) throw new Error(`probe: the platform holds ${await ctx.simUsers()}/${users} users after ${timeoutMs / 1000} s`);
    await sleep(50);
  }
}

/** Pushes `n` users (`clients` at once) and prints the Redis work per user. */
export async function costProbe(ctx: ProbeContext, monitor: Monitor, n: number, clients: number): Promise<{ roundTrips: number; scriptCommands: number }> {
  const already = await ctx.simUsers();
  monitor.reset();
  await sleep(3000);
  const idle = monitor.read();
  monitor.reset();
  let next = 0;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (next < n) await ctx.scim("POST", "/Users", userBody("cost", next++));
  }));
  await untilSimHolds(ctx, already + n, 120000);
  // what the bridge records after the platform's answer (the outcome, counters) belongs to the user too
  await sleep(1500);
  const per = perItem(monitor.read(), idle, n);
  const ok = (b: boolean) => (b ? "✓" : "✗");
  const fmt = (xs: Array<[string, number]>) => xs.map(([k, v]) => `${k} ${v.toFixed(1)}`).join(", ");
  console.log(`\nRedis work per user synced end to end (${n} users, ${clients} at once; MONITOR of the private Redis, net of ` +
    `${((idle.roundTrips / idle.ms) * 1000).toFixed(1)} round trips/s and ${((idle.scriptCommands / idle.ms) * 1000).toFixed(1)} script commands/s when idle):`);
  console.log(`  client round trips ${per.roundTrips.toFixed(1)} ${ok(per.roundTrips <= 10)} (goal ≤ 10): ${fmt(per.byClientCommand)}`);
  console.log(`  commands inside scripts ${per.scriptCommands.toFixed(1)} ${ok(per.scriptCommands <= 50)} (goal ≤ 50): ${fmt(per.byScript)}`);
  return per;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** Pushes `n` users at `rate`/s while the platform answers after `latencyMs`; prints the 201-to-platform lag. */
export async function lagProbe(ctx: ProbeContext, n: number, rate: number, latencyMs: number, concurrency: string): Promise<{ p50: number; p95: number; max: number }> {
  await ctx.simLatency(latencyMs);
  const answered = new Map<string, number>();
  const start = Date.now();
  const inFlight: Array<Promise<void>> = [];
  for (let i = 0; i < n; i++) {
    const due = start + (i * 1000) / rate;
    if (due > Date.now()) await sleep(due - Date.now());
    const body = userBody("lag", i);
    inFlight.push(ctx.scim("POST", "/Users", body).then((u) => { if (u) answered.set(body.userName, Date.now()); }));
  }
  await Promise.all(inFlight);
  const pushMs = Date.now() - start;
  const created = await (async () => {
    const deadline = Date.now() + 300000;
    for (;;) {
      const c = await ctx.simCreated();
      if ([...answered.keys()].every((u) => c.has(u))) return c;
      if (Date.now() > deadline) throw new Error(`lag probe: ${[...answered.keys()].filter((u) => !c.has(u)).length} users not on the platform after 300 s`);
      await sleep(500);
    }
  })();
  await ctx.simLatency(0);
  const lags = [...answered].map(([u, t]) => created.get(u)! - t).sort((a, b) => a - b);
  const r = { p50: pct(lags, 50), p95: pct(lags, 95), max: lags[lags.length - 1] };
  console.log(`\nSCIM 201 → platform lag (${n} users pushed at ${rate}/s, achieved ${((n * 1000) / pushMs).toFixed(0)}/s; platform latency ${latencyMs} ms; ` +
    `directory concurrency ${concurrency}): p50 ${r.p50} ms, p95 ${r.p95} ms ${r.p95 < 1000 ? "✓" : "✗"} (goal < 1 s), max ${r.max} ms`);
  return r;
}
