/** `sortBy` / `sortOrder` ([RFC7644§3.4.2.3]): sort keys and a stable sort over them. */
import { attrInfo, type ResourceKind } from "../schemas";
import { valuesAt } from "./evaluate";
import type { AttrPath } from "./filter";

type Json = Record<string, unknown>;

/** The key `resource` sorts by: the first value at `path`; strings lower-cased unless caseExact, dateTimes as numbers. */
export function sortKey(kind: ResourceKind, resource: Json, path: AttrPath): unknown {
  const v = valuesAt(resource, path)[0];
  if (typeof v === "string") {
    const info = attrInfo(kind, `${path.uri ? `${path.uri}:` : ""}${path.attr}${path.sub ? `.${path.sub}` : ""}`);
    return info?.type === "dateTime" ? Date.parse(v) : info?.caseExact ? v : v.toLowerCase();
  }
  return v;
}

/** Sorts items with keys in place: values before missing ones, then by value; ties keep their order (stable). */
export function sortByKey<T extends { key?: unknown }>(items: T[], order: "ascending" | "descending"): void {
  items.sort((a, b) => {
    const am = a.key === undefined || a.key === null;
    const bm = b.key === undefined || b.key === null;
    if (am || bm) return am === bm ? 0 : am ? 1 : -1;
    const c = a.key! < b.key! ? -1 : a.key! > b.key! ? 1 : 0;
    return order === "descending" ? -c : c;
  });
}
