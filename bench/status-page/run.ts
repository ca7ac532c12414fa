/**
 * bench/status-page — the size of the status page's overview and of one directory's page, for six
 * directories (two from config, four made through the admin API), each with a few synced users, so every
 * chart has data. Prints the sizes, then (with BENCH_HOLD=1) keeps the server up and prints the curl
 * commands that measure the same pages from outside. Redis at REDIS_URL (default 127.0.0.1:6379), under a
 * key prefix of its own. Run: `npm run bench:status-page`.
 */
import { startSyncEnv, waitFor } from "../../test/helpers/sync-env";
import { startBridgeServer, ADMIN_TOKEN } from "../../test/helpers/bridge-server";
import { userBody } from "../../test/helpers/expect-scim";

async function main(): Promise<void> {
  const e = await startSyncEnv();
  const s = await startBridgeServer(e);
  try {
    const dirs = ["wf", "em"];
    for (const id of ["d3", "d4", "d5", "d6"]) {
      const res = await s.admin("/directories", { method: "POST", body: JSON.stringify({ id, target: "workforce", platform: { baseUrl: e.sim.baseUrl, deploymentId: 1, apiKeyEnv: "TEST_PLATFORM_KEY" } }) });
      if (res.status !== 201) throw new Error(`creating ${id}: ${res.status} ${await res.text()}`);
      dirs.push(id);
    }
    for (const id of ["wf", "em"]) {
      for (let i = 0; i < 3; i++) await e.scim(id as "wf" | "em").post("/Users", userBody(`u${i}.${id}@example.com`));
    }
    await waitFor(async () => (await e.state.counts("wf")).synced >= 3, 20000, "wf synced");
    await e.runtime!.flushCounters();
    const size = async (path: string) => (await (await s.admin(path, { headers: { Accept: "text/html" } })).text()).length;
    console.log(`overview /admin/status: ${await size("/status")} bytes (${dirs.length} directories)`);
    console.log(`directory page /admin/status/wf: ${await size("/status/wf")} bytes`);
    if (process.env.BENCH_HOLD === "1") {
      console.log(`curl -s -H 'Authorization: Bearer ${ADMIN_TOKEN}' ${s.url}/admin/status | wc -c`);
      await new Promise<void>((resolve) => process.once("SIGINT", () => resolve()));
    }
  } finally {
    await s.close();
    await e.close();
  }
}

main().catch((err) => { console.error(err); process.exitCode = 1; });
