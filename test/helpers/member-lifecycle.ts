/**
 * DESIGN §2 for a workforce group's members, as a scenario two suites run (sync/workforce-user-lifecycle,
 * and sync/large-group-members for a large group): a deactivated user leaves the platform group, a
 * reactivated one comes back, a deleted one leaves for good, and the group ends synced.
 */
import { waitFor, type SyncEnv } from "./sync-env";
import { createGroup, createUser, simGroup, waitStatus } from "./sync-wait";

/** Runs the scenario on directory "wf" with a group `groupName` of two new users; returns the group's id. */
export async function groupFollowsMemberLifecycle(e: SyncEnv, groupName: string, emails: { stays: string; goes: string }): Promise<string> {
  const stay = await createUser(e, "wf", emails.stays);
  const goes = await createUser(e, "wf", emails.goes);
  const gid = await createGroup(e, "wf", groupName, [stay, goes]);
  const pids = { stay: (await waitStatus(e, "wf", "user", stay, "synced")).platformId, goes: (await waitStatus(e, "wf", "user", goes, "synced")).platformId };
  const members = async () => ((await simGroup(e, groupName))?.members ?? []).map((m) => m.value).sort();
  const only = (ids: unknown[]) => async () => JSON.stringify(await members()) === JSON.stringify(ids.map(String).sort());
  await waitFor(only([pids.stay, pids.goes]), 10000, "both members on the platform");

  await e.scim("wf").patch(`/Users/${goes}`, { Operations: [{ op: "replace", value: { active: false } }] });
  await waitStatus(e, "wf", "user", goes, "deprovisioned");
  await waitFor(only([pids.stay]), 10000, "the deactivated user to leave the group");

  await e.scim("wf").patch(`/Users/${goes}`, { Operations: [{ op: "replace", value: { active: true } }] });
  await waitFor(only([pids.stay, pids.goes]), 10000, "the reactivated user back in the group");

  expect((await e.scim("wf").delete(`/Users/${goes}`)).status).toBe(204);
  await waitFor(only([pids.stay]), 10000, "the deleted user to leave the group");
  expect((await e.state.get("wf", "group", gid)).status).toBe("synced");
  return gid;
}
