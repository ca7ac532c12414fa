/**
 * Issue 4 §3: "users created/updated/deactivated (`active=false` on IdP deactivation; IdP DELETE deactivates
 * by default, hard delete configurable)"; DESIGN §2: a deprovisioned workforce user is "deactivated on the
 * platform (SCIM `active=false`), removed from groups".
 */
import { startSyncEnv, type SyncEnv } from "../helpers/sync-env";
import { userBody } from "../helpers/expect-scim";
import { createUser, simUser, waitStatus } from "../helpers/sync-wait";
import { waitFor } from "../helpers/sync-env";
import { groupFollowsMemberLifecycle } from "../helpers/member-lifecycle";

let e: SyncEnv;
beforeAll(async () => {
  e = await startSyncEnv({ directories: [{ id: "wf-hard", workforce: { onUserDelete: "delete" } }] });
});
afterAll(async () => e.close());

describe("workforce target: user lifecycle", () => {
  it("should replace the platform user on a SCIM PUT, keeping its platform id", async () => {
    const id = await createUser(e, "wf", "put.me@example.com", { displayName: "Put Me" });
    const first = await waitStatus(e, "wf", "user", id, "synced");
    const res = await e.scim("wf").put(`/Users/${id}`, userBody("put.me@example.com", { displayName: "Put Me Again", title: "Lead" }));
    expect(res.status).toBe(200);
    const u = await waitFor(async () => {
      const x = await simUser(e, "put.me@example.com");
      return x?.displayName === "Put Me Again" ? x : undefined;
    }, 10000, "the PUT on the platform");
    expect(u).toMatchObject({ id: first.platformId, title: "Lead", active: true, externalId: `wf:${id}` });
    const st = await waitStatus(e, "wf", "user", id, "synced");
    expect(st.platformId).toBe(first.platformId);
    expect(st.hash).not.toBe(first.hash);
  });

  it("should update the platform user on a SCIM PATCH (replace by path and no-path value)", async () => {
    const id = await createUser(e, "wf", "patch.me@example.com", { displayName: "Patch Me" });
    await waitStatus(e, "wf", "user", id, "synced");
    const res = await e.scim("wf").patch(`/Users/${id}`, {
      schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
      Operations: [{ op: "replace", path: "displayName", value: "Patched" }, { op: "Replace", value: { title: "Engineer" } }],
    });
    expect(res.status).toBe(200);
    await waitFor(async () => {
      const u = await simUser(e, "patch.me@example.com");
      return u?.displayName === "Patched" && u.title === "Engineer";
    }, 10000, "the PATCH on the platform");
  });

  it("should deactivate on active=false (O6) and reactivate the same platform user on active=true", async () => {
    const id = await createUser(e, "wf", "toggle@example.com");
    const { platformId } = await waitStatus(e, "wf", "user", id, "synced");
    await e.scim("wf").patch(`/Users/${id}`, { Operations: [{ op: "replace", value: { active: false } }] });
    await waitStatus(e, "wf", "user", id, "deprovisioned");
    expect(await simUser(e, "toggle@example.com")).toMatchObject({ id: platformId, active: false });
    await e.scim("wf").patch(`/Users/${id}`, { Operations: [{ op: "replace", path: "active", value: true }] });
    await waitStatus(e, "wf", "user", id, "synced");
    expect(await simUser(e, "toggle@example.com")).toMatchObject({ id: platformId, active: true });
  });

  it("should deactivate, not delete, the platform user on an IdP DELETE by default", async () => {
    const id = await createUser(e, "wf", "leaver@example.com");
    const { platformId } = await waitStatus(e, "wf", "user", id, "synced");
    expect((await e.scim("wf").delete(`/Users/${id}`)).status).toBe(204);
    const st = await waitStatus(e, "wf", "user", id, "deprovisioned");
    expect(st).toMatchObject({ platformId, attempts: 0 });
    expect(st.lastError).toBeUndefined();
    expect(await simUser(e, "leaver@example.com")).toMatchObject({ id: platformId, active: false });
  });

  it("should delete the platform user on an IdP DELETE when workforce.onUserDelete is \"delete\"", async () => {
    const id = await createUser(e, "wf-hard", "hard.leaver@example.com");
    await waitStatus(e, "wf-hard", "user", id, "synced");
    const deletesBefore = (await e.simState()).counters.endpoints["DELETE /scim/v2/Users/:id"]?.writes ?? 0;
    expect((await e.scim("wf-hard").delete(`/Users/${id}`)).status).toBe(204);
    await waitStatus(e, "wf-hard", "user", id, "deprovisioned");
    expect(await simUser(e, "hard.leaver@example.com")).toBeUndefined();
    expect((await e.simState()).counters.endpoints["DELETE /scim/v2/Users/:id"]?.writes).toBe(deletesBefore + 1);
  });

  it("should remove a deactivated user from its platform groups and add it back on reactivation (DESIGN §2)", async () => {
    await groupFollowsMemberLifecycle(e, "Lifecycle Team", { stays: "stays@example.com", goes: "goes@example.com" });
  });
});
