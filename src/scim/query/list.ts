/**
 * Runs a list or search request against the store: plans index lookups for `eq` on indexed attributes
 * (no scan), scans in creation order otherwise, then sorts and pages.
 *
 * Indexed: Users — id, userName, externalId, emails.value (also `emails[…].value eq`), displayName;
 * Groups — id, displayName, externalId, members.value. An `and` uses an index on either side; an `or`
 * uses indexes only when both sides can.
 */
import type { GroupRecord, GroupStore, UserRecord, UserStore } from "../../store";
import type { ResourceKind } from "../schemas";
import { matches, validateFilter, valuesAt } from "./evaluate";
import type { AttrPath, FilterNode } from "./filter";
import type { Paging } from "./paging";
import { attrInfo } from "../schemas";

type Json = Record<string, unknown>;
type Lookup = { index: string; values: string[] };

const USER_INDEXES: Record<string, string> = { id: "id", username: "userName", externalid: "externalId", "emails.value": "email", displayname: "displayName", emails: "email" };
const GROUP_INDEXES: Record<string, string> = { id: "id", displayname: "displayName", externalid: "externalId", "members.value": "member", members: "member" };

function indexFor(kind: ResourceKind, path: AttrPath): string | undefined {
  if (path.uri) return undefined;
  const key = path.sub ? `${path.attr}.${path.sub}` : path.attr;
  return (kind === "User" ? USER_INDEXES : GROUP_INDEXES)[key];
}

/** Index lookups whose union is a superset of the filter's matches, or null when a scan is needed. */
export function plan(kind: ResourceKind, node: FilterNode): Lookup[] | null {
  switch (node.op) {
    case "eq": {
      const index = typeof node.value === "string" ? indexFor(kind, node.path) : undefined;
      return index ? [{ index, values: [node.value as string] }] : null;
    }
    case "and": return plan(kind, node.left) ?? plan(kind, node.right);
    case "or": {
      const l = plan(kind, node.left);
      const r = l && plan(kind, node.right);
      return l && r ? [...l, ...r] : null;
    }
    case "vpath": {
      // emails[type eq "work"].value eq "x" / emails[value eq "x"] / members[value eq "x"]
      const inner = node.then ?? node.filter;
      if (inner.op === "eq" && !inner.path.uri && !inner.path.sub && inner.path.attr === "value" && typeof inner.value === "string") {
        const index = indexFor(kind, { attr: node.path.attr, sub: "value" });
        return index ? [{ index, values: [inner.value] }] : null;
      }
      return null;
    }
    default: return null;
  }
}

/** True when the index lookups of `plan` return exactly the matches (so the filter need not be evaluated again). */
export function isExact(kind: ResourceKind, node: FilterNode): boolean {
  if (node.op === "eq") return typeof node.value === "string" && !!indexFor(kind, node.path);
  if (node.op === "or") return isExact(kind, node.left) && isExact(kind, node.right);
  if (node.op === "vpath") {
    const f = node.filter;
    return !node.then && f.op === "eq" && f.path.attr === "value" && !f.path.sub && !f.path.uri && typeof f.value === "string" && !!indexFor(kind, { attr: node.path.attr, sub: "value" });
  }
  return false;
}

/** Whether evaluating the filter needs a group's members loaded. */
export function needsMembers(node: FilterNode | undefined): boolean {
  if (!node) return false;
  switch (node.op) {
    case "and": case "or": return needsMembers(node.left) || needsMembers(node.right);
    case "not": return needsMembers(node.expr);
    default: return !node.path.uri && node.path.attr === "members";
  }
}

function sortKey(kind: ResourceKind, resource: Json, path: AttrPath): unknown {
  const v = valuesAt(resource, path)[0];
  if (typeof v === "string") {
    const info = attrInfo(kind, `${path.uri ? `${path.uri}:` : ""}${path.attr}${path.sub ? `.${path.sub}` : ""}`);
    return info?.type === "dateTime" ? Date.parse(v) : info?.caseExact ? v : v.toLowerCase();
  }
  return v;
}

/** Sorts in place: values before missing ones, then by value; ties keep their order (stable sort). */
export function sortResources(kind: ResourceKind, items: Json[], path: AttrPath, order: "ascending" | "descending"): void {
  const keyed = items.map((r) => ({ r, k: sortKey(kind, r, path) }));
  keyed.sort((a, b) => {
    const am = a.k === undefined || a.k === null;
    const bm = b.k === undefined || b.k === null;
    if (am || bm) return am === bm ? 0 : am ? 1 : -1;
    const c = a.k! < b.k! ? -1 : a.k! > b.k! ? 1 : 0;
    return order === "descending" ? -c : c;
  });
  keyed.forEach((x, i) => { items[i] = x.r; });
}

/** One page of results and the total. */
export interface ListResult<R> {
  total: number;
  items: R[];
}

const SCAN_CHUNK = 500;

/** Generic list runner over a kind's store functions. */
async function run<R extends { id: string; created: string }>(
  kind: ResourceKind,
  filter: FilterNode | undefined,
  paging: Paging,
  ops: {
    count(): Promise<number>;
    ids(start: number, stop: number): Promise<string[]>;
    byIds(ids: string[]): Promise<R[]>;
    lookup(index: string, values: string[]): Promise<R[]>;
    view(rec: R): Json;
  },
): Promise<ListResult<R>> {
  const start = paging.startIndex - 1;
  if (!filter && !paging.sortBy) {
    const total = await ops.count();
    if (paging.count === 0 || start >= total) return { total, items: [] };
    return { total, items: await ops.byIds(await ops.ids(start, start + paging.count - 1)) };
  }
  if (filter) validateFilter(kind, filter);
  let candidates: R[];
  const lookups = filter ? plan(kind, filter) : null;
  if (lookups) {
    const seen = new Map<string, R>();
    for (const l of lookups) for (const r of await ops.lookup(l.index, l.values)) seen.set(r.id, r);
    candidates = [...seen.values()].sort((a, b) => (a.created < b.created ? -1 : a.created > b.created ? 1 : a.id < b.id ? -1 : 1));
  } else {
    candidates = [];
    const ids = await ops.ids(0, -1);
    for (let i = 0; i < ids.length; i += SCAN_CHUNK) candidates.push(...await ops.byIds(ids.slice(i, i + SCAN_CHUNK)));
  }
  let views = candidates.map((r) => ({ r, v: ops.view(r) }));
  if (filter && !(lookups && isExact(kind, filter))) views = views.filter((x) => matches(kind, x.v, filter));
  if (paging.sortBy) {
    const arr = views.map((x) => x.v);
    const back = new Map(views.map((x) => [x.v, x.r]));
    sortResources(kind, arr, paging.sortBy, paging.sortOrder);
    views = arr.map((v) => ({ v, r: back.get(v)! }));
  }
  return { total: views.length, items: views.slice(start, start + paging.count).map((x) => x.r) };
}

/** Lists users of a directory. `view` turns a record into the resource the filter sees. */
export function listUsers(store: UserStore, dir: string, filter: FilterNode | undefined, paging: Paging, view: (r: UserRecord) => Json): Promise<ListResult<UserRecord>> {
  return run<UserRecord>("User", filter, paging, {
    count: () => store.count(dir),
    ids: (s, e) => store.ids(dir, s, e),
    byIds: (ids) => store.find(dir, "id", ids),
    lookup: (index, values) => store.find(dir, index as never, values),
    view,
  });
}

/** Lists groups of a directory; members are loaded only if `withMembers` or the filter needs them. */
export function listGroups(store: GroupStore, dir: string, filter: FilterNode | undefined, paging: Paging, withMembers: boolean, view: (r: GroupRecord) => Json): Promise<ListResult<GroupRecord>> {
  const members = withMembers || (!!filter && needsMembers(filter) && !isExact("Group", filter));
  return run<GroupRecord>("Group", filter, paging, {
    count: () => store.count(dir),
    ids: (s, e) => store.ids(dir, s, e),
    byIds: (ids) => store.find(dir, "id", ids, members),
    lookup: (index, values) => store.find(dir, index as never, values, members),
    view,
  });
}

