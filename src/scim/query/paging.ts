/**
 * `startIndex` / `count` / `sortBy` / `sortOrder` ([RFC7644§3.4.2.3–3.4.2.4]) and RFC 9865's `cursor`. Read
 * from the raw query string values (Express 5's `req.query` is a getter, so scimmy-routers' in-place cast is lost: STACK.md §4.1).
 */
import { ScimError } from "../errors";
import { parseAttrPath, type AttrPath } from "./filter";

export interface Paging {
  /** 1-based. */
  startIndex: number;
  count: number;
  sortBy?: AttrPath;
  sortOrder: "ascending" | "descending";
  /** RFC 9865 cursor pagination: "" for the first page, else a `nextCursor`; undefined for index paging. */
  cursor?: string;
}

function int(raw: unknown, name: string): number | undefined {
  if (raw === undefined || raw === "") return undefined;
  const s = String(raw).trim();
  if (!/^-?\d+$/.test(s)) throw new ScimError(400, "invalidValue", `'${name}' must be an integer`);
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : s.startsWith("-") ? Number.MIN_SAFE_INTEGER : Number.MAX_SAFE_INTEGER;
}

/** Parses paging parameters; `count` is capped at `maxResults` (ServiceProviderConfig filter.maxResults). */
export function parsePaging(q: Record<string, unknown>, defaultCount: number, maxResults: number): Paging {
  // "A value less than 1 SHALL be interpreted as 1." (startIndex)
  const startIndex = Math.max(1, int(q.startIndex, "startIndex") ?? 1);
  const cursor = q.cursor === undefined || q.cursor === null ? undefined : String(q.cursor);
  // RFC 9865 §2.3: "clients can use the 'startIndex' and 'cursor' query parameters to request a specific method"
  if (cursor !== undefined && q.startIndex !== undefined && q.startIndex !== "") {
    throw new ScimError(400, "invalidValue", "Give either 'cursor' (cursor pagination) or 'startIndex' (index pagination), not both");
  }
  const asked = int(q.count, "count");
  // RFC 9865 §2.2: "invalidCount: Count value is invalid. Count value must be between 1 - and maxPageSize"
  if (cursor !== undefined && asked !== undefined && asked < 1) {
    throw new ScimError(400, "invalidCount", `Count value must be between 1 and maxPageSize (${maxResults}) with cursor pagination`);
  }
  // "A negative value SHALL be interpreted as "0"." (count); a larger one is capped ("maxPageSize … regardless
  // of what is specified for the count", RFC 9865 §4)
  const count = Math.min(maxResults, Math.max(0, asked ?? defaultCount));
  let sortBy: AttrPath | undefined;
  if (q.sortBy !== undefined && q.sortBy !== "") {
    try {
      sortBy = parseAttrPath(String(q.sortBy));
    } catch {
      throw new ScimError(400, "invalidValue", "'sortBy' must be an attribute name");
    }
  }
  const order = q.sortOrder === undefined || q.sortOrder === "" ? "ascending" : String(q.sortOrder).toLowerCase();
  if (order !== "ascending" && order !== "descending") throw new ScimError(400, "invalidValue", "'sortOrder' must be \"ascending\" or \"descending\"");
  return { startIndex, count, sortBy, sortOrder: order, ...(cursor !== undefined ? { cursor } : {}) };
}
