/** Reads list/search parameters from a query string (GET) or a SearchRequest body (POST /.search). */
import { ScimError } from "../errors";
import { parseFilter, type FilterNode } from "../query/filter";
import { parsePaging, type Paging } from "../query/paging";
import { parseProjection, type Projection } from "../query/attributes";
import type { ScimSettings } from "../context";
import { SEARCH_SCHEMA } from "../schemas";

export interface ListParams {
  filter?: FilterNode;
  paging: Paging;
  projection: Projection;
}

function single(v: unknown, name: string): unknown {
  if (Array.isArray(v)) throw new ScimError(400, "invalidValue", `'${name}' may be given only once`);
  return v;
}

/** Parses `filter`, paging, sorting and projection parameters. */
export function listParams(src: Record<string, unknown>, s: ScimSettings): ListParams {
  const q: Record<string, unknown> = {};
  for (const name of ["filter", "startIndex", "count", "cursor", "sortBy", "sortOrder", "attributes", "excludedAttributes"]) {
    const key = Object.keys(src).find((k) => k.toLowerCase() === name.toLowerCase());
    if (key !== undefined) q[name] = name.endsWith("ttributes") ? src[key] : single(src[key], name);
  }
  if (q.filter !== undefined && typeof q.filter !== "string") throw new ScimError(400, "invalidFilter", "Filter must be a string");
  return {
    filter: q.filter === undefined ? undefined : parseFilter(q.filter as string, { maxLength: s.maxFilterLength, maxTerms: s.maxFilterTerms }),
    paging: parsePaging(q, s.defaultCount, s.maxResults),
    projection: parseProjection(
      Array.isArray(q.attributes) ? q.attributes.join(",") : q.attributes,
      Array.isArray(q.excludedAttributes) ? q.excludedAttributes.join(",") : q.excludedAttributes,
    ),
  };
}

/** Parameters of a POST /.search SearchRequest ([RFC7644§3.4.3]). */
export function searchParams(body: unknown, s: ScimSettings): ListParams {
  if (!body || typeof body !== "object" || Array.isArray(body)) throw new ScimError(400, "invalidSyntax", "SearchRequest body must be a JSON object");
  const b = body as Record<string, unknown>;
  if (b.schemas !== undefined && !(Array.isArray(b.schemas) && b.schemas.includes(SEARCH_SCHEMA))) {
    throw new ScimError(400, "invalidSyntax", `SearchRequest schemas must be ["${SEARCH_SCHEMA}"]`);
  }
  return listParams(b, s);
}
