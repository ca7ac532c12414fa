/**
 * Reads and writes of simple SCIM attribute paths (`active`, `name.givenName`) on a stored resource, used
 * by user PATCH. Value filters inside paths (`emails[type eq "work"]`) are 400 `invalidPath`.
 */
import { SimError } from "../sim-error";

type Obj = Record<string, unknown>;

const PROTECTED = new Set(["id", "meta", "schemas"]);

function segments(path: string): string[] {
  // a URN-prefixed path such as "urn:…:User:department" keeps the URN as one segment
  const urn = /^(urn:[^ ]+):([^:.]+(?:\.[^:.]+)?)$/i.exec(path);
  const parts = urn ? [urn[1], ...urn[2].split(".")] : path.split(".");
  if (parts.some((p) => !/^[A-Za-z$][\w:.$-]*$/.test(p) || p.includes("["))) throw new SimError(400, `unsupported path ${path}`, "invalidPath");
  if (PROTECTED.has(parts[0])) throw new SimError(400, `${parts[0]} is read-only`, "mutability");
  return parts;
}

/** Sets `path` to `value`; `append` concatenates arrays (SCIM "add" to a multi-valued attribute). */
export function setPath(target: Obj, path: string, value: unknown, append = false): void {
  const parts = segments(path);
  let node = target;
  for (const p of parts.slice(0, -1)) {
    if (typeof node[p] !== "object" || node[p] === null || Array.isArray(node[p])) node[p] = {};
    node = node[p] as Obj;
  }
  const last = parts[parts.length - 1];
  node[last] = append && Array.isArray(node[last]) && Array.isArray(value) ? [...(node[last] as unknown[]), ...value] : value;
}

/** Removes `path`. */
export function removePath(target: Obj, path: string): void {
  const parts = segments(path);
  let node: Obj | undefined = target;
  for (const p of parts.slice(0, -1)) node = typeof node?.[p] === "object" ? (node[p] as Obj) : undefined;
  if (node) delete node[parts[parts.length - 1]];
}
