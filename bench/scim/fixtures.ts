/**
 * What the bench sends: Okta-shaped user bodies with unique userNames, group bodies and the
 * 256-member PATCH bodies, plus the direct-to-store seeding of our server's large group (50,000 users
 * over HTTP would only measure the POST path again).
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { groupBody, userBody } from "../../src/scim/resources/input";
import { GroupStore, UserStore, type LargeGroups } from "../../src/store";

export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
export const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
export const PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

/** userName of the i-th bench user of run `tag`. */
export function userName(i: number, tag: string): string {
  return `bench.user${i}.${tag}@example.com`;
}

/** The i-th user as Okta creates it (userName, name, emails, displayName, locale, externalId, active). */
export function userRequest(i: number, tag: string): Record<string, unknown> {
  const email = userName(i, tag);
  return {
    schemas: [USER_SCHEMA],
    userName: email,
    name: { givenName: `Given${i}`, familyName: `Family${i}` },
    emails: [{ primary: true, value: email, type: "work" }],
    displayName: `Given${i} Family${i}`,
    locale: "en-US",
    externalId: `00u${tag}${i}`,
    active: true,
  };
}

/** `{"op": op, "path": "members", "value": [{value}…]}` as one PatchOp body. */
export function memberPatch(op: "add" | "remove", ids: string[]): string {
  return JSON.stringify({ schemas: [PATCH_SCHEMA], Operations: [{ op, path: "members", value: ids.map((value) => ({ value })) }] });
}

/** A group create body with `members`. */
export function groupRequest(displayName: string, memberIds: string[]): string {
  return JSON.stringify({ schemas: [GROUP_SCHEMA], displayName, members: memberIds.map((value) => ({ value })) });
}

async function inBatches<T>(items: T[], width: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

/**
 * Writes users `from`…`to-1` straight into our store (the bodies SCIMMY coercion would store for the
 * same requests) and returns their ids.
 */
export async function seedUsers(redis: Redis, keyPrefix: string, directoryId: string, from: number, to: number, tag: string): Promise<string[]> {
  const store = new UserStore(redis, keyPrefix);
  const jobs = Array.from({ length: to - from }, (_, k) => ({ id: randomUUID(), i: from + k }));
  await inBatches(jobs, 256, ({ id, i }) => store.write(directoryId, id, userBody(userRequest(i, tag)).body, "create"));
  return jobs.map((j) => j.id);
}

/**
 * Creates a group in our store and adds `memberIds` in batches of 5,000; returns the group id. `large`: when
 * it counts as large (the server's default unless given).
 */
export async function seedGroup(redis: Redis, keyPrefix: string, directoryId: string, displayName: string, memberIds: string[], maxMembers: number, large?: LargeGroups): Promise<string> {
  const store = new GroupStore(redis, keyPrefix, maxMembers, undefined, undefined, large);
  const id = randomUUID();
  await store.write(directoryId, id, { mode: "create", body: groupBody({ schemas: [GROUP_SCHEMA], displayName }).body, memberOps: [] });
  for (let i = 0; i < memberIds.length; i += 5000) {
    await store.write(directoryId, id, { mode: "update", memberOps: [{ op: "add", members: memberIds.slice(i, i + 5000).map((value) => ({ value })) }] });
  }
  const count = await redis.hlen(store.keys(directoryId).groupMembers(id));
  if (count !== memberIds.length) throw new Error(`seeded group has ${count} members, expected ${memberIds.length}`);
  return id;
}
