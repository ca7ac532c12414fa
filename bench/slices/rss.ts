/**
 * Server RSS while BENCH_READERS (12) clients read a BENCH_MEMBERS (50,000)-member group with its members,
 * BENCH_READS (5) times each, on a redis-server of its own. The server is the built server role
 * (`npm run build` first: dist/main.js, with the image's V8 flags) in a process of its own; the readers
 * discard what they receive. Prints the peak RSS (sampled every 50 ms) beside the idle one, the answer
 * size and the answers that were not 200. Run: `npm run build && npx tsx bench/slices/rss.ts`.
 */
import { spawn } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import http from "node:http";
import path from "node:path";
import { hashToken } from "../../src/auth/token";
import { GroupStore, UserStore } from "../../src/store";
import { startPrivateRedis } from "../isolation/private-redis";
import { IMAGE_NODE_ARGS, freePort, rssMiB } from "../scim/children";

const N = Number(process.env.BENCH_MEMBERS ?? 50000);
const READERS = Number(process.env.BENCH_READERS ?? 12);
const READS = Number(process.env.BENCH_READS ?? 5);
const PREFIX = "bench-rss";

let failed = 0;

/** One GET of the group; resolves with the bytes received (discarded as they come); counts answers not 200. */
function read(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    http.get({ host: "127.0.0.1", port, path: "/scim/v2/big/Groups/g", headers: { Authorization: "Bearer t" } }, (res) => {
      let bytes = 0;
      res.on("data", (c: Buffer) => { bytes += c.length; });
      res.on("end", () => { if (res.statusCode !== 200) failed++; resolve(bytes); });
    }).on("error", reject);
  });
}

async function main(): Promise<void> {
  const pr = await startPrivateRedis();
  const port = await freePort();
  const config = {
    server: { host: "127.0.0.1", port, publicBaseUrl: `http://127.0.0.1:${port}` }, redis: { url: pr.url, keyPrefix: PREFIX }, log: { level: "warn" },
    // memory is measured here, not the per-directory share of heavy reads: every reader runs at once
    // (BENCH_DEFAULT_SHARE=1 keeps the defaults: one heavy read of a directory at a time, a few queued, 429 beyond)
    scim: process.env.BENCH_DEFAULT_SHARE ? {} : { maxConcurrentScans: 64, maxQueuedScans: 64 },
    directories: [{ id: "big", tokenHashes: [hashToken("t")], target: "workforce", platform: { baseUrl: "http://127.0.0.1:1/api", deploymentId: 1, apiKeyEnv: "BENCH_UNUSED_PLATFORM_KEY" } }],
  };
  const child = spawn(process.execPath, [...IMAGE_NODE_ARGS, path.join(__dirname, "../../dist/main.js"), "server"],
    { env: { PATH: process.env.PATH, SCIM_BRIDGE_CONFIG_JSON: JSON.stringify(config) }, stdio: "ignore" });
  try {
    const users = new UserStore(pr.redis as never, PREFIX);
    const groups = new GroupStore(pr.redis as never, PREFIX, 200000);
    const ids = Array.from({ length: N }, (_, i) => `u-${String(i).padStart(6, "0")}-0000-0000-0000-000000000000`);
    for (let i = 0; i < N; i += 500) {
      await Promise.all(ids.slice(i, i + 500).map((id) => users.write("big", id, { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: `${id}@example.com` }, "create")));
    }
    await groups.write("big", "g", { mode: "create", body: { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "All employees" } });
    for (let i = 0; i < N; i += 1000) {
      await groups.write("big", "g", { mode: "update", memberOps: [{ op: "add", members: ids.slice(i, i + 1000).map((value) => ({ value, display: `Employee ${value.slice(2, 8)}` })) }] });
    }
    for (let i = 0; ; i++) {
      const up = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
      if (up) break;
      if (i > 300 || child.exitCode !== null) throw new Error("the server did not start");
      await sleep(100);
    }
    await read(port); // warm up
    const idle = rssMiB(child.pid!);
    let peak = idle;
    const timer = setInterval(() => { peak = Math.max(peak, rssMiB(child.pid!)); }, 50);
    const t0 = performance.now();
    let bytes = 0;
    await Promise.all(Array.from({ length: READERS }, async () => { for (let i = 0; i < READS; i++) bytes = Math.max(bytes, await read(port)); }));
    clearInterval(timer);
    console.log(`${READERS} readers × ${READS} GETs of a ${N}-member group (${(bytes / 1e6).toFixed(1)} MB each) in ${((performance.now() - t0) / 1000).toFixed(1)} s: server RSS idle ${idle.toFixed(0)} MiB, peak ${peak.toFixed(0)} MiB; ${failed} answers not 200`);
  } finally {
    child.kill("SIGTERM");
    await pr.stop();
  }
}

main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
