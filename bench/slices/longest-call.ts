/**
 * The longest single Redis call of three big-group operations, on a redis-server of its own whose slow
 * log records every call (slowlog-log-slower-than 0; the shared Redis is never touched):
 *   - GET /Groups/<id> of a group of BENCH_MEMBERS (50,000) members, through the SCIM app;
 *   - a PATCH adding 1,000 members to it;
 *   - the worker's member delta and settle after those 50,000 members joined (SyncStateStore);
 *   - group writes of the whole membership: a PATCH adding 5,000 members, a PUT replacing every member,
 *     a PATCH removing every member, and the DELETE of a group of BENCH_MEMBERS members.
 * Also the bytes of the GET's answer. (The client here collects the whole answer to check it, so this
 * process's heap says little about the server's; bench/isolation measures the server's RSS.)
 * Run: `npx tsx bench/slices/longest-call.ts` (BENCH_MEMBERS=50000).
 */
import request from "supertest";
import { loadConfig } from "../../src/config/load";
import { createScimApp } from "../../src/scim/app";
import { hashToken } from "../../src/auth/token";
import { GroupStore, UserStore } from "../../src/store";
import { SyncStateStore } from "../../src/sync/state/sync-state";
import { createLogger } from "../../src/observability/logger";
import { startPrivateRedis } from "../isolation/private-redis";

const N = Number(process.env.BENCH_MEMBERS ?? 50000);
const PREFIX = "bench-slices";

async function main(): Promise<void> {
  const pr = await startPrivateRedis();
  try {
    const redis = pr.redis as never;
    const config = loadConfig({
      env: { REDIS_URL: pr.url },
      overrides: {
        redis: { keyPrefix: PREFIX }, log: { level: "silent" }, server: { publicBaseUrl: "https://bridge.example.com", bodyLimitBytes: 64 * 1024 * 1024 },
        directories: [{ id: "big", tokenHashes: [hashToken("t")], target: "workforce", platform: { baseUrl: "http://127.0.0.1:1/api", deploymentId: 1, apiKeyEnv: "UNUSED_KEY" } }],
      },
    });
    const users = new UserStore(redis, PREFIX);
    const groups = new GroupStore(redis, PREFIX, 200000);
    const app = createScimApp({ config, users, groups, logger: createLogger("silent") });
    const ids = Array.from({ length: N + 6000 }, (_, i) => `u-${String(i).padStart(6, "0")}-0000-0000-0000-000000000000`);
    for (let i = 0; i < ids.length; i += 500) {
      await Promise.all(ids.slice(i, i + 500).map((id) => users.write("big", id, { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: `${id}@example.com` }, "create")));
    }
    await groups.write("big", "g", { mode: "create", body: { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "All employees" } });
    for (let i = 0; i < N; i += 1000) {
      await groups.write("big", "g", { mode: "update", memberOps: [{ op: "add", members: ids.slice(i, Math.min(N, i + 1000)).map((value) => ({ value, display: `Employee ${value.slice(2, 8)}` })) }] });
    }
    // the users are on the platform: the delta has every member to add
    const p = pr.redis.pipeline();
    for (const id of ids) p.hset(`${PREFIX}:{big}:s:u:${id}`, "pid", `p-${id}`, "st", "synced");
    await p.exec();
    await pr.redis.config("SET", "slowlog-log-slower-than", "0");

    const longest = async (label: string, run: () => Promise<string>) => {
      await pr.resetSlowLog();
      const t0 = performance.now();
      const note = await run();
      const ms = performance.now() - t0;
      const s = await pr.slowCalls(PREFIX);
      console.log(`${label.padEnd(34)} longest Redis call ${(s.longestUs / 1000).toFixed(2).padStart(8)} ms (${s.longest}); ${s.count} calls; ${ms.toFixed(0)} ms in all${note ? `; ${note}` : ""}`);
    };
    const auth = { Authorization: "Bearer t" };
    await longest(`GET /Groups/<id> (${N} members)`, async () => {
      const res = await request(app).get("/scim/v2/big/Groups/g").set(auth).buffer(true).parse((r, cb) => {
        const chunks: Buffer[] = [];
        r.on("data", (c: Buffer) => chunks.push(c));
        r.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          cb(null, { bytes: Buffer.byteLength(text), members: (JSON.parse(text) as { members: unknown[] }).members.length });
        });
      });
      const body = res.body as { bytes: number; members: number };
      return `${res.status}, ${(body.bytes / 1e6).toFixed(1)} MB, ${body.members} members`;
    });
    await longest("PATCH adding 1,000 members", async () => {
      const Operations = [{ op: "add", path: "members", value: ids.slice(N, N + 1000).map((value) => ({ value })) }];
      const res = await request(app).patch("/scim/v2/big/Groups/g").set(auth).send({ schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations });
      return String(res.status);
    });
    const state = new SyncStateStore(redis, PREFIX);
    await longest(`member delta + settle (${N + 1000} joined)`, async () => {
      const d = await state.memberDelta("big", "g");
      const waiting = await state.settleMembers("big", "g", { seen: d.seen, scores: d.scores, add: d.add.map((m) => m.id), remove: d.remove.map((m) => m.id) });
      return `${d.add.length} to add, ${waiting} waiting after`;
    });
    const patch = (Operations: unknown[]) => request(app).patch("/scim/v2/big/Groups/g").set(auth).send({ schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations });
    const put = (members: string[]) => request(app).put("/scim/v2/big/Groups/g").set(auth)
      .send({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "All employees", members: members.map((value) => ({ value })) });
    const size = async () => pr.redis.hlen(`${PREFIX}:{big}:gm:g`);
    await longest("PATCH adding 5,000 members", async () => `${(await patch([{ op: "add", path: "members", value: ids.slice(N + 1000, N + 6000).map((value) => ({ value })) }])).status}, ${await size()} members`);
    await longest(`PUT replacing ${N} members`, async () => `${(await put(ids.slice(6000, N + 6000))).status}, ${await size()} members`);
    await longest(`PATCH removing all ${N} members`, async () => `${(await patch([{ op: "remove", path: "members" }])).status}, ${await size()} members`);
    await put(ids.slice(0, N));
    await longest(`DELETE of a ${N}-member group`, async () => String((await request(app).delete("/scim/v2/big/Groups/g").set(auth)).status));
  } finally {
    await pr.stop();
  }
}

main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
