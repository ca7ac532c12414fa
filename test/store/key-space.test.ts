/**
 * One key space: every Redis key a running bridge writes — SCIM data, outbox, sync state, rate windows,
 * resync progress, external-user counts, failed-authentication counters, admin sessions, BullMQ queues —
 * matches a family of src/store/key-space.ts, docs/operations.md lists every family, and keys are built
 * only in the modules the registry names as their builders.
 */
import fs from "node:fs";
import path from "node:path";
import request from "supertest";
import { KEY_FAMILIES } from "../../src/store";
import { adminApp, adminConfig, ADMIN_TOKEN, resyncThroughAdmin } from "../helpers/resync";
import { scanKeys } from "../helpers/redis";
import { startSyncEnv, type SyncEnv } from "../helpers/sync-env";
import { createGroup, createUser, waitAllSynced } from "../helpers/sync-wait";

const ROOT = path.resolve(__dirname, "../..");

let e: SyncEnv;
// groups of 2 members are large (the wf group below; the em group of 1 stays in the reverse index)
beforeAll(async () => { e = await startSyncEnv({ config: { ...adminConfig, scim: { largeGroupMembers: 2 } } }); });
afterAll(() => e.close());

/** The file part of a family's `module` ("store/keys.ts (reviveKeys)" → "store/keys.ts"). */
const builderOf = (module: string) => module.split(" ")[0];

function unmatched(keys: string[], kp: string): string[] {
  return keys.filter((k) => !KEY_FAMILIES.some((f) => f.match(kp).test(k)));
}

describe("the key space", () => {
  it("should hold only keys of the documented families after a bridge did all it does", async () => {
    const wfUser = await createUser(e, "wf", "ks.wf@example.com");
    const wfGroup = await createGroup(e, "wf", "ks-wf-group", [wfUser, await createUser(e, "wf", "ks.wf2@example.com")]);
    const emUser = await createUser(e, "em", "ks.em@example.com");
    const emGroup = await createGroup(e, "em", "ks-em-group", [emUser]);
    await waitAllSynced(e, "wf", "group", [wfGroup]);
    await waitAllSynced(e, "em", "group", [emGroup]);
    await resyncThroughAdmin(e, "wf");
    await resyncThroughAdmin(e, "em");
    // failed authentications of each scope, and an admin sign-in session
    expect((await e.scim("wf").get("/Users").set("Authorization", "Bearer wrong")).status).toBe(401);
    expect((await request(e.app).get("/scim/v2/NOT_A_DIRECTORY/Users").set("Authorization", "Bearer wrong")).status).toBe(401);
    const admin = adminApp(e);
    expect((await request(admin).get("/admin/directories").set("Authorization", "Bearer wrong")).status).toBe(401);
    const login = await request(admin).post("/admin/login").type("form").send({ token: ADMIN_TOKEN });
    expect(login.status).toBe(303);

    const keys = [...new Set([...(await scanKeys(e.redis, `${e.prefix}*`)), ...(await scanKeys(e.redis, `{${e.prefix}*`))])];
    const families = new Set(KEY_FAMILIES.filter((f) => keys.some((k) => f.match(e.prefix).test(k))).map((f) => f.pattern));
    expect(unmatched(keys, e.prefix)).toEqual([]);
    // the run touched the families it should have (a scan that found little proves little)
    for (const p of ["<kp>:{<dir>}:outbox", "<kp>:{<dir>}:mg:<value>", "<kp>:{<dir>}:lg", "<kp>:{<dir>}:s:rate", "<kp>:{<dir>}:resync", "<kp>:{<dir>}:authfail:<address>",
      "<kp>:authfail:invalid-directory:<address>", "<kp>:admin:authfail:<address>", "<kp>:admin:session:<id>",
      "<kp>:acct:<sha1(account)>:external-users", "<kp>:{<dir>}:s:embed-groups", "{<kp>…}:<queue>:…"]) {
      expect(families).toContain(p);
    }
  });

  it("should match nothing a family does not describe", () => {
    expect(unmatched(["p:{wf}:u:1", "p:{wf}:s:st:pending", "{p}:dir-wf:wait"], "p")).toEqual([]);
    expect(unmatched(["p:{wf}:unknown", "p:wf:u:1", "p:{wf}:s:st:lost", "other:{wf}:u:1"], "p")).toHaveLength(4);
  });

  it("should be listed family by family in docs/operations.md", () => {
    const ops = fs.readFileSync(path.join(ROOT, "docs/operations.md"), "utf8");
    const section = ops.slice(ops.indexOf("\n## Key space")).replace(/\\\|/g, "|"); // table cells escape |
    expect(section.length).toBeGreaterThan(20);
    const missing = KEY_FAMILIES.map((f) => f.pattern).filter((p) => !section.includes(`\`${p}\``));
    expect(missing).toEqual([]);
  });

  it("should name builder modules that exist", () => {
    const missing = [...new Set(KEY_FAMILIES.map((f) => builderOf(f.module)))].filter((m) => !m.includes("*") && !fs.existsSync(path.join(ROOT, "src", m)));
    expect(missing).toEqual([]);
  });

  it("should have keys built only in the modules the registry names", () => {
    const builders = new Set(KEY_FAMILIES.map((f) => path.join(ROOT, "src", builderOf(f.module))));
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const f of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, f.name);
        if (f.isDirectory()) { if (f.name !== "simulator") walk(p); continue; }
        // jobs.ts gives BullMQ the hash-tagged prefix of the queue keys, which BullMQ builds itself
        if (!p.endsWith(".ts") || builders.has(p) || p.endsWith(path.join("sync", "jobs.ts"))) continue;
        fs.readFileSync(p, "utf8").split("\n").forEach((line, i) => {
          // a template that puts text after a key prefix or a directory's hash tag is a key being built
          if (/\$\{[^}]*(keyPrefix|\.prefix)\}[:a-z]|:\{\$\{|`\{\$\{/.test(line) && !/queuePrefix|^\s*(\*|\/\/)/.test(line)) offenders.push(`${path.relative(ROOT, p)}:${i + 1}`);
        });
      }
    };
    walk(path.join(ROOT, "src"));
    expect(offenders).toEqual([]);
  });
});
