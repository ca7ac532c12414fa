/**
 * Stores written by earlier releases keep externalId and the group displayName in unique hashes
 * (ix:ux, ix:gx, ix:gn). A server start moves them into the non-unique sorted sets without losing an
 * entry, a second start has nothing to move, and before the migration the lookups still find everything.
 */
import request from "supertest";
import { DirectoryKeys, migrateDirectoryIndexes } from "../../src/store";
import { createLogger } from "../../src/observability/logger";
import { startServer, type RunningServer } from "../../src/roles/server";
import { startScim, TOKENS, type TestScim } from "../helpers/scim-app";

let s: TestScim;
let k: DirectoryKeys;
const now = "2026-01-01T00:00:00.000Z";
const USERS = 2500; // more than one migration batch

/** Writes users u0…u(n-1) and groups g0, g1 as an earlier release stored them. */
async function writeOldLayout(): Promise<void> {
  const m = s.redis.multi();
  for (let i = 0; i < USERS; i++) {
    const id = `u${i}`;
    const ext = `EXT-${i}`;
    m.hset(k.user(id), "d", JSON.stringify({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: `old.${i}`, externalId: ext, active: true }),
      "v", "1", "c", now, "m", now, "un", `old.${i}`, "x", ext, "e", "", "n", "");
    m.zadd(k.users, i + 1, id);
    m.hset(`${k.prefix}ix:un`, `old.${i}`, id);
    m.hset(`${k.prefix}ix:ux`, ext, id);
  }
  for (const [i, name] of [[0, "Old Group"], [1, "Second"]] as const) {
    const id = `g${i}`;
    m.hset(k.group(id), "d", JSON.stringify({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: name, externalId: `GX-${i}` }),
      "v", "1", "c", now, "m", now, "n", name.toLowerCase(), "x", `GX-${i}`, "dn", name);
    m.zadd(k.groups, USERS + i + 1, id);
    m.hset(`${k.prefix}ix:gn`, name.toLowerCase(), id);
    m.hset(`${k.prefix}ix:gx`, `GX-${i}`, id);
  }
  m.set(`${k.prefix}seq`, String(USERS + 2));
  await m.exec();
}

beforeAll(async () => {
  s = await startScim();
  k = new DirectoryKeys(s.prefix, "acme");
  await writeOldLayout();
});
afterAll(async () => s.close());

const byFilter = async (path: string, filter: string) =>
  ((await request(s.app).get(`/scim/v2/acme/${path}?filter=${encodeURIComponent(filter)}`).set(s.auth())).body.Resources as Array<{ id: string }>).map((r) => r.id).sort();

describe("index migration at start", () => {
  it("should find old-layout entries before the migration and accept a repeat of an old externalId", async () => {
    expect(await byFilter("Users", `externalId eq "EXT-7"`)).toEqual(["u7"]);
    expect(await byFilter("Groups", `displayName eq "old group"`)).toEqual(["g0"]);
    const dup = await request(s.app).post("/scim/v2/acme/Groups").set(s.auth()).send({ displayName: "Old Group", externalId: "GX-0" });
    expect(dup.status).toBe(201);
    expect(await byFilter("Groups", `displayName eq "Old Group"`)).toEqual(["g0", dup.body.id].sort());
    expect(await byFilter("Groups", `externalId eq "GX-0"`)).toEqual(["g0", dup.body.id].sort());
    expect((await request(s.app).delete(`/scim/v2/acme/Groups/${dup.body.id}`).set(s.auth())).status).toBe(204);
  });

  it("should move every entry at server start, lose none, and have nothing to move the second time", async () => {
    let server: RunningServer | undefined;
    try {
      server = await startServer({ ...s.config, server: { ...s.config.server, host: "127.0.0.1", port: 0 } }, createLogger("silent"));
      for (const old of ["ix:ux", "ix:gx", "ix:gn"]) expect(await s.redis.exists(`${k.prefix}${old}`)).toBe(0);
      expect(await s.redis.zcard(`${k.prefix}ix:uxs`)).toBe(USERS);
      expect(await s.redis.zcard(`${k.prefix}ix:gns`)).toBe(2);
      expect(await s.redis.zcard(`${k.prefix}ix:gxs`)).toBe(2);
      // read back through the started server
      const auth = { Authorization: `Bearer ${TOKENS.acme}` };
      for (const i of [0, 1234, USERS - 1]) {
        const res = await fetch(`${server.url}/scim/v2/acme/Users?filter=${encodeURIComponent(`externalId eq "EXT-${i}"`)}`, { headers: auth });
        expect(((await res.json()) as { Resources: Array<{ id: string }> }).Resources.map((r) => r.id)).toEqual([`u${i}`]);
      }
      const g = await fetch(`${server.url}/scim/v2/acme/Groups?filter=${encodeURIComponent(`displayName eq "second"`)}`, { headers: auth });
      expect(((await g.json()) as { Resources: Array<{ id: string }> }).Resources.map((r) => r.id)).toEqual(["g1"]);
    } finally {
      await server?.close();
    }
    expect(await migrateDirectoryIndexes(s.redis, s.prefix, "acme")).toBe(0);
    expect(await byFilter("Groups", `externalId eq "GX-1"`)).toEqual(["g1"]);
    // an old entry keeps working for updates and deletes after the move
    expect((await request(s.app).delete("/scim/v2/acme/Users/u5").set(s.auth())).status).toBe(204);
    expect(await byFilter("Users", `externalId eq "EXT-5"`)).toEqual([]);
    expect(await s.redis.zcard(`${k.prefix}ix:uxs`)).toBe(USERS - 1);
  });

  it("should leave nothing of a user behind when one is deleted before the migration", async () => {
    await s.redis.hset(`${k.prefix}ix:ux`, "EXT-LATE", "u9");
    await s.redis.hset(k.user("u9"), "x", "EXT-LATE");
    expect((await request(s.app).delete("/scim/v2/acme/Users/u9").set(s.auth())).status).toBe(204);
    expect(await s.redis.hexists(`${k.prefix}ix:ux`, "EXT-LATE")).toBe(0);
  });
});
