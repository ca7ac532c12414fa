/**
 * Entra soft-delete tombstones (IDP-DIALECTS E21) through the real SCIM app, Redis, BullMQ and the simulator:
 * the recorded exchange (test/fixtures/entra/e21-soft-delete-tombstone.json) deactivates the platform user
 * under its real name, the restore reactivates the same platform user (no duplicate, no 409), a tombstone
 * the platform never held creates nobody, and a new user given the freed name never takes over the
 * soft-deleted user's platform account.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Fixture } from "../helpers/fixture-replay";
import { startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { createUser, simUser, waitStatus } from "../helpers/sync-wait";
import { userBody } from "../helpers/expect-scim";

const fx = JSON.parse(readFileSync(join(__dirname, "..", "fixtures", "entra", "e21-soft-delete-tombstone.json"), "utf8")) as Fixture;
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const tombstoneOf = (upn: string) => `0123456789abcdef0123456789abcdef${upn}`;

let e: SyncEnv;
beforeAll(async () => { e = await startSyncEnv(); });
afterAll(async () => e.close());

/** The simulator's users whose userName contains `text` (case-insensitive). */
async function simUsersNamed(text: string) {
  return (await e.simState()).scim.users.filter((u) => u.userName.toLowerCase().includes(text.toLowerCase()));
}

describe("Entra soft-delete tombstone (E21)", () => {
  it("should deactivate the platform user under its real name, and reactivate the same user on restore", async () => {
    const created = await e.scim("wf").post("/Users", fx.setup![0].request as object);
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const real = created.body.userName as string;
    const { platformId } = await waitStatus(e, "wf", "user", id, "synced");

    // the recorded exchange: tombstone userName and active "False" in one PATCH
    const soft = await e.scim("wf").patch(`/Users/${id}`, fx.request as object);
    expect(soft.status).toBe(fx.statusCode);
    const tombstone = (fx.request as { Operations: Array<{ value: string }> }).Operations[0].value;
    expect(soft.body.userName).toBe(tombstone); // stored as Entra sent it
    const st = await waitStatus(e, "wf", "user", id, "deprovisioned");
    expect(st).toMatchObject({ platformId, attempts: 0 });
    expect(await simUsersNamed(real)).toEqual([expect.objectContaining({ id: platformId, userName: real, active: false })]);

    // the restore sends the real name back
    const restore = await e.scim("wf").patch(`/Users/${id}`, fx.then![0].request as object);
    expect(restore.status).toBe(200);
    const back = await waitStatus(e, "wf", "user", id, "synced");
    expect(back).toMatchObject({ platformId, attempts: 0 });
    expect(back.lastError).toBeUndefined();
    expect(await simUsersNamed(real)).toEqual([expect.objectContaining({ id: platformId, userName: real, active: true })]);
  });

  it("should create nobody on the platform for a user that arrives already tombstoned", async () => {
    const name = "never.held@contoso.com";
    const id = await createUser(e, "wf", tombstoneOf(name), { active: false });
    const st = await waitStatus(e, "wf", "user", id, "deprovisioned");
    expect(st.platformId).toBeUndefined();
    expect(await simUsersNamed(name)).toEqual([]);
  });

  it("should not let a new user given the freed name take over the soft-deleted user's platform account", async () => {
    const name = "reused.upn@contoso.com";
    const gone = await createUser(e, "wf", name);
    const { platformId } = await waitStatus(e, "wf", "user", gone, "synced");
    const soft = await e.scim("wf").patch(`/Users/${gone}`, {
      schemas: [PATCH], Operations: [{ op: "Replace", path: "userName", value: tombstoneOf(name) }, { op: "Replace", path: "active", value: "False" }],
    });
    expect(soft.status).toBe(200);
    await waitStatus(e, "wf", "user", gone, "deprovisioned");

    // Entra gives the freed UPN to someone else
    const res = await e.scim("wf").post("/Users", userBody(name));
    expect(res.status).toBe(201);
    const st = await waitStatus(e, "wf", "user", res.body.id, "failed");
    expect(st.lastError).toMatch(/belongs to user/);
    const u = await waitFor(() => simUser(e, name), 5000, "the platform user");
    expect(u).toMatchObject({ id: platformId, active: false, externalId: `wf:${gone}` });
  });
});
