/**
 * What "heavy" does to the server in each scenario of bench/isolation, and how "victim" is measured
 * beside it: victim's clients run in one-second closed-loop slices for as long as the heavy side runs, so
 * every victim request of a scenario happened while the heavy work was going on.
 */
import type { Pool } from "undici";
import { runLoad, type LoadResult, type LoadSpec } from "../scim/load";
import { PATCH_SCHEMA, userName } from "../scim/fixtures";

/** The worst filter the default limits let through: `terms` `co` comparisons on scanned attributes, `maxLength` characters, matching nothing. */
export function worstFilter(seq: number, maxLength: number, terms: number): string {
  const attrs = ["userName", "name.familyName", "emails.value", "title", "displayName", "name.givenName", "nickName", "locale"];
  const per = Math.floor((maxLength - 10) / terms) - 24;
  const filter = Array.from({ length: terms }, (_, i) => `${attrs[i % attrs.length]} co "${`zq${seq}x${i}`.padEnd(per, "q")}"`).join(" or ");
  if (filter.length > maxLength) throw new Error(`worst filter is ${filter.length} characters, over ${maxLength}`);
  return filter;
}

/** victim's load: `userName eq` lookups and `GET /Users?count=1`, alternately. */
export function victimLoad(base: string, clients: number, users: number, tag: string, durationMs: number): LoadSpec {
  return {
    concurrency: clients, durationMs, hardStopMs: durationMs + 20_000, expect: [200],
    next: (seq) => (seq % 2 === 0
      ? { method: "GET", path: `${base}/Users?filter=${encodeURIComponent(`userName eq "${userName(seq % users, tag)}"`)}` }
      : { method: "GET", path: `${base}/Users?count=1` }),
  };
}

/** heavy: worst-case filters through POST /Users/.search. */
export function filterLoad(base: string, clients: number, durationMs: number): LoadSpec {
  return {
    concurrency: clients, durationMs, hardStopMs: durationMs + 60_000, expect: [200], honourRetryAfter: true,
    next: (seq) => ({ method: "POST", path: `${base}/Users/.search`, body: JSON.stringify({ filter: worstFilter(seq, 4096, 64), count: 10 }) }),
    check: (body) => (JSON.parse(body) as { totalResults?: number }).totalResults === 0,
  };
}

/** heavy: `GET /Groups/<id>` of the big group, members and all. */
export function groupReadLoad(base: string, clients: number, groupId: string, members: number, durationMs: number): LoadSpec {
  return {
    concurrency: clients, durationMs, hardStopMs: durationMs + 120_000, expect: [200], honourRetryAfter: true,
    next: () => ({ method: "GET", path: `${base}/Groups/${groupId}` }),
    check: (body) => (JSON.parse(body) as { members?: unknown[] }).members?.length === members,
  };
}

/**
 * heavy: PATCHes of `ops` operations each (one member per operation), every client on its own slice of
 * the users, adding them in one round and removing them in the next. 204 is applied; 400 `tooMany` is
 * the server's cap of operations per PATCH, counted apart.
 */
export function bigPatchLoad(base: string, clients: number, groupId: string, userIds: string[], ops: number, durationMs: number): LoadSpec {
  const bodies = Array.from({ length: clients }, (_, c) => (["add", "remove"] as const).map((op) => JSON.stringify({
    schemas: [PATCH_SCHEMA],
    Operations: userIds.slice(c * ops, (c + 1) * ops).map((value) => ({ op, path: "members", value: [{ value }] })),
  })));
  return {
    concurrency: clients, durationMs, hardStopMs: durationMs + 120_000, expect: [204], honourRetryAfter: true,
    next: (_seq, client, round) => ({ method: "PATCH", path: `${base}/Groups/${groupId}`, body: bodies[client][round % 2] }),
  };
}

/** The member PATCH bodies of a remove of every member and a re-add of `memberIds` in PATCHes of `perPatch`. */
export function removeAndReAdd(memberIds: string[], perPatch: number): { clear: string; adds: string[] } {
  const adds: string[] = [];
  for (let i = 0; i < memberIds.length; i += perPatch) {
    adds.push(JSON.stringify({ schemas: [PATCH_SCHEMA], Operations: [{ op: "add", path: "members", value: memberIds.slice(i, i + perPatch).map((value) => ({ value })) }] }));
  }
  return { clear: JSON.stringify({ schemas: [PATCH_SCHEMA], Operations: [{ op: "remove", path: "members" }] }), adds };
}

/** Merges victim's one-second slices into one result. */
function merge(into: LoadResult, r: LoadResult): void {
  into.done += r.done;
  into.elapsedMs += r.elapsedMs;
  into.abandoned += r.abandoned;
  for (const [k, v] of r.latencies) into.latencies.set(k, [...(into.latencies.get(k) ?? []), ...v]);
  for (const [k, v] of r.abandonedAges) into.abandonedAges.set(k, [...(into.abandonedAges.get(k) ?? []), ...v]);
  for (const [k, v] of r.errors) into.errors.set(k, (into.errors.get(k) ?? 0) + v);
}

/** Runs victim's load in one-second slices until `heavy` settles; returns both results. */
export async function beside<T>(pool: Pool, auth: string, victim: (ms: number) => LoadSpec, heavy: Promise<T>): Promise<{ victim: LoadResult; heavy: T }> {
  let settled = false;
  const h = heavy.finally(() => { settled = true; });
  const total: LoadResult = { done: 0, elapsedMs: 0, latencies: new Map(), errors: new Map(), abandoned: 0, abandonedAges: new Map() };
  while (!settled) merge(total, await runLoad(pool, auth, victim(1000)));
  return { victim: total, heavy: await h };
}

/** Samples a process's RSS every 100 ms until stopped; returns the largest seen (MiB). */
export function rssPeak(read: () => number): () => number {
  let peak = read();
  const timer = setInterval(() => { try { peak = Math.max(peak, read()); } catch { /* gone */ } }, 100);
  return () => { clearInterval(timer); return peak; };
}

/** Requests answered 503 in some results. */
export function count503(...rs: LoadResult[]): number {
  return rs.reduce((n, r) => n + (r.errors.get("HTTP 503") ?? 0), 0);
}
