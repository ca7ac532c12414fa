/**
 * Parsing of SCIM PATCH request bodies
 * ([RFC7644§3.5.2](https://datatracker.ietf.org/doc/html/rfc7644#section-3.5.2)): the PatchOp schema, an
 * `Operations` array, `op` one of add / replace / remove (case-insensitive, as IdPs send it).
 */
import { SimError } from "../sim-error";

const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

/** One operation. */
export interface PatchOperation {
  op: "add" | "replace" | "remove";
  path?: string;
  value?: unknown;
}

/** Validates a PATCH body and returns its operations. */
export function readPatchOperations(body: unknown): PatchOperation[] {
  const b = body as { schemas?: unknown; Operations?: unknown } | undefined;
  if (!b || !Array.isArray(b.schemas) || !b.schemas.includes(PATCH_OP)) {
    throw new SimError(400, `PATCH body must carry the schema ${PATCH_OP}`, "invalidSyntax");
  }
  if (!Array.isArray(b.Operations) || b.Operations.length === 0) throw new SimError(400, "Operations must be a non-empty array", "invalidSyntax");
  return b.Operations.map((raw: unknown) => {
    const o = raw as { op?: unknown; path?: unknown; value?: unknown };
    const op = typeof o?.op === "string" ? o.op.toLowerCase() : "";
    if (op !== "add" && op !== "replace" && op !== "remove") throw new SimError(400, `unsupported op ${String(o?.op)}`, "invalidSyntax");
    if (o.path !== undefined && typeof o.path !== "string") throw new SimError(400, "path must be a string", "invalidPath");
    // "If "path" is unspecified, the operation fails with HTTP status code 400 and a "scimType" error code of "noTarget"."
    if (op === "remove" && !o.path) throw new SimError(400, "remove needs a path", "noTarget");
    return { op, path: o.path as string | undefined, value: o.value };
  });
}
