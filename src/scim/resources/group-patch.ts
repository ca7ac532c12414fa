/**
 * PATCH on a Group, translated into member set-deltas and body changes without loading the member list:
 * - `members` add (value array, E7 `"$ref":null` included), remove with a value array (Entra without
 *   `aadOptscim062020`, E7), remove without value (all), replace (O8 full list);
 * - `members[value eq "x"]` remove (Okta O8, Entra with the flag; `or` of several values too);
 * - `displayName` as a plain string (E8), `externalId`; no-path value objects arrive here already split
 *   into path operations (O9 `{"id":…, "displayName":…}` → a displayName replace).
 */
import { ScimError } from "../errors";
import { plainPath, type PatchOperation } from "../dialects/patch-request";
import { parseFilter, type FilterNode } from "../query/filter";
import type { MemberOp } from "../../store";
import { memberList } from "./input";
import { attrInfo } from "../schemas";
import { isAttributePath } from "../extensions/patch";

type Json = Record<string, unknown>;

/** What a group PATCH does: member deltas in order, and attribute changes to the body. */
export interface GroupPatchPlan {
  memberOps: MemberOp[];
  /** attribute (lower-case) → new value, or `undefined` to remove it. */
  attributes: Map<string, unknown>;
  /** Member filters that are not a plain list of `value eq` — need the member values to evaluate. */
  filteredRemovals: FilterNode[];
  /** Bare strings sent as members, left out (lenient directories only, see memberList). */
  skipped: string[];
  /** Paths of attributes a Group does not have, ignored (lenient directories only, extensions/ignored.ts). */
  ignored: string[];
}

const CORE_PREFIX = "urn:ietf:params:scim:schemas:core:2.0:group:";

/** The `value eq "x"` values of a member filter made only of those joined by `or`; null otherwise. */
export function memberFilterValues(node: FilterNode): string[] | null {
  if (node.op === "or") {
    const l = memberFilterValues(node.left);
    const r = l && memberFilterValues(node.right);
    return l && r ? [...l, ...r] : null;
  }
  if (node.op === "eq" && node.path.attr === "value" && !node.path.sub && !node.path.uri && typeof node.value === "string") return [node.value];
  return null;
}

/**
 * Builds the plan; throws 400 invalidPath / invalidValue / mutability for operations a Group cannot take.
 * `lenient`: bare-string members are left out and listed in `skipped`, and paths of attributes a Group does
 * not have in `ignored`, instead of refused.
 */
export function planGroupPatch(ops: PatchOperation[], maxFilterLength: number, lenient = false): GroupPatchPlan {
  const plan: GroupPatchPlan = { memberOps: [], attributes: new Map(), filteredRemovals: [], skipped: [], ignored: [] };
  const skipped = lenient ? plan.skipped : undefined;
  ops.forEach((op, i) => {
    const raw = op.path ?? "";
    const path = raw.toLowerCase().startsWith(CORE_PREFIX) ? raw.slice(CORE_PREFIX.length) : raw;
    const plain = plainPath(path);
    const bracket = /^members\s*\[(.*)\]$/is.exec(path.trim());
    if (bracket) {
      if (op.op !== "remove") throw new ScimError(400, "invalidPath", `Operation ${i + 1}: '${op.op}' with a member filter is not supported; use 'add' on "members"`);
      const filter = parseFilter(bracket[1], maxFilterLength);
      const values = memberFilterValues(filter);
      if (values) plan.memberOps.push({ op: "remove", members: values.map((value) => ({ value })) });
      else plan.filteredRemovals.push(filter);
      return;
    }
    switch (plain) {
      case "members": {
        if (op.op === "remove") {
          plan.memberOps.push(op.value === undefined || op.value === null ? { op: "clear", members: [] } : { op: "remove", members: memberList(op.value, skipped) });
        } else {
          plan.memberOps.push({ op: op.op === "add" ? "add" : "replace", members: memberList(op.value ?? [], skipped) });
        }
        return;
      }
      case "displayname": {
        // [RFC7643§4.2] displayName is REQUIRED: it can be replaced, never removed
        if (op.op === "remove") throw new ScimError(400, "mutability", "displayName is required and cannot be removed");
        const v = Array.isArray(op.value) && op.value.length === 1 ? op.value[0] : op.value; // older Entra SDKs wrap it
        const name = v && typeof v === "object" ? (v as Json).value : v;
        if (typeof name !== "string" || !name.trim()) throw new ScimError(400, "invalidValue", "displayName must be a non-empty string");
        plan.attributes.set("displayName", name);
        return;
      }
      case "externalid": {
        if (op.op === "remove") { plan.attributes.set("externalId", undefined); return; }
        if (typeof op.value !== "string") throw new ScimError(400, "invalidValue", "externalId must be a string");
        plan.attributes.set("externalId", op.value);
        return;
      }
      default:
        // [RFC7644§3.3] a service provider may ignore what it does not support: a well-formed path naming an
        // attribute a Group does not have is left out in a lenient directory, the rest of the request applied
        if (lenient && isAttributePath(path) && !attrInfo("Group", plain)) { plan.ignored.push(raw); return; }
        throw new ScimError(400, "invalidPath", `Invalid path '${raw || "(none)"}' for '${op.op}' op of operation ${i + 1} in PatchOp request body`);
    }
  });
  return plan;
}

/** Applies the attribute changes to a stored group body; returns the new body. */
export function applyAttributes(body: Json, attributes: Map<string, unknown>): Json {
  const out: Json = { ...body };
  for (const [name, value] of attributes) {
    for (const k of Object.keys(out)) if (k.toLowerCase() === name.toLowerCase()) delete out[k];
    if (value !== undefined) out[name] = value;
  }
  return out;
}
