/**
 * `npm run bench:memory` (not a test): Redis memory of one directory, for the sizing notes of
 * docs/operations.md. A private redis-server (free loopback port, temp dir, stopped by PID) gets USERS
 * full-profile users (userName, name, emails, title, enterprise department and employeeNumber), GROUPS
 * groups of MEMBERS members each, and a synced sync state for every user and group (platform id, payload
 * hash, status) — what a synced directory holds. Printed: INFO used_memory before and after, MEMORY USAGE
 * summed per key family, and bytes per user / per membership.
 * Env: USERS (10000), GROUPS (100), MEMBERS (100).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { redisAnswers } from "../../src/cli/local-redis";
import { GroupStore, KEY_FAMILIES, UserStore, createQueueConnection, waitReady } from "../../src/store";
import { SyncStateStore } from "../../src/sync/state/sync-state";
import { freePort } from "../../test/helpers/free-port";

const USERS = Number(process.env.USERS ?? 10000);
const GROUPS = Number(process.env.GROUPS ?? 100);
const MEMBERS = Number(process.env.MEMBERS ?? 100);
const KP = "scimbridge";
const DIR = "sizing";
const ENT = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";

function usedMemory(info: string): number {
  return Number(/used_memory:(\d+)/.exec(info)![1]);
}

async function main(): Promise<void> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "scim-bridge-bench-memory-"));
  const server = spawn(process.env.REDIS_SERVER_BIN || "redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  try {
    while (!(await redisAnswers("127.0.0.1", port, 200))) await sleep(50);
    const redis = createQueueConnection(`redis://127.0.0.1:${port}`);
    await waitReady(redis, 10000);
    const users = new UserStore(redis, KP);
    const groups = new GroupStore(redis, KP);
    const state = new SyncStateStore(redis, KP);
    const before = usedMemory(await redis.info("memory"));
    const ids: string[] = [];
    for (let i = 0; i < USERS; i += 500) {
      await Promise.all(Array.from({ length: Math.min(500, USERS - i) }, async (_, j) => {
        const n = i + j;
        const id = `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
        ids[n] = id;
        await users.write(DIR, id, {
          schemas: ["urn:ietf:params:scim:schemas:core:2.0:User", ENT], userName: `user.${n}@example.com`, active: true,
          name: { givenName: `Given${n}`, familyName: `Family${n}` }, displayName: `Given${n} Family${n}`, title: "Analyst",
          emails: [{ value: `user.${n}@example.com`, type: "work", primary: true }],
          [ENT]: { department: `Dept ${n % 50}`, employeeNumber: String(100000 + n) },
        }, "create");
        await state.update(DIR, "user", id, { platformId: String(500000 + n), hash: "0123456789abcdef0123456789abcdef01234567", status: "synced", syncedAt: new Date().toISOString() });
      }));
    }
    for (let g = 0; g < GROUPS; g++) {
      const gid = `10000000-0000-4000-8000-${String(g).padStart(12, "0")}`;
      const members = ids.slice((g * MEMBERS) % USERS, ((g * MEMBERS) % USERS) + MEMBERS).map((value) => ({ value }));
      await groups.write(DIR, gid, { mode: "create", body: { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: `Group ${g}` },
        memberOps: [{ op: "add", members: members.map((m, i) => ({ ...m, display: `Given${i} Family${i}` })) }] });
      await state.update(DIR, "group", gid, { platformId: String(900000 + g), hash: "0123456789abcdef0123456789abcdef01234567", status: "synced" });
      await state.applyMembers(state.appliedMembersKey(DIR, gid), members.map((m) => m.value), []);
    }
    // the outbox is drained by the dispatcher in a running bridge: leave it out of the steady state
    await redis.del(users.keys(DIR).outbox);
    const after = usedMemory(await redis.info("memory"));

    const perFamily = new Map<string, { keys: number; bytes: number }>();
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "COUNT", 1000);
      cursor = next;
      const sizes = await Promise.all(keys.map((k) => redis.memory("USAGE", k, "SAMPLES", "0") as Promise<number | null>));
      keys.forEach((k, i) => {
        const f = KEY_FAMILIES.find((x) => x.match(KP).test(k))?.pattern ?? "(other)";
        const e = perFamily.get(f) ?? { keys: 0, bytes: 0 };
        e.keys++; e.bytes += sizes[i] ?? 0;
        perFamily.set(f, e);
      });
    } while (cursor !== "0");

    const memberships = GROUPS * MEMBERS;
    console.log(`redis ${(await redis.info("server")).match(/redis_version:(\S+)/)![1]}: ${USERS} users, ${GROUPS} groups x ${MEMBERS} members (${memberships} memberships), synced`);
    console.log(`INFO used_memory: before ${before} B, after ${after} B, delta ${after - before} B = ${((after - before) / USERS).toFixed(0)} B per user (memberships included)`);
    console.log("MEMORY USAGE by key family:");
    let userBytes = 0;
    let membershipBytes = 0;
    for (const [f, e] of [...perFamily].sort((a, b) => b[1].bytes - a[1].bytes)) {
      console.log(`  ${f.padEnd(42)} ${String(e.keys).padStart(7)} keys ${String(e.bytes).padStart(11)} B`);
      if (/:(gm|mg|s:gm):/.test(f)) membershipBytes += e.bytes;
      else if (!/:(g|groups|ix:<un)/.test(f) || /:u:|users|s:<u/.test(f)) userBytes += e.bytes;
    }
    console.log(`per user (user hash, indexes, sync state; memberships apart): ~${(userBytes / USERS).toFixed(0)} B; per membership: ~${(membershipBytes / memberships).toFixed(0)} B`);
    redis.disconnect();
  } finally {
    server.kill("SIGKILL");
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
