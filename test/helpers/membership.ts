/**
 * SCIM calls the reverse-index tests share (test/scim/member-of-consistency.test.ts, large-groups.test.ts):
 * create users and groups, change members, and read memberships back the three ways a client can — a
 * user's `groups`, the `members.value eq` filter on /Groups, and a group's `members` — each sorted.
 */
import request from "supertest";
import { userBody } from "./expect-scim";
import type { TestScim } from "./scim-app";

const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

/** The calls, on directory "acme" of `s()` (a getter: the app is started in a beforeAll). */
export function membershipCalls(s: () => TestScim) {
  const U = "/scim/v2/acme/Users";
  const G = "/scim/v2/acme/Groups";
  const api = () => request(s().app);
  const auth = () => s().auth();
  return {
    async user(name: string): Promise<string> {
      const res = await api().post(U).set(auth()).send(userBody(name));
      expect(res.status).toBe(201);
      return res.body.id as string;
    },
    async group(name: string, memberIds: string[] = []): Promise<string> {
      const res = await api().post(G).set(auth()).send({ displayName: name, ...(memberIds.length ? { members: memberIds.map((value) => ({ value })) } : {}) });
      expect(res.status).toBe(201);
      return res.body.id as string;
    },
    members: (id: string, op: "add" | "remove", values: string[]) =>
      api().patch(`${G}/${id}`).set(auth()).send({ schemas: [PATCH], Operations: [{ op, path: "members", value: values.map((value) => ({ value })) }] }),
    deleteUser: async (id: string) => (await api().delete(`${U}/${id}`).set(auth())).status,
    deleteGroup: async (id: string) => (await api().delete(`${G}/${id}`).set(auth())).status,
    /** The user's `groups` values. */
    groupsOf: async (userId: string): Promise<string[]> =>
      ((await api().get(`${U}/${userId}`).set(auth())).body.groups ?? []).map((g: { value: string }) => g.value).sort(),
    /** Ids of the groups `members.value eq <member>` finds. */
    groupsWith: async (member: string): Promise<string[]> =>
      ((await api().get(`${G}?filter=${encodeURIComponent(`members.value eq "${member}"`)}&excludedAttributes=members`).set(auth()))
        .body.Resources as Array<{ id: string }>).map((g) => g.id).sort(),
    /** The group's `members` values. */
    memberValues: async (groupId: string): Promise<string[]> =>
      ((await api().get(`${G}/${groupId}`).set(auth())).body.members ?? []).map((m: { value: string }) => m.value).sort(),
    /** Entries waiting in the reverse-index queue of "acme". */
    pending: () => s().redis.xlen(`${s().prefix}:{acme}:mgq`),
  };
}
