/**
 * RFC 9865 cursor pages over one or more sources (the root search walks Users, then Groups).
 *
 * A walk is stable while resources are created and deleted: every resource that exists for the whole walk
 * is returned exactly once. The position a cursor carries is not an offset (which deletions before it would
 * shift) but the last place passed in an order that no write changes:
 * - without `sortBy`: (source, creation sequence) — the sequence a resource gets at creation never changes
 *   and is never reused, so resources created during the walk come after it or not at all;
 * - with `sortBy`: (sort key, source, id) — a total order, so equal keys neither repeat nor drop out at a
 *   page boundary (a resource whose sort key changes during the walk may be seen twice or not at all);
 *   read from a sort index when one answers the sort and there is no filter.
 *
 * A filter no index answers is evaluated as the walk goes: one page reads at most `scim.maxScanRecords`
 * records (members included) and, when that budget ends first, answers the matches so far with a
 * `nextCursor` that resumes after the last record read — a large directory is walked in bounded steps
 * instead of refused. `totalResults` is then omitted (RFC 9865 §2.1: "Service providers implementing
 * cursor pagination that are unable to estimate totalResults MAY choose to omit the totalResults attribute").
 *
 * A page of groups answered with their members also ends once it carries `scim.maxPageMembers` members
 * (RFC 7644 §3.4.2.4: the service provider "MAY return fewer results than requested"; `itemsPerPage` says how
 * many). Index pages do not: Okta's import advances `startIndex` by the count it asked for whatever
 * `itemsPerPage` says (IDP-DIALECTS O7), so a shortened index page would make it skip groups.
 */
import { setImmediate as yieldEventLoop } from "node:timers/promises";
import { ScimError } from "../errors";
import type { CursorPosition } from "../cursor/cursor-codec";
import { isKnownAttribute, matches, validateFilter } from "./evaluate";
import type { AttrPath, FilterNode } from "./filter";
import { collectAll, isExact, plan, readPage, SCAN_SLICE, type Hit, type ListSource, type ScanLimits } from "./list";
import type { Paging } from "./paging";

type Rec = { id: string; created: string };
type Src = ListSource<Rec>;
type Item = { source: number; rec: Rec };

export interface CursorLimits extends ScanLimits {
  /** Members after which a page of groups answered with members ends. */
  maxPageMembers: number;
}

/** One cursor page: `total` when known, `next` when there may be more. */
export interface CursorResult {
  total?: number;
  items: Item[];
  next?: CursorPosition;
}

/** A match in creation order: its source, id, sequence, and its record when already read as the response shows it. */
interface Cand { source: number; id: string; seq: number; rec?: Rec }

const wrongCursor = () => new ScimError(400, "invalidCursor", "Cursor value is invalid for this query: send an empty cursor for the first page");

/** The page after `from` (undefined: the first page). */
export async function cursorPage(sources: Src[], filter: FilterNode | undefined, paging: Paging, limits: CursorLimits, from?: CursorPosition): Promise<CursorResult> {
  if (filter) {
    const known = (p: AttrPath, q?: AttrPath) => sources.some((s) => isKnownAttribute(s.kind, p, q));
    for (const s of sources) validateFilter(s.kind, filter, undefined, known);
  }
  if (from && (from.s < 0 || from.s >= sources.length || ("k" in from) !== !!paging.sortBy)) throw wrongCursor();
  return paging.sortBy
    ? sortedPage(sources, filter, paging, limits, from as Extract<CursorPosition, { k: unknown }> | undefined)
    : creationPage(sources, filter, paging.count, limits, (from as Extract<CursorPosition, { q: number }> | undefined) ?? { s: 0, q: 0 });
}

/** Walks in creation order: no filter, index lookups, or a scan bounded per page. */
async function creationPage(sources: Src[], filter: FilterNode | undefined, count: number, limits: CursorLimits, from: { s: number; q: number }): Promise<CursorResult> {
  // a scan, or a lookup reading groups' members for the filter, is heavy work: one of the directory's turns
  const heavy = !!filter && sources.some((s) => !plan(s.kind, filter) || s.readsMembersForFilter);
  const { page, more, stop, total } = heavy ? await limits.gate.run(limits.directoryId, () => walkCreation(sources, filter, count, limits, from)) : await walkCreation(sources, filter, count, limits, from);
  const { items, used } = await readWeighted(sources, page, limits.maxPageMembers);
  const last = page[used - 1];
  const next = last && (used < page.length || (more && !stop)) ? { s: last.source, q: last.seq } : stop;
  return { ...(total !== undefined ? { total } : {}), items, ...(next ? { next } : {}) };
}

/** The matches of a creation-order page (and the total when known), one more looked for past `count`. */
async function walkCreation(sources: Src[], filter: FilterNode | undefined, count: number, limits: CursorLimits, from: { s: number; q: number }): Promise<{ page: Cand[]; more: boolean; stop?: { s: number; q: number }; total?: number }> {
  // index lookups answer few records: every match is known up front (so is the total)
  const found: Array<Cand[] | null> = [];
  let total: number | undefined = 0;
  for (const [i, src] of sources.entries()) {
    const lookups = filter ? plan(src.kind, filter) : null;
    if (!filter) { found.push(null); total! += await src.count(); continue; }
    if (!lookups) { found.push(null); total = undefined; continue; }
    found.push(await lookupMatches(i, src, filter, lookups));
    if (total !== undefined) total += found[i]!.length;
  }
  const budget = { left: limits.maxScanRecords };
  const page: Cand[] = [];
  for (let i = from.s; i < sources.length; i++) {
    const after = i === from.s ? from.q : 0;
    const gen = found[i] ? listed(found[i]!, after) : filter ? scanned(i, sources[i], filter, after, budget) : all(i, sources[i], after);
    for await (const c of gen) {
      if ("stop" in c) return { page, more: true, stop: { s: i, q: c.seq }, total };
      if (page.length === count) return { page, more: true, total };
      page.push(c);
    }
  }
  return { page, more: false, total };
}

/** The matches of index lookups on one source, in creation order. */
async function lookupMatches(i: number, src: Src, filter: FilterNode, lookups: Array<{ index: string; values: string[] }>): Promise<Cand[]> {
  const seen = new Map<string, Rec>();
  for (const l of lookups) for (const r of await src.lookup(l.index, l.values)) seen.set(r.id, r);
  const exact = isExact(src.kind, filter);
  const recs = [...seen.values()].filter((r) => exact || matches(src.kind, src.view(r), filter));
  const seqs = await src.seqsOf(recs.map((r) => r.id));
  const out: Cand[] = [];
  for (const [j, r] of recs.entries()) {
    if (seqs[j] !== null) out.push({ source: i, id: r.id, seq: seqs[j]!, ...(src.lookupServesResponse ? { rec: r } : {}) });
  }
  return out.sort((a, b) => a.seq - b.seq);
}

async function* listed(found: Cand[], after: number): AsyncGenerator<Cand> {
  for (const c of found) if (c.seq > after) yield c;
}

/** Every record of a source after sequence `after`, slice by slice. */
async function* all(i: number, src: Src, after: number): AsyncGenerator<Cand> {
  for (;;) {
    const { ids, seqs } = await src.idsAfter(after, SCAN_SLICE);
    if (ids.length === 0) return;
    for (const [j, id] of ids.entries()) yield { source: i, id, seq: seqs[j] };
    after = seqs[seqs.length - 1];
  }
}

/**
 * The matches of a filter no index answers, read slice by slice; when the page's budget of records read runs
 * out, a stop at the last record read (the next page resumes there).
 */
async function* scanned(i: number, src: Src, filter: FilterNode, after: number, budget: { left: number }): AsyncGenerator<Cand | { stop: true; seq: number }> {
  for (;;) {
    if (budget.left <= 0) { yield { stop: true, seq: after }; return; }
    const { ids, seqs } = await src.idsAfter(after, Math.min(SCAN_SLICE, budget.left));
    if (ids.length === 0) return;
    const recs = new Map((await src.read(ids, "filter")).map((r) => [r.id, r]));
    for (const [j, id] of ids.entries()) {
      if (budget.left <= 0) { yield { stop: true, seq: after }; return; }
      after = seqs[j];
      const r = recs.get(id);
      if (!r) continue; // deleted since the slice was listed
      budget.left -= src.weight(r);
      if (matches(src.kind, src.view(r), filter)) yield { source: i, id, seq: seqs[j], ...(src.lookupServesResponse ? { rec: r } : {}) };
    }
    await yieldEventLoop(); // let other requests' I/O in before the next slice
  }
}

/** Walks in sort order: every match collected (bounded like an index page's scan), then the page after `from`. */
async function sortedPage(sources: Src[], filter: FilterNode | undefined, paging: Paging, limits: CursorLimits, from?: { s: number; k: unknown; i: string }): Promise<CursorResult> {
  const index = !filter && sources.length === 1 ? sources[0].sortIndex?.(paging.sortBy!) : undefined;
  if (index) {
    // sort only, on an indexed attribute: resume at the place after the last entry passed (one more read to know if there is a next page)
    const start = from ? await index.after(paging.sortOrder, { id: from.i, key: from.k as string | null }) : 0;
    const entries = await index.page(paging.sortOrder, start, paging.count + 1);
    const page = entries.slice(0, paging.count).map((e) => ({ source: 0, id: e.id, key: e.key }));
    const { items, used } = await readWeighted(sources, page, limits.maxPageMembers);
    const last = page[used - 1];
    const more = last && (used < page.length || entries.length > paging.count);
    return { total: await sources[0].count(), items, ...(more ? { next: { s: 0, k: last.key, i: last.id } } : {}) };
  }
  const hits = await collectAll(sources, filter, paging.sortBy, limits);
  const cmp = sortOrderOf(paging.sortOrder);
  hits.sort(cmp);
  const at = from ? { source: from.s, key: from.k, id: from.i } : undefined;
  const start = at ? hits.findIndex((h) => cmp(h, at) > 0) : 0;
  const rest = start < 0 ? [] : hits.slice(start, start + paging.count);
  const { items, used } = await readWeighted(sources, rest as Cand[], limits.maxPageMembers);
  const last = rest[used - 1];
  const more = start >= 0 && start + used < hits.length;
  return { total: hits.length, items, ...(more ? { next: { s: last.source, k: (last.key ?? null) as string | number | boolean | null, i: last.id } } : {}) };
}

/** Sort keys in `order`, missing ones last (as index pages sort), then source and id: a total order. */
function sortOrderOf(order: "ascending" | "descending"): (a: Pick<Hit, "source" | "id" | "key">, b: Pick<Hit, "source" | "id" | "key">) => number {
  return (a, b) => {
    const am = a.key === undefined || a.key === null;
    const bm = b.key === undefined || b.key === null;
    if (am !== bm) return am ? 1 : -1;
    if (!am) {
      const c = a.key! < b.key! ? -1 : a.key! > b.key! ? 1 : 0;
      if (c !== 0) return order === "descending" ? -c : c;
    }
    return a.source - b.source || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  };
}

/**
 * The records of `page` as the response shows them, in order, up to the one whose members bring the page to
 * `maxMembers` (member counts are read first, without the members); `used` counts the matches consumed
 * (records deleted meanwhile drop out but are consumed).
 */
async function readWeighted(sources: Src[], page: Array<Pick<Hit, "source" | "id"> & { rec?: Rec }>, maxMembers: number): Promise<{ items: Item[]; used: number }> {
  let used = page.length;
  if (page.some((c) => sources[c.source].carriesMembers)) {
    const sizes = new Map<string, number>();
    for (const [i, src] of sources.entries()) {
      const ids = src.carriesMembers ? page.filter((c) => c.source === i).map((c) => c.id) : [];
      if (ids.length) for (const [id, n] of await src.memberCounts(ids)) sizes.set(`${i}\n${id}`, n);
    }
    let members = 0;
    for (const [j, c] of page.entries()) {
      members += sizes.get(`${c.source}\n${c.id}`) ?? 0;
      if (members >= maxMembers) { used = j + 1; break; }
    }
  }
  return { items: await readPage(sources, page.slice(0, used) as Hit[]), used };
}
