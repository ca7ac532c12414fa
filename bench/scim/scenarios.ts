/**
 * The load of each scenario, as LoadSpecs for runLoad: POSTs of new users, `userName eq` lookups,
 * and 256-member group PATCHes.
 */
import type { Pool } from "undici";
import type { ServerChild } from "./children";
import { memberPatch, userName, userRequest } from "./fixtures";
import type { LoadSpec } from "./load";

/** Members per group PATCH. */
export const PATCH_SIZE = 256;

/** One server under test, as the bench drives it. */
export interface Target {
  label: string;
  child: ServerChild;
  pool: Pool;
  auth: string;
  /** SCIM base path, e.g. /scim/v2/bench */
  base: string;
  /** ids of the users created, by index */
  userIds: string[];
}

/** The `id` of a SCIM resource body. */
export function idFromBody(body: string): string | undefined {
  const id = (JSON.parse(body) as { id?: unknown }).id;
  return typeof id === "string" ? id : undefined;
}

/** POSTs users `from`…`to-1` of run `tag` with `concurrency` clients, recording their ids in `t.userIds`. */
export function postUsers(t: Target, from: number, to: number, concurrency: number, tag: string): LoadSpec {
  return {
    concurrency,
    total: to - from,
    expect: [201],
    next: (seq) => ({ method: "POST", path: `${t.base}/Users`, body: JSON.stringify(userRequest(from + seq, tag)), key: from + seq }),
    check: (body, req) => {
      const id = idFromBody(body);
      if (id) t.userIds[req.key!] = id;
      return id !== undefined;
    },
  };
}

/** `userName eq` lookups of random existing users (0…`users`-1 of run `tag`); each answer must hold exactly that user. */
export function lookups(t: Target, users: number, tag: string, concurrency: number, durationMs: number, hardStopMs: number): LoadSpec {
  return {
    concurrency,
    durationMs,
    hardStopMs,
    expect: [200],
    next: () => {
      const i = Math.floor(Math.random() * users);
      return { method: "GET", path: `${t.base}/Users?filter=${encodeURIComponent(`userName eq "${userName(i, tag)}"`)}`, key: i };
    },
    check: (body, req) => {
      const list = JSON.parse(body) as { totalResults?: number; Resources?: Array<{ userName?: string }> };
      return list.totalResults === 1 && list.Resources?.[0]?.userName?.toLowerCase() === userName(req.key!, tag).toLowerCase();
    },
  };
}

/**
 * Each client adds its own 256 non-members (`pool`, sliced per client) to the group, then removes them
 * again, and so on; latencies are tagged "add" and "remove".
 */
export function memberPatches(t: Target, groupId: string, pool: string[], expect: number[], concurrency: number, durationMs: number, hardStopMs: number, total?: number): LoadSpec {
  const bodies = Array.from({ length: concurrency }, (_, c) => {
    const ids = pool.slice(c * PATCH_SIZE, (c + 1) * PATCH_SIZE);
    return { add: memberPatch("add", ids), remove: memberPatch("remove", ids) };
  });
  return {
    concurrency, durationMs, hardStopMs, total, expect,
    next: (_seq, c, round) => {
      const op = round % 2 === 0 ? "add" : "remove";
      return { method: "PATCH", path: `${t.base}/Groups/${groupId}`, body: bodies[c][op], tag: op };
    },
  };
}
