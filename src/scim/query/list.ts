/**
 * Runs a list or search request against the store: index lookups for `eq` on indexed attributes (no
 * scan), a bounded scan in creation order otherwise, then sort and page. Also the server-root search
 * over Users and Groups together ([RFC7644§3.4.2.1]), which is the same over two sources.
 *
 * Indexed: Users — id, userName, externalId, emails.value (also `emails[…].value eq`), displayName;
 * Groups — id, displayName, externalId, members.value. An `and` uses an index on either side; an `or`
 * uses indexes only when both sides can. These are what Okta and Entra ID filter on (IDP-DIALECTS O1,
 * O3, E9), so no IdP request scans.
 *
 * A scan is bounded so that one directory's heavy queries cannot stall the others (DESIGN.md §5):
 * - it reads the directory in slices of SCAN_SLICE records and yields the event loop between slices, and
 *   within a slice every SCAN_TURN_MS of evaluation;
 * - at most `scim.maxConcurrentScans` (default 1) scans of one directory run at once per process (scan-gate.ts),
 *   and so do index lookups that read groups' members for the filter;
 * - it reads at most `scim.maxScanRecords` records (a group read with its members counts each member, also
 *   when an index found the group):
 *   [RFC7644§3.12] "tooMany: The specified filter yields many more results than the server is willing to
 *   calculate or process", status 400, when the directory holds more than that.
 * Only ids (and sort keys) of matches are kept during a scan; the page's records are read at the end.
 */
import { setImmediate as yieldEventLoop } from "node:timers/promises";
import type { ResourceKind } from "../schemas";
import { ScimError } from "../errors";
import { isKnownAttribute, matches, validateFilter } from "./evaluate";
import type { AttrPath, FilterNode } from "./filter";
import type { Paging } from "./paging";
import type { ScanGate } from "./scan-gate";
import { sortByKey, sortKey } from "./sort";
import type { SortEntry } from "../sorting/sort-index-store";

type Json = Record<string, unknown>;
type Lookup = { index: string; values: string[] };

/** Records read per store call during a scan. */
export const SCAN_SLICE = 200;
/** Longest the evaluation of a scan holds the event loop before it yields (ms). */
const SCAN_TURN_MS = 4;

const USER_INDEXES: Record<string, string> = { id: "id", username: "userName", externalid: "externalId", "emails.value": "email", displayname: "displayName", emails: "email" };
const GROUP_INDEXES: Record<string, string> = { id: "id", displayname: "displayName", externalid: "externalId", "members.value": "member", members: "member" };

function indexFor(kind: ResourceKind, path: AttrPath): string | undefined {
  if (path.uri) return undefined;
  const key = path.sub ? `${path.attr}.${path.sub}` : path.attr;
  return (kind === "User" ? USER_INDEXES : GROUP_INDEXES)[key];
}

/** The text an index compares for `eq`: a string, or an unquoted number as written (`externalId eq 12345`). */
function indexValue(node: { value: unknown; text?: string }): string | undefined {
  if (typeof node.value === "string") return node.value;
  return typeof node.value === "number" ? node.text : undefined;
}

/** Index lookups whose union is a superset of the filter's matches, or null when a scan is needed. */
export function plan(kind: ResourceKind, node: FilterNode): Lookup[] | null {
  switch (node.op) {
    case "eq": {
      const value = indexValue(node);
      const index = value !== undefined ? indexFor(kind, node.path) : undefined;
      return index ? [{ index, values: [value!] }] : null;
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
      const value = inner.op === "eq" ? indexValue(inner) : undefined;
      if (inner.op === "eq" && !inner.path.uri && !inner.path.sub && inner.path.attr === "value" && value !== undefined) {
        const index = indexFor(kind, { attr: node.path.attr, sub: "value" });
        return index ? [{ index, values: [value] }] : null;
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

/** One page of results and the total. */
export interface ListResult<R> {
  total: number;
  items: R[];
}

/** What the list runner needs of one resource type of one directory. */
export interface ListSource<R extends { id: string; created: string }> {
  kind: ResourceKind;
  count(): Promise<number>;
  /** Ids in creation order, `start` 0-based, inclusive `stop`. */
  ids(start: number, stop: number): Promise<string[]>;
  /** Ids created after sequence `after`, up to `limit`, with their sequences, and the sequence of the last. */
  idsAfter(after: number, limit: number): Promise<{ ids: string[]; seqs: number[]; last: number }>;
  /** The creation sequence of each id (null: no longer exists). */
  seqsOf(ids: string[]): Promise<Array<number | null>>;
  /** Records by id, read as the filter needs them (`"filter"`) or as the response shows them (`"response"`). */
  read(ids: string[], purpose: "filter" | "response"): Promise<R[]>;
  /** Records by an index, read as the filter needs them. */
  lookup(index: string, values: string[]): Promise<R[]>;
  /**
   * True when `lookup` reads records as the response shows them too (users always; groups when the filter
   * and the response both want members, or neither does): the page then uses them as they are.
   */
  lookupServesResponse: boolean;
  /** The resource the filter sees. */
  view(rec: R): Json;
  /** Records one record read for the filter counts for against the scan limit (a group read with members: 1 + members). */
  weight(rec: R): number;
  /** True when reading records for the filter reads their members (a filter on groups' members no index answers exactly). */
  readsMembersForFilter?: boolean;
  /** Whether the response shows members (groups unless `excludedAttributes=members`). */
  carriesMembers: boolean;
  /** The index that sorts this source by `path` without a scan, if there is one. */
  sortIndex?(path: AttrPath): SourceSortIndex | undefined;
  /** How many members each record has (read without the members; asked only when `carriesMembers`). */
  memberCounts(ids: string[]): Promise<Map<string, number>>;
}

/** A sort index of one source (sorting/sort-index-store.ts): places are 0-based in the requested order. */
export interface SourceSortIndex {
  page(order: Paging["sortOrder"], start: number, count: number): Promise<SortEntry[]>;
  /** The place of the first entry after `at` (which may have been deleted since). */
  after(order: Paging["sortOrder"], at: SortEntry): Promise<number>;
}

/** Limits of one request's scan. */
export interface ScanLimits {
  maxScanRecords: number;
  gate: ScanGate;
  directoryId: string;
}

/** A match: its source, id and sort key, and its record when it was read as the response shows it. */
export interface Hit { source: number; id: string; key?: unknown; rec?: { id: string; created: string } }

/**
 * 400 tooMany saying what the request read (`read`: members of groups read with them count too) or would
 * have to read (the directory's records), and what is answered without a scan: a sort-only request is told
 * about sorting, not about a filter it does not have.
 */
function tooMany(limit: number, n: number, read: boolean, filtered: boolean, sortBy?: AttrPath): ScimError {
  const what = read
    ? `This request read ${n} records (each member of a group read with its members counts as one record), more than the ${limit} this server reads for one request`
    : filtered
      ? `The filter needs a scan of ${n} records, more than the ${limit} this server reads for one request`
      : `Sorting by ${sortBy ? `${sortBy.attr}${sortBy.sub ? `.${sortBy.sub}` : ""}` : "this attribute"} needs a scan of ${n} records, more than the ${limit} this server reads for one request`;
  const fix = filtered
    ? "filter with eq on an indexed attribute (id, userName, externalId, emails.value, displayName; members.value for groups)"
    : "sortBy userName, displayName, meta.created or meta.lastModified (groups: displayName, meta.created, meta.lastModified) is answered from an index without a scan";
  return new ScimError(400, "tooMany", `${what}; ${fix}`);
}

/** Matching ids (with sort keys) of one source, by index lookup or scan; `budget.left` counts down records read. */
async function collect<R extends { id: string; created: string }>(
  n: number, src: ListSource<R>, filter: FilterNode | undefined, sortBy: AttrPath | undefined, budget: { left: number; limit: number; holds: number },
): Promise<Hit[]> {
  const hits: Hit[] = [];
  const consider = (rec: R, evaluate: boolean, keep = false) => {
    const v = evaluate || sortBy ? src.view(rec) : undefined;
    if (evaluate && filter && !matches(src.kind, v!, filter)) return;
    hits.push({ source: n, id: rec.id, ...(sortBy ? { key: sortKey(src.kind, v!, sortBy) } : {}), ...(keep ? { rec } : {}) });
  };
  const lookups = filter ? plan(src.kind, filter) : null;
  if (lookups) {
    const seen = new Map<string, R>();
    for (const l of lookups) {
      for (const r of await src.lookup(l.index, l.values)) {
        // what an index found was read with its members when the filter needs them: those count too
        budget.left -= src.weight(r);
        if (budget.left < 0) throw tooMany(budget.limit, budget.limit - budget.left, true, !!filter, sortBy);
        seen.set(r.id, r);
      }
    }
    const found = [...seen.values()].sort((a, b) => (a.created < b.created ? -1 : a.created > b.created ? 1 : a.id < b.id ? -1 : 1));
    const exact = isExact(src.kind, filter!);
    // an index answers few records, read a moment ago: the page shows them as read rather than reading them
    // again (an IdP's `userName eq` lookup was two store round trips, now one)
    for (const r of found) consider(r, !exact, src.lookupServesResponse);
    return hits;
  }
  let after = 0;
  for (;;) {
    const { ids, last } = await src.idsAfter(after, SCAN_SLICE);
    if (ids.length === 0) return hits;
    after = last;
    let since = performance.now();
    for (const r of await src.read(ids, "filter")) {
      budget.left -= src.weight(r);
      if (budget.left < 0) throw tooMany(budget.limit, budget.limit - budget.left, true, !!filter, sortBy);
      consider(r, !!filter);
      // a filter of many comparisons costs milliseconds per slice: give other requests a turn in between
      if (performance.now() - since >= SCAN_TURN_MS) { await yieldEventLoop(); since = performance.now(); }
    }
    await yieldEventLoop(); // let other requests' I/O in before the next slice
  }
}

/** Every match of every source (with sort keys when `sortBy`), by index or by a scan bounded by `limits`. */
export async function collectAll(
  sources: Array<ListSource<{ id: string; created: string }>>, filter: FilterNode | undefined, sortBy: AttrPath | undefined, limits: ScanLimits,
): Promise<Hit[]> {
  const scans = sources.map((s) => !filter || !plan(s.kind, filter));
  const run = async () => {
    let holds = 0;
    for (const [i, s] of sources.entries()) if (scans[i]) holds += await s.count();
    if (holds > limits.maxScanRecords) throw tooMany(limits.maxScanRecords, holds, false, !!filter, sortBy);
    const budget = { left: limits.maxScanRecords, limit: limits.maxScanRecords, holds };
    const hits: Hit[] = [];
    for (const [i, s] of sources.entries()) hits.push(...await collect(i, s, filter, sortBy, budget));
    return hits;
  };
  // a lookup that reads groups with their members for the filter is heavy work too
  const heavy = scans.some(Boolean) || sources.some((s) => s.readsMembersForFilter);
  return heavy ? limits.gate.run(limits.directoryId, run) : run();
}

/**
 * Lists over one or more sources (the root search lists Users, then Groups): `total` counts every match,
 * `items` are the page's records (each paired with its source's index).
 */
export async function listSources(
  sources: Array<ListSource<{ id: string; created: string }>>, filter: FilterNode | undefined, paging: Paging, limits: ScanLimits,
): Promise<ListResult<{ source: number; rec: { id: string; created: string } }>> {
  const start = paging.startIndex - 1;
  if (filter) {
    // an attribute is unknown only if no source defines it (the root: "as if there is no attribute value", [RFC7644§3.4.2.1])
    const known = (p: AttrPath, q?: AttrPath) => sources.some((s) => isKnownAttribute(s.kind, p, q));
    for (const s of sources) validateFilter(s.kind, filter, undefined, known);
  }
  if (!filter && !paging.sortBy) return pageInOrder(sources, start, paging.count);
  const index = !filter && paging.sortBy && sources.length === 1 ? sources[0].sortIndex?.(paging.sortBy) : undefined;
  if (index) {
    // sort only, on an indexed attribute: the page straight from the index, whatever the directory's size
    const [total, entries] = await Promise.all([sources[0].count(), index.page(paging.sortOrder, start, paging.count)]);
    return { total, items: await readPage(sources, entries.map((e) => ({ source: 0, id: e.id }))) };
  }
  const hits = await collectAll(sources, filter, paging.sortBy, limits);
  if (paging.sortBy) sortByKey(hits, paging.sortOrder);
  const page = paging.count === 0 ? [] : hits.slice(start, start + paging.count);
  return { total: hits.length, items: await readPage(sources, page) };
}

/** Without filter and sort: totals from the counts, the page's ids straight from the creation order. */
async function pageInOrder(sources: Array<ListSource<{ id: string; created: string }>>, start: number, count: number): Promise<ListResult<{ source: number; rec: { id: string; created: string } }>> {
  const totals = await Promise.all(sources.map((s) => s.count()));
  const total = totals.reduce((a, b) => a + b, 0);
  const items: Array<{ source: number; rec: { id: string; created: string } }> = [];
  let offset = start;
  for (const [i, s] of sources.entries()) {
    const want = count - items.length;
    if (want <= 0) break;
    if (offset >= totals[i]) { offset -= totals[i]; continue; }
    const ids = await s.ids(offset, offset + want - 1);
    for (const rec of await s.read(ids, "response")) items.push({ source: i, rec });
    offset = 0;
  }
  return { total, items };
}

/**
 * The page's records (as the response wants them) in the order of `page`: those an index lookup read as
 * they are, the others read now (a scan keeps only ids); records deleted meanwhile drop out.
 */
export async function readPage(sources: Array<ListSource<{ id: string; created: string }>>, page: Hit[]): Promise<Array<{ source: number; rec: { id: string; created: string } }>> {
  const found = new Map<string, { id: string; created: string }>();
  for (const [i, s] of sources.entries()) {
    const ids = page.filter((h) => h.source === i && !h.rec).map((h) => h.id);
    if (ids.length) for (const rec of await s.read(ids, "response")) found.set(`${i}\n${rec.id}`, rec);
  }
  return page.flatMap((h) => {
    const rec = h.rec ?? found.get(`${h.source}\n${h.id}`);
    return rec ? [{ source: h.source, rec }] : [];
  });
}
