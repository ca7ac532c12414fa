/**
 * Scenario 5 of bench/scim: how soon the platform has a single-member change after the PATCH answer.
 * The platform simulator and a bridge `worker` run as child processes for one small workforce directory
 * of their own (`bench-sync`); the server under test is the same `server` child as in the other
 * scenarios. Each measurement PATCHes one member into (or out of) a synced group and polls the
 * simulator's state until its group shows the change; the time from the PATCH answer to that moment is
 * the latency (resolution: the 5 ms poll).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Pool } from "undici";
import { startChild, freePort, IMAGE_WORKER_NODE_ARGS, type ServerChild } from "./children";
import { memberPatch, userRequest } from "./fixtures";
import { idFromBody } from "./scenarios";

export const SYNC_DIRECTORY = "bench-sync";
export const PLATFORM_KEY_ENV = "BENCH_SIM_PLATFORM_KEY";
const PLATFORM_KEY = "bench-sim-platform-key-0001";
const SIM_ADMIN = { header: "x-sim-token", token: "bench-sim-admin" };

interface SimState {
  scim: { users: Array<{ id: string; userName: string }>; groups: Array<{ id: string; displayName: string; members?: Array<{ value: string }> }> };
}

/** The simulator child (started before the server, whose config names its URL). */
export interface Simulator {
  child: ServerChild;
  baseUrl: string;
  state(): Promise<SimState>;
}

export async function startSimulator(root: string, preload: string): Promise<Simulator> {
  const port = await freePort();
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "bench-sim-")), "simulator.json");
  fs.writeFileSync(file, JSON.stringify({
    tenant: { name: "bench" }, apiKeys: [{ name: "bridge", key: PLATFORM_KEY }], deployments: [{ id: 1, name: "production" }], admin: SIM_ADMIN,
  }));
  const loader = pathToFileURL(path.join(root, "node_modules/tsx/dist/loader.mjs")).href;
  const child = await startChild("simulator", ["--import", loader, path.join(root, "src/simulator/main.ts")],
    { PATH: process.env.PATH, SIM_PORT: String(port), SIM_HOST: "127.0.0.1", SIM_CONFIG: file }, port, "/_sim/state", preload);
  return {
    child, baseUrl: `${child.origin}/api`,
    state: async () => {
      const res = await fetch(`${child.origin}/_sim/state`, { headers: { [SIM_ADMIN.header]: SIM_ADMIN.token } });
      if (!res.ok) throw new Error(`simulator state: ${res.status}`);
      return (await res.json()) as SimState;
    },
  };
}

/** The bench-sync directory's config entry (server and worker). */
export function syncDirectoryConfig(tokenHash: string, sim: Simulator): Record<string, unknown> {
  return {
    id: SYNC_DIRECTORY, tokenHashes: [tokenHash], target: "workforce",
    platform: { baseUrl: sim.baseUrl, deploymentId: 1, apiKeyEnv: PLATFORM_KEY_ENV },
    rateLimit: { max: 1000, durationMs: 1000 },
  };
}

/** Starts a worker for the bench-sync directory only (the bench directory's platform is unreachable). */
export async function startWorker(root: string, preload: string, base: Record<string, unknown>, directory: Record<string, unknown>): Promise<ServerChild> {
  const port = await freePort();
  const config = { ...base, directories: [directory], metrics: { workerPort: port } };
  return startChild("worker", [...IMAGE_WORKER_NODE_ARGS, path.join(root, "dist/main.js"), "worker"],
    { PATH: process.env.PATH, SCIM_BRIDGE_CONFIG_JSON: JSON.stringify(config), [PLATFORM_KEY_ENV]: PLATFORM_KEY }, port, "/healthz", preload);
}

async function send(pool: Pool, auth: string, method: string, p: string, body?: string): Promise<{ status: number; text: string }> {
  const res = await pool.request({ method: method as "POST", path: p, body, headers: { authorization: auth, "content-type": "application/scim+json" } });
  return { status: res.statusCode, text: await res.body.text() };
}

async function until<T>(what: string, timeoutMs: number, fn: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Users and one group of the bench-sync directory, synced to the simulator; ids on both sides. */
export interface SyncFixture {
  groupId: string;
  platformGroupId: string;
  /** bridge id → platform id, for users not in the group at the start */
  candidates: Array<{ id: string; platformId: string }>;
}

export async function seedSync(pool: Pool, auth: string, sim: Simulator, tag: string, users: number): Promise<SyncFixture> {
  const base = `/scim/v2/${SYNC_DIRECTORY}`;
  const ids: Array<{ id: string; userName: string }> = [];
  for (let i = 0; i < users; i++) {
    const body = userRequest(i, `sync${tag}`);
    const r = await send(pool, auth, "POST", `${base}/Users`, JSON.stringify(body));
    if (r.status !== 201) throw new Error(`bench-sync user create: ${r.status} ${r.text}`);
    ids.push({ id: idFromBody(r.text)!, userName: String(body.userName) });
  }
  const half = Math.floor(users / 2);
  const g = await send(pool, auth, "POST", `${base}/Groups`, JSON.stringify({ displayName: `bench-sync-${tag}`, members: ids.slice(0, half).map((u) => ({ value: u.id })) }));
  if (g.status !== 201) throw new Error(`bench-sync group create: ${g.status} ${g.text}`);
  const state = await until("the simulator to hold the bench-sync users and group", 120_000, async () => {
    const s = await sim.state();
    const group = s.scim.groups.find((x) => x.displayName === `bench-sync-${tag}`);
    return group && (group.members ?? []).length === half && s.scim.users.length >= users ? s : undefined;
  });
  const platformId = new Map(state.scim.users.map((u) => [u.userName.toLowerCase(), u.id]));
  return {
    groupId: idFromBody(g.text)!,
    platformGroupId: state.scim.groups.find((x) => x.displayName === `bench-sync-${tag}`)!.id,
    candidates: ids.slice(half).map((u) => ({ id: u.id, platformId: platformId.get(u.userName.toLowerCase())! })),
  };
}

/**
 * `n` single-member changes (add one candidate, then remove it, alternately); per change, the ms from
 * the PATCH answer until the simulator's group shows it.
 */
export async function singleMemberLatencies(pool: Pool, auth: string, sim: Simulator, f: SyncFixture, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const who = f.candidates[Math.floor(i / 2) % f.candidates.length];
    const op = i % 2 === 0 ? "add" : "remove";
    const r = await send(pool, auth, "PATCH", `/scim/v2/${SYNC_DIRECTORY}/Groups/${f.groupId}`, memberPatch(op, [who.id]));
    const answered = performance.now();
    if (r.status !== 204) throw new Error(`bench-sync PATCH: ${r.status} ${r.text}`);
    await until(`the platform group to ${op} ${who.platformId}`, 30_000, async () => {
      const g = (await sim.state()).scim.groups.find((x) => x.id === f.platformGroupId);
      const has = (g?.members ?? []).some((m) => m.value === who.platformId);
      return has === (op === "add") ? true : undefined;
    });
    out.push(performance.now() - answered);
  }
  return out;
}
