/** The Users and Groups of the request's directory as sources of the list runner (query/list.ts). */
import type { GroupRecord, UserRecord } from "../../store";
import type { ScimContext } from "../context";
import type { AttrPath, FilterNode } from "../query/filter";
import { isExact, needsMembers, type ListSource, type ScanLimits, type SourceSortIndex } from "../query/list";
import type { SortAttr } from "../sorting/sort-index-store";
import { groupResource, userResource } from "./representation";

/** The directory's users. */
export function userSource(c: ScimContext): ListSource<UserRecord> {
  const dir = c.directoryId;
  return {
    kind: "User",
    count: () => c.users.count(dir),
    ids: (s, e) => c.users.ids(dir, s, e),
    idsAfter: (after, limit) => c.users.idsAfter(dir, after, limit),
    seqsOf: (ids) => c.users.seqsOf(dir, ids),
    read: (ids) => c.users.find(dir, "id", ids),
    lookup: (index, values) => c.users.find(dir, index as never, values),
    lookupServesResponse: true,
    view: (r) => userResource(r, c.base),
    weight: () => 1,
    carriesMembers: false,
    sortIndex: (path) => sortIndexOf(c, "User", path),
    memberCounts: async (ids) => new Map(ids.map((id) => [id, 0])),
  };
}

/**
 * The directory's groups. Members are read for the filter only when it names them and no index answers it
 * exactly, and for the response only when `withMembers` (`excludedAttributes=members` never loads them).
 */
export function groupSource(c: ScimContext, withMembers: boolean, filter: FilterNode | undefined): ListSource<GroupRecord> {
  const dir = c.directoryId;
  const forFilter = !!filter && needsMembers(filter) && !isExact("Group", filter);
  return {
    kind: "Group",
    count: () => c.groups.count(dir),
    ids: (s, e) => c.groups.ids(dir, s, e),
    idsAfter: (after, limit) => c.groups.idsAfter(dir, after, limit),
    seqsOf: (ids) => c.groups.seqsOf(dir, ids),
    // the response's members within one bounded read; a group beyond it is streamed (group-answer.ts)
    read: (ids, purpose) => c.groups.find(dir, "id", ids, purpose === "response" ? withMembers && "sliced" : forFilter),
    lookup: (index, values) => c.groups.find(dir, index as never, values, forFilter),
    lookupServesResponse: forFilter === withMembers,
    view: (r) => groupResource(r, c.base),
    weight: (r) => 1 + (r.members?.length ?? 0),
    readsMembersForFilter: forFilter,
    carriesMembers: withMembers,
    sortIndex: (path) => sortIndexOf(c, "Group", path),
    memberCounts: async (ids) => new Map((await c.groups.find(dir, "id", ids, false)).map((g) => [g.id, g.memberCount])),
  };
}

/** The scan limits of a request of this directory. */
export function scanLimits(c: ScimContext): ScanLimits {
  return { maxScanRecords: c.settings.maxScanRecords, gate: c.scans, directoryId: c.directoryId };
}

const CORE = { User: "urn:ietf:params:scim:schemas:core:2.0:user", Group: "urn:ietf:params:scim:schemas:core:2.0:group" };

/** Which sort index answers `sortBy` on a kind: userName (users), displayName, meta.created, meta.lastModified. */
export function sortAttrOf(kind: "User" | "Group", path: AttrPath): SortAttr | undefined {
  if (path.uri && path.uri.toLowerCase() !== CORE[kind]) return undefined;
  const attr = path.attr.toLowerCase();
  const sub = path.sub?.toLowerCase();
  if (attr === "meta") return sub === "created" ? "c" : sub === "lastmodified" ? "m" : undefined;
  if (sub) return undefined;
  if (attr === "displayname") return "dn";
  return attr === "username" && kind === "User" ? "un" : undefined;
}

/** The sort index of `path` on the directory's users or groups, built on first use. */
function sortIndexOf(c: ScimContext, kind: "User" | "Group", path: AttrPath): SourceSortIndex | undefined {
  const attr = sortAttrOf(kind, path);
  if (!attr) return undefined;
  const k = kind === "User" ? "u" : "g";
  const ready = () => c.sortIndexes.ensure(c.directoryId);
  return {
    page: async (order, start, count) => { await ready(); return c.sortIndexes.page(c.directoryId, k, attr, order, start, count); },
    after: async (order, at) => { await ready(); return c.sortIndexes.after(c.directoryId, k, attr, order, at); },
  };
}
