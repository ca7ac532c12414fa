/**
 * Reading a user without its groups (the workforce reconcile's read): the same record as `get`, with no
 * groups; undefined once deleted; and "none" in the empty desired state of a directory being deprovisioned.
 */
import { withEmptyDesiredState } from "../../src/sync/deleting/empty-desired";
import { startSyncEnv, type SyncEnv } from "../helpers/sync-env";

describe("UserStore.getWithoutGroups", () => {
  let e: SyncEnv;
  beforeAll(async () => { e = await startSyncEnv({ runtime: false }); });
  afterAll(async () => { await e.close(); });

  it("should return the user's body, version and times as get does, with no groups", async () => {
    const u = await e.scim("wf").post("/Users", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: "bare.read@example.com", active: true }).expect(201);
    await e.scim("wf").post("/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Readers", members: [{ value: u.body.id }] }).expect(201);
    const full = await e.users.get("wf", u.body.id);
    const bare = await e.users.getWithoutGroups("wf", u.body.id);
    expect(full?.groups.map((g) => g.display)).toEqual(["Readers"]);
    expect(bare).toEqual({ ...full, groups: [] });
  });

  it("should return undefined for a user that does not exist or was deleted", async () => {
    const u = await e.scim("wf").post("/Users", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: "gone.read@example.com" }).expect(201);
    await e.scim("wf").delete(`/Users/${u.body.id}`).expect(204);
    expect(await e.users.getWithoutGroups("wf", u.body.id)).toBeUndefined();
    expect(await e.users.getWithoutGroups("wf", "no-such-id")).toBeUndefined();
  });

  it("should find no user in the empty desired state of a directory being deprovisioned", async () => {
    const u = await e.scim("wf").post("/Users", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: "kept.read@example.com" }).expect(201);
    const empty = withEmptyDesiredState({ users: e.users, groups: e.groups });
    expect(await e.users.getWithoutGroups("wf", u.body.id)).toBeDefined();
    expect(await empty.users.getWithoutGroups("wf", u.body.id)).toBeUndefined();
  });
});
