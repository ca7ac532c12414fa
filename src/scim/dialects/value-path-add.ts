/**
 * Entra ID fills a previously empty entry of a multi-valued attribute with an `Add` on a value-filter
 * path (IDP-DIALECTS E4 "Adding a previously empty single-value attribute uses `Add`" with E6's value-filter
 * paths: `{"op":"Add","path":"emails[type eq \"work\"].value","value":"…"}`, also `phoneNumbers[type eq
 * "mobile"].value`; SCIM-SDK #416). SCIMMY answers 400 noTarget when no element matches the filter.
 *
 * [RFC7644§3.5.2.1](https://datatracker.ietf.org/doc/html/rfc7644#section-3.5.2.1): "If the target location
 * does not exist, the attribute and value are added." So an add whose filter matches no element becomes an
 * add of one new element made of the filter's `eq` comparisons and the value. A `replace` that matches
 * nothing still fails with noTarget, as §3.5.2.3 requires.
 */
import { attrInfo, type ResourceKind } from "../schemas";
import { matches } from "../query/evaluate";
import { parseAttrPath, parseFilter, type CompValue, type FilterNode } from "../query/filter";
import type { PatchOperation } from "./patch-request";

type Json = Record<string, unknown>;

const VALUE_PATH = /^([^[\]]+)\[(.+)\](?:\.([A-Za-z][\w$-]*))?$/s;

/** The `attr eq value` pairs of a filter made only of `eq` joined by `and`; null for anything else. */
function eqPairs(node: FilterNode): Array<[string, CompValue]> | null {
  if (node.op === "and") {
    const l = eqPairs(node.left);
    const r = l && eqPairs(node.right);
    return l && r ? [...l, ...r] : null;
  }
  if (node.op === "eq" && !node.path.uri && !node.path.sub) return [[node.path.attr, node.value]];
  return null;
}

/** True when `op` is an add on a value-filter path: the only operations `addOnAbsentTarget` may rewrite. */
export function isValuePathAdd(op: PatchOperation): boolean {
  return op.op === "add" && typeof op.path === "string" && op.path.includes("[");
}

/**
 * `op` rewritten for `resource` (the resource as the earlier operations of the request left it): an add
 * on `attr[filter].sub` whose filter matches no element of `attr` becomes `add attr [{…filter eqs, sub: value}]`;
 * every other operation is returned as it is.
 */
export function addOnAbsentTarget(kind: ResourceKind, op: PatchOperation, resource: Json): PatchOperation {
  if (!isValuePathAdd(op)) return op;
  const m = VALUE_PATH.exec(op.path!.trim());
  if (!m) return op;
  const [, attr, inner, sub] = m;
  const info = attrInfo(kind, attr.toLowerCase());
  if (!info?.multiValued || info.type !== "complex") return op;
  let filter: FilterNode;
  try {
    filter = parseFilter(inner);
  } catch {
    return op; // SCIMMY reports the bad path
  }
  const pairs = eqPairs(filter);
  if (!pairs || matches(kind, resource, { op: "vpath", path: parseAttrPath(attr), filter })) return op;
  let rest: Json;
  if (sub) rest = { [sub]: op.value };
  else if (op.value && typeof op.value === "object" && !Array.isArray(op.value)) rest = op.value as Json;
  else return op;
  return { op: "add", path: attr, value: [{ ...Object.fromEntries(pairs), ...rest }] };
}
