/**
 * The platform's SCIM 2.0 API at `{base_url}/scim/v2` (platform-api.md: "a SCIM 2.0 interface at
 * `/api/scim/v2/...`"), authenticated with `Authorization: Bearer <key>`. Lists follow `startIndex`/`count`
 * to the last page; member changes go out in batches of `memberBatchSize`; deletes and gets answer
 * false/null for 404 so reconciles can be idempotent.
 */
import type { PlatformTransport, HttpMethod } from "./client";
import type { ScimGroup, ScimListResponse, ScimPatchOperation, ScimUser, ScimUserInput } from "./types";

const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const SCIM_JSON = "application/scim+json";

/** A SCIM filter string literal: quotes and backslashes escaped (RFC 7644 §3.4.2.2, JSON string rules). */
export function scimString(value: string): string {
  return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/** Options of list and get calls on groups. */
export interface GroupReadOptions {
  /** Send `excludedAttributes=members` (large groups). */
  excludeMembers?: boolean;
}

/** Typed SCIM calls. */
export class ScimApi {
  constructor(
    private readonly http: PlatformTransport,
    private readonly authorization: string,
    private readonly pageSize: number,
    private readonly memberBatchSize: number,
    /** Where the platform's SCIM interface lives below `{base_url}` (the contract shows `/scim/v2`). */
    private readonly scimPath = "/scim/v2",
  ) {}

  /** Every user, page by page. */
  iterateUsers(filter?: string): AsyncGenerator<ScimUser> {
    return this.iterate<ScimUser>("/Users", { filter });
  }

  /** Every user. */
  async listUsers(): Promise<ScimUser[]> {
    return collect(this.iterateUsers());
  }

  /** The user whose userName matches (case-insensitively, on the platform), or null. */
  async findUserByUserName(userName: string): Promise<ScimUser | null> {
    const page = await this.call<ScimListResponse<ScimUser>>("GET", "/Users", undefined, { filter: `userName eq ${scimString(userName)}`, startIndex: 1, count: 1 });
    return page.Resources?.[0] ?? null;
  }

  async getUser(id: string): Promise<ScimUser | null> {
    return this.call<ScimUser | null>("GET", `/Users/${encodeURIComponent(id)}`, undefined, undefined, [404]);
  }

  /** Creates a user; a 409 (userName taken) throws ValidationError with status 409, scimType `uniqueness`. */
  async createUser(user: ScimUserInput): Promise<ScimUser> {
    return this.call<ScimUser>("POST", "/Users", { schemas: [USER], ...user });
  }

  async replaceUser(id: string, user: ScimUserInput): Promise<ScimUser> {
    return this.call<ScimUser>("PUT", `/Users/${encodeURIComponent(id)}`, { schemas: [USER], ...user });
  }

  async patchUser(id: string, operations: ScimPatchOperation[]): Promise<ScimUser> {
    return this.call<ScimUser>("PATCH", `/Users/${encodeURIComponent(id)}`, { schemas: [PATCH_OP], Operations: operations });
  }

  /** Deprovisioning on the workforce target: `active=false`. */
  async deactivateUser(id: string): Promise<ScimUser> {
    return this.patchUser(id, [{ op: "replace", path: "active", value: false }]);
  }

  /** True when deleted, false when it was already gone (404). */
  async deleteUser(id: string): Promise<boolean> {
    return (await this.http.request({ ...this.base("DELETE", `/Users/${encodeURIComponent(id)}`), accept: [404] })).status !== 404;
  }

  /** Every group, page by page. */
  iterateGroups(options: GroupReadOptions = {}): AsyncGenerator<ScimGroup> {
    return this.iterate<ScimGroup>("/Groups", { excludedAttributes: options.excludeMembers ? "members" : undefined });
  }

  async listGroups(options: GroupReadOptions = {}): Promise<ScimGroup[]> {
    return collect(this.iterateGroups(options));
  }

  async findGroupByDisplayName(displayName: string, options: GroupReadOptions = {}): Promise<ScimGroup | null> {
    const query = { filter: `displayName eq ${scimString(displayName)}`, startIndex: 1, count: 1, excludedAttributes: options.excludeMembers ? "members" : undefined };
    return (await this.call<ScimListResponse<ScimGroup>>("GET", "/Groups", undefined, query)).Resources?.[0] ?? null;
  }

  async getGroup(id: string, options: GroupReadOptions = {}): Promise<ScimGroup | null> {
    return this.call<ScimGroup | null>("GET", `/Groups/${encodeURIComponent(id)}`, undefined, { excludedAttributes: options.excludeMembers ? "members" : undefined }, [404]);
  }

  /** Creates a group; members beyond the first batch are added with PATCH calls. */
  async createGroup(group: { displayName: string; externalId?: string; members?: string[] }): Promise<ScimGroup> {
    const members = group.members ?? [];
    const first = members.slice(0, this.memberBatchSize);
    const created = await this.call<ScimGroup>("POST", "/Groups", {
      schemas: [GROUP],
      displayName: group.displayName,
      ...(group.externalId ? { externalId: group.externalId } : {}),
      members: first.map((value) => ({ value })),
    });
    await this.addMembers(created.id, members.slice(first.length));
    return created;
  }

  async renameGroup(id: string, displayName: string): Promise<void> {
    await this.patchGroup(id, [{ op: "replace", path: "displayName", value: displayName }]);
  }

  /** Adds members in batches of `memberBatchSize`; returns the number of PATCH calls made. */
  async addMembers(groupId: string, userIds: string[]): Promise<number> {
    return this.inBatches(userIds, (batch) => this.patchGroup(groupId, [{ op: "add", path: "members", value: batch.map((value) => ({ value })) }]));
  }

  /** Removes members in batches, with `members[value eq "a" or value eq "b"]` paths (RFC 7644 §3.5.2.2). */
  async removeMembers(groupId: string, userIds: string[]): Promise<number> {
    return this.inBatches(userIds, (batch) =>
      this.patchGroup(groupId, [{ op: "remove", path: `members[${batch.map((v) => `value eq ${scimString(v)}`).join(" or ")}]` }]),
    );
  }

  /** PATCH a group; the platform may answer 204 (null) or the group. */
  async patchGroup(id: string, operations: ScimPatchOperation[]): Promise<ScimGroup | null> {
    return (await this.call<ScimGroup | undefined>("PATCH", `/Groups/${encodeURIComponent(id)}`, { schemas: [PATCH_OP], Operations: operations })) ?? null;
  }

  async deleteGroup(id: string): Promise<boolean> {
    return (await this.http.request({ ...this.base("DELETE", `/Groups/${encodeURIComponent(id)}`), accept: [404] })).status !== 404;
  }

  private async inBatches(ids: string[], send: (batch: string[]) => Promise<unknown>): Promise<number> {
    let calls = 0;
    for (let i = 0; i < ids.length; i += this.memberBatchSize, calls++) await send(ids.slice(i, i + this.memberBatchSize));
    return calls;
  }

  private async *iterate<T>(path: string, query: Record<string, string | undefined>): AsyncGenerator<T> {
    for (let startIndex = 1; ; ) {
      const page = await this.call<ScimListResponse<T>>("GET", path, undefined, { ...query, startIndex, count: this.pageSize });
      const items = page.Resources ?? [];
      yield* items;
      startIndex += items.length;
      if (items.length === 0 || startIndex > page.totalResults) return;
    }
  }

  private base(method: HttpMethod, path: string) {
    return { method, path: `${this.scimPath}${path}`, authorization: this.authorization, contentType: SCIM_JSON };
  }

  private async call<T>(method: HttpMethod, path: string, body?: unknown, query?: Record<string, string | number | undefined>, accept?: number[]): Promise<T> {
    const res = await this.http.request<T>({ ...this.base(method, path), body, query, accept });
    return (accept?.includes(res.status) ? null : res.body) as T;
  }
}

async function collect<T>(it: AsyncGenerator<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}
