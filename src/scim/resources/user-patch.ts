/**
 * Applies normalised PATCH operations to a stored user with SCIMMY's PatchOp, after the rewrites that
 * depend on the resource as the earlier operations leave it:
 * - an add on a value-filter path that matches nothing adds the element (dialects/value-path-add.ts);
 * - a remove of a whole extension removes each attribute it holds (dialects/extension-patch.ts).
 * Then `schemas` follows the extensions the result holds, and the body is checked like a created one.
 * SCIMMY's errors are made safe to show (scimmy-errors.ts).
 */
import SCIMMY from "scimmy";
import type { UserRecord } from "../../store";
import { clearExtension, syncExtensionSchemas, wholeExtension } from "../dialects/extension-patch";
import type { PatchOperation } from "../dialects/patch-request";
import { addOnAbsentTarget, isValuePathAdd } from "../dialects/value-path-add";
import { PATCH_SCHEMA, setupScimmy } from "../schemas";
import { fromScimmy } from "../scimmy-errors";
import { checkBody } from "./input";

type Json = Record<string, unknown>;

/** SCIMMY's PatchOp over a stored user: the patched resource as plain JSON, or undefined when nothing changes. */
async function patchWithScimmy(rec: UserRecord, ops: PatchOperation[]): Promise<Json | undefined> {
  setupScimmy();
  try {
    const current = new SCIMMY.Schemas.User({ ...rec.body, id: rec.id, meta: { resourceType: "User" } }, "out");
    const patched = await new SCIMMY.Messages.PatchOp({ schemas: [PATCH_SCHEMA], Operations: ops })
      .apply(current, async (instance: unknown) => instance as never);
    return patched ? JSON.parse(JSON.stringify(patched)) as Json : undefined;
  } catch (err) {
    throw fromScimmy(err, "The PATCH request");
  }
}

/** The user's body after `ops`; undefined when nothing changes. */
export async function applyUserPatch(rec: UserRecord, ops: PatchOperation[], maxIdentifierLength?: number): Promise<Json | undefined> {
  const ready: PatchOperation[] = [];
  const current = async () => (ready.length ? (await patchWithScimmy(rec, ready)) ?? rec.body : rec.body);
  for (const op of ops) {
    const urn = op.op === "remove" ? wholeExtension("User", op.path) : undefined;
    if (urn) ready.push(...clearExtension(urn, await current()));
    else if (isValuePathAdd(op)) ready.push(addOnAbsentTarget("User", op, await current()));
    else ready.push(op);
  }
  if (ready.length === 0) return undefined;
  const patched = await patchWithScimmy(rec, ready);
  if (!patched) return undefined;
  delete patched.id;
  delete patched.meta;
  delete patched.groups;
  const body = syncExtensionSchemas("User", patched);
  if (JSON.stringify(body) === JSON.stringify(rec.body)) return undefined;
  checkBody("User", body, maxIdentifierLength);
  return body;
}
