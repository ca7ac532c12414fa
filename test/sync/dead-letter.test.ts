/**
 * Issue 4 §5: "403 and validation errors fail the item with the platform's message and are retried when
 * the desired state changes or on request. Failed items stay visible and replayable (dead letter)."
 * 403: directory `wf-scoped` uses a key scoped to deployment 1, which the simulator forbids on account-level
 * SCIM paths until its admin allows it. Validation: 409s on renames onto names the platform already has.
 */
import { PLATFORM_KEY, startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { createGroup, createUser, simGroup, simUser, waitAllSynced, waitReconcileJobs, waitStatus } from "../helpers/sync-wait";
import { retryFailed } from "../../src/sync/control/directory-control";
import { directoryQueue } from "../helpers/directory-queue";

const SCOPED = "test-platform-key-scoped";
let e: SyncEnv;
beforeAll(async () => {
  e = await startSyncEnv({
    sim: { apiKeys: [{ key: PLATFORM_KEY }, { key: SCOPED, deployments: [1] }] },
    directories: [{ id: "wf-scoped", platform: { apiKeyEnv: "TEST_PLATFORM_KEY_SCOPED" } }],
    env: { TEST_PLATFORM_KEY_SCOPED: SCOPED },
  });
});
afterAll(async () => e.close());

const FORBIDDEN = "key is scoped to deployments and not authorized for account-level resources";

/** Creates a resource straight on the platform with the unscoped key. */
async function platformCall(method: string, path: string, body?: object): Promise<Record<string, unknown>> {
  const res = await fetch(`${e.sim.baseUrl}/scim/v2${path}`, {
    method, headers: { authorization: `Bearer ${PLATFORM_KEY}`, "content-type": "application/scim+json" }, body: body ? JSON.stringify(body) : undefined,
  });
  expect(res.status).toBeLessThan(300);
  return res.status === 204 ? {} : ((await res.json()) as Record<string, unknown>);
}

describe("dead letters", () => {
  it("should fail items on a 403 with the platform's message, keep them listed, and retry them on a change or on request", async () => {
    const a = await createUser(e, "wf-scoped", "scoped.a@example.com");
    const b = await createUser(e, "wf-scoped", "scoped.b@example.com");
    for (const id of [a, b]) {
      const st = await waitStatus(e, "wf-scoped", "user", id, "failed");
      expect(st).toMatchObject({ lastError: FORBIDDEN, attempts: 1 });
    }
    expect((await e.state.inStatus("wf-scoped", "failed")).map((x) => x.id).sort()).toEqual([a, b].sort());
    const [job] = await waitReconcileJobs(e, "wf-scoped", "user", a, 1, "failed");
    expect(job).toMatchObject({ failedReason: FORBIDDEN, attemptsMade: 1 });
    expect(await directoryQueue(e.queues, "wf-scoped").isPaused()).toBe(false); // an item failure, not a directory pause

    e.sim.config.scopedKeyAccountAccess = "allow"; // the platform's admin widens the key
    try {
      // a change of the desired state retries the item
      await e.scim("wf-scoped").patch(`/Users/${a}`, { Operations: [{ op: "replace", path: "displayName", value: "Scoped A" }] });
      const st = await waitStatus(e, "wf-scoped", "user", a, "synced");
      expect(st.lastError).toBeUndefined();
      expect(await simUser(e, "scoped.a@example.com")).toMatchObject({ displayName: "Scoped A" });
      expect((await e.state.get("wf-scoped", "user", b)).status).toBe("failed"); // untouched ones stay failed

      // and an operator's retry replays what is left
      expect(await retryFailed(e.state, "wf-scoped", (kind, id) => e.queues.enqueue("wf-scoped", kind, id))).toBe(1);
      await waitStatus(e, "wf-scoped", "user", b, "synced");
      expect(await e.state.inStatus("wf-scoped", "failed")).toEqual([]);
    } finally {
      e.sim.config.scopedKeyAccountAccess = "forbid";
    }
  });

  it("should fail a group rename the platform rejects with its message and retry it when the IdP renames again", async () => {
    await platformCall("POST", "/Groups", { displayName: "Finance" }); // not the bridge's
    const gid = await createGroup(e, "wf", "Accounts");
    const { platformId } = await waitStatus(e, "wf", "group", gid, "synced");
    await e.scim("wf").patch(`/Groups/${gid}`, { Operations: [{ op: "replace", path: "displayName", value: "Finance" }] });
    const failed = await waitStatus(e, "wf", "group", gid, "failed");
    expect(failed).toMatchObject({ lastError: "group Finance already exists", platformId });

    await e.scim("wf").patch(`/Groups/${gid}`, { Operations: [{ op: "replace", path: "displayName", value: "Finance (IdP)" }] });
    await waitStatus(e, "wf", "group", gid, "synced");
    expect(await simGroup(e, "Finance (IdP)")).toMatchObject({ id: platformId });
    expect(await simGroup(e, "Accounts")).toBeUndefined();
  });

  it("should replay a failed user on request once the platform side is fixed", async () => {
    const squatter = await platformCall("POST", "/Users", { userName: "wanted@example.com" });
    const id = await createUser(e, "wf", "temp.name@example.com");
    await waitStatus(e, "wf", "user", id, "synced");
    await e.scim("wf").patch(`/Users/${id}`, { Operations: [{ op: "replace", path: "userName", value: "wanted@example.com" }] });
    const failed = await waitStatus(e, "wf", "user", id, "failed");
    expect(failed.lastError).toBe("userName wanted@example.com already exists");

    await platformCall("DELETE", `/Users/${String(squatter.id)}`); // the platform's admin removes the stray account
    expect(await retryFailed(e.state, "wf", (kind, rid) => e.queues.enqueue("wf", kind, rid), [{ kind: "user", id }])).toBe(1);
    expect((await e.state.get("wf", "user", id)).status).toBe("pending");
    await waitAllSynced(e, "wf", "user", [id]);
    await waitFor(async () => (await simUser(e, "wanted@example.com"))?.externalId === `wf:${id}`, 5000, "the renamed user on the platform");
    expect(await simUser(e, "temp.name@example.com")).toBeUndefined();
  });
});
