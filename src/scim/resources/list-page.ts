/**
 * Answers a list or search request with one page: index paging ([RFC7644§3.4.2.4], `startIndex`) or RFC 9865
 * cursor paging (`cursor`, empty for the first page). Index paging stays the default: RFC 9865 §2.3 "Adding
 * cursor-based pagination support but leaving the default return set pagination method as-is SHOULD not
 * impact existing SCIM clients".
 */
import type { Response } from "express";
import type { ScimContext } from "../context";
import type { CursorScope } from "../cursor/cursor-codec";
import { cursorPage } from "../query/cursor-walk";
import { listSources, type ListSource } from "../query/list";
import { scanLimits } from "./list-sources";
import type { ListParams } from "./query-params";
import { cursorListHead, listHead } from "./respond";
import { sendChunks } from "./streamed-answer";

type Json = Record<string, unknown>;
type Item = { source: number; rec: { id: string; created: string } };
/** A resource as the answer shows it: its JSON, or its text in chunks (a large group, group-answer.ts). */
export type Shown = Json | AsyncIterable<string>;

function isChunked(x: Shown): x is AsyncIterable<string> {
  return typeof (x as AsyncIterable<string>)[Symbol.asyncIterator] === "function";
}

/** The text of a ListResponse `head` (Resources last, empty) with `shown` as its Resources, in chunks. */
async function* listChunks(head: Json, shown: Shown[]): AsyncGenerator<string> {
  const open = JSON.stringify(head);
  let text = open.slice(0, -2); // `…"Resources":[`, without `]}`
  for (let i = 0; i < shown.length; i++) {
    const x = shown[i];
    if (i) text += ",";
    if (!isChunked(x)) { text += JSON.stringify(x); continue; }
    yield text;
    text = "";
    for await (const chunk of x) yield chunk;
  }
  yield `${text}]}`;
}

/**
 * Sends the page of `p` over `sources`, each item shown by `show`; an item shown in chunks is streamed as
 * they come (streamed-answer.ts), the others are written whole. `endpoint` ("Users", "Groups", "" for the
 * root) binds a cursor to where it was issued.
 */
export async function sendListPage(res: Response, c: ScimContext, endpoint: string, sources: Array<ListSource<{ id: string; created: string }>>, p: ListParams, show: (item: Item) => Shown): Promise<void> {
  if (p.paging.cursor === undefined) {
    const out = await listSources(sources, p.filter, p.paging, scanLimits(c));
    await sendChunks(res, 200, listChunks(listHead(out.total, p.paging.startIndex, out.items.length), out.items.map(show)));
    return;
  }
  // RFC 9865 §2: the next request repeats "all query parameters and values being identical to the initial
  // query with the exception of the cursor value": a cursor is refused by a query with another filter or sort
  const scope: CursorScope = { directoryId: c.directoryId, endpoint, query: [p.filter ?? null, p.paging.sortBy ?? null, p.paging.sortBy ? p.paging.sortOrder : null] };
  const from = p.paging.cursor === "" ? undefined : await c.cursors.open(scope, p.paging.cursor);
  const out = await cursorPage(sources, p.filter, p.paging, { ...scanLimits(c), maxPageMembers: c.settings.maxPageMembers }, from);
  const next = out.next && await c.cursors.seal(scope, out.next);
  await sendChunks(res, 200, listChunks(cursorListHead(out.total, out.items.length, next), out.items.map(show)));
}
