/**
 * Concurrent writes against the real server process while a worker syncs them (the simulator answers in
 * 20–40 ms, so reconciles are running while later writes land):
 * - 50 identical POSTs at once: exactly one 201, 49 × 409 `uniqueness`, one user on both sides;
 * - 20 member PATCHes of one group at once (10 Entra-style adds, 10 Okta-style removes by value filter):
 *   every one applied on the bridge, and the platform group ends with exactly the bridge's members;
 * - 13 PATCHes of one user at once, each a different attribute, one of them Entra's `"False"` string:
 *   every one applied on the bridge (version 14), and the platform user ends equal to it.
 */
import { startFaultEnv, until, userBody, type FaultEnv } from "../helpers/fault-env";
import type { IdpClient, ScimReply } from "../helpers/idp-client";

const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const ERROR = "urn:ietf:params:scim:api:messages:2.0:Error";

let e: FaultEnv;
let idp: IdpClient;
beforeAll(async () => {
  e = await startFaultEnv({ faults: { latency: { fixedMs: 20, jitterMs: 20 } } });
  await e.startServer();
  await e.startWorker();
  idp = e.idp();
}, 60000);
afterAll(async () => e?.close(), 30000);

const tally = (replies: ScimReply[]) => replies.reduce<Record<number, number>>((n, r) => ({ ...n, [r.status]: (n[r.status] ?? 0) + 1 }), {});

/** Waits until the platform holds exactly what the bridge holds. */
async function platformMatches(): Promise<void> {
  let last: string[] = [];
  await until("the platform to match the bridge", 30000, async () => (last = await e.diff()).length === 0, 250)
    .catch((err: Error) => { throw new Error(`${err.message}\n${last.join("\n")}`); });
}

describe("concurrent SCIM writes (server, worker and simulator processes)", () => {
  it("should answer 50 concurrent identical POSTs with exactly one 201 and 49 × 409 uniqueness", async () => {
    const body = userBody("same.user@example.com");
    const replies = await Promise.all(Array.from({ length: 50 }, () => idp.send("POST", "/Users", body)));
    expect(tally(replies)).toEqual({ 201: 1, 409: 49 });
    for (const r of replies.filter((x) => x.status === 409)) {
      expect(r.body).toMatchObject({ schemas: [ERROR], status: "409", scimType: "uniqueness" });
    }
    const found = await idp.send("GET", `/Users?filter=${encodeURIComponent('userName eq "same.user@example.com"')}`);
    expect(found.body).toMatchObject({ totalResults: 1 });
    await platformMatches();
    expect((await e.sim.state()).scim.users.filter((u) => u.userName === "same.user@example.com")).toHaveLength(1);
  });

  it("should lose none of 20 concurrent member PATCHes on one group, on the bridge and on the platform", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(String((await idp.send("POST", "/Users", userBody(`member.${i}@example.com`))).body!.id));
    const g = await idp.send("POST", "/Groups", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Concurrent", members: ids.slice(0, 10).map((value) => ({ value })),
    });
    expect(g.status).toBe(201);
    const gid = String(g.body!.id);
    await platformMatches();

    const adds = ids.slice(10).map((value) => ({ schemas: [PATCH_OP], Operations: [{ op: "Add", path: "members", value: [{ value }] }] }));
    const removes = ids.slice(0, 10).map((value) => ({ schemas: [PATCH_OP], Operations: [{ op: "remove", path: `members[value eq "${value}"]` }] }));
    const replies = await Promise.all([...adds, ...removes].map((body) => idp.send("PATCH", `/Groups/${gid}`, body)));
    expect(tally(replies)).toEqual({ 204: 20 });

    const onBridge = await idp.send("GET", `/Groups/${gid}`);
    expect(((onBridge.body!.members as Array<{ value: string }>) ?? []).map((m) => m.value).sort()).toEqual(ids.slice(10).sort());
    await platformMatches();
    const pids = await e.state.platformIds("wf", "user", ids.slice(10));
    const onPlatform = (await e.sim.state()).scim.groups.find((x) => x.displayName === "Concurrent")!;
    expect(onPlatform.members.map((m) => m.value).sort()).toEqual([...pids].sort());
  });

  it("should lose none of 13 concurrent PATCHes on one user, on the bridge and on the platform", async () => {
    const id = String((await idp.send("POST", "/Users", userBody("busy.user@example.com"))).body!.id);
    await platformMatches();
    const changes: Array<[string, unknown]> = [
      ["title", "Engineer"], ["nickName", "Busy"], ["userType", "Employee"], ["preferredLanguage", "en-GB"], ["locale", "en-GB"],
      ["timezone", "Europe/London"], ["displayName", "Busy User"], ["name.givenName", "Bea"], ["name.familyName", "Busy"],
      ["name.middleName", "M"], ["name.honorificPrefix", "Dr"], ["phoneNumbers", [{ value: "+44 20 7946 0000", type: "work" }]],
      ["active", "False"], // Entra sends booleans as strings
    ];
    const replies = await Promise.all(changes.map(([path, value]) => idp.send("PATCH", `/Users/${id}`, {
      schemas: [PATCH_OP], Operations: [{ op: path === "active" ? "Replace" : "add", path, value }],
    })));
    expect(tally(replies)).toEqual({ 200: changes.length });

    const user = (await idp.send("GET", `/Users/${id}`)).body!;
    expect(user).toMatchObject({
      title: "Engineer", nickName: "Busy", userType: "Employee", preferredLanguage: "en-GB", locale: "en-GB", timezone: "Europe/London",
      displayName: "Busy User", name: { givenName: "Bea", familyName: "Busy", middleName: "M", honorificPrefix: "Dr" },
      phoneNumbers: [{ value: "+44 20 7946 0000", type: "work" }], active: false,
      meta: { version: `W/"${changes.length + 1}"` },
    });
    await platformMatches();
    const onPlatform = (await e.sim.state()).scim.users.find((u) => u.userName === "busy.user@example.com")!;
    expect(onPlatform).toMatchObject({ title: "Engineer", displayName: "Busy User", name: { givenName: "Bea", middleName: "M" }, active: false });
    expect((await e.state.get("wf", "user", id)).status).toBe("deprovisioned");
  });
});
