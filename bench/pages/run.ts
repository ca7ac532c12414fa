/**
 * bench/pages — the first page of Okta's group import, `GET /Groups?count=100` (members included), over a
 * directory of BENCH_GROUPS (23) groups holding BENCH_MEMBERSHIPS (100,000) memberships of BENCH_USERS
 * (5,000) users, side by side in one run:
 *
 *   baseline: the index page, `startIndex=1&count=100` — every group with every member (what Okta asks;
 *             index pages keep `count`, since Okta advances startIndex by 100 whatever itemsPerPage says);
 *   ours:     the RFC 9865 cursor page, `cursor=&count=100`, which ends once it carries
 *             `scim.maxPageMembers` (BENCH_PAGE_MEMBERS, 10,000) members.
 *
 * BENCH_ROUNDS (5) rounds, the two alternating which goes first; per round the time to the last byte and the
 * answer's size; the median of the per-round ratios ours/baseline. The server is this process's SCIM app on
 * a redis-server of the bench's own (free port, no persistence), stopped at the end.
 * Run: `npm run bench:pages`.
 */
import type { AddressInfo } from "node:net";
import { loadConfig } from "../../src/config/load";
import { hashToken } from "../../src/auth/token";
import { createScimApp } from "../../src/scim/app";
import { GroupStore, largeGroups, UserStore, createStoreConnection, waitReady } from "../../src/store";
import { createLogger } from "../../src/observability/logger";
import { startPrivateRedis, type PrivateRedis } from "../isolation/private-redis";
import { envNumber } from "../scim/harness";
import { median } from "../scim/report";

const USERS = envNumber("BENCH_USERS", 5000);
const GROUPS = envNumber("BENCH_GROUPS", 23);
const MEMBERSHIPS = envNumber("BENCH_MEMBERSHIPS", 100_000);
const ROUNDS = envNumber("BENCH_ROUNDS", 5);
const PAGE_MEMBERS = envNumber("BENCH_PAGE_MEMBERS", 10_000);
const TOKEN = "bench-pages-token";

async function main(pr: PrivateRedis): Promise<void> {
  const prefix = `bench-pages-${process.pid}`;
  const config = loadConfig({
    env: { REDIS_URL: pr.url },
    overrides: {
      redis: { keyPrefix: prefix },
      log: { level: "silent" },
      scim: { maxPageMembers: PAGE_MEMBERS, maxConcurrentRequests: 1000 },
      directories: [{ id: "bench", tokenHashes: [hashToken(TOKEN)], target: "workforce", platform: { baseUrl: "http://127.0.0.1:1/api", deploymentId: 1, apiKeyEnv: "UNUSED_KEY" } }],
    },
  });
  const redis = createStoreConnection(config.redis);
  await waitReady(redis);
  const users = new UserStore(redis, prefix);
  const groups = new GroupStore(redis, prefix, config.scim.maxGroupMembers, config.redis.writeSettleMs, undefined, largeGroups(config));
  const app = createScimApp({ config, users, groups, logger: createLogger("silent") });
  const server = app.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/scim/v2/bench`;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(base + path, { method, headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/scim+json" }, ...(body ? { body: JSON.stringify(body) } : {}) });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
    return text;
  };
  try {
    process.stdout.write(`seeding ${USERS} users, ${GROUPS} groups, ${MEMBERSHIPS} memberships… `);
    const ids: string[] = [];
    for (let i = 0; i < USERS; i += 25) {
      const batch = await Promise.all(Array.from({ length: Math.min(25, USERS - i) }, (_, j) => call("POST", "/Users", {
        schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: `user${i + j}@bench.example`, active: true,
      })));
      ids.push(...batch.map((t) => JSON.parse(t).id as string));
    }
    const per = Math.floor(MEMBERSHIPS / GROUPS);
    for (let g = 0; g < GROUPS; g++) {
      const members = Array.from({ length: Math.min(per, USERS) }, (_, k) => ({ value: ids[(g * 211 + k) % USERS] }));
      await call("POST", "/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: `Group ${g}`, members });
    }
    console.log("done");

    const time = async (path: string) => {
      const t0 = performance.now();
      const text = await call("GET", path);
      return { ms: performance.now() - t0, bytes: Buffer.byteLength(text), items: JSON.parse(text).itemsPerPage as number };
    };
    const INDEX = "/Groups?startIndex=1&count=100";
    const CURSOR = "/Groups?cursor=&count=100";
    await time(INDEX); await time(CURSOR); // untimed warm-up of both paths
    const ratios: number[] = [];
    const rows: string[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const first = r % 2 === 0 ? INDEX : CURSOR;
      const a = await time(first);
      const b = await time(first === INDEX ? CURSOR : INDEX);
      const [ix, cu] = first === INDEX ? [a, b] : [b, a];
      ratios.push(cu.ms / ix.ms);
      rows.push(`round ${r + 1}  index ${ix.ms.toFixed(0).padStart(6)} ms ${(ix.bytes / 1e6).toFixed(2).padStart(6)} MB ${String(ix.items).padStart(3)} groups   cursor ${cu.ms.toFixed(0).padStart(6)} ms ${(cu.bytes / 1e6).toFixed(2).padStart(6)} MB ${String(cu.items).padStart(3)} groups   ratio ${(cu.ms / ix.ms).toFixed(3)}`);
    }
    console.log(`\nfirst page of GET /Groups?count=100, ${GROUPS} groups, ${per * GROUPS} memberships, maxPageMembers ${PAGE_MEMBERS}`);
    for (const row of rows) console.log(row);
    console.log(`median ratio cursor/index time: ${median(ratios).toFixed(3)}`);
  } finally {
    server.close();
    redis.disconnect();
  }
}

void (async () => {
  const pr = await startPrivateRedis();
  try {
    await main(pr);
  } catch (err) {
    console.error(err);
    process.exitCode = 1;
  } finally {
    await pr.stop();
  }
})();
