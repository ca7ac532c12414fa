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
import type { DeclaredExtensions } from "../extensions/declared";
import { withDeclaredSchemas } from "../extensions/body";
import { applyDeclaredOps, patchTarget, splitDeclared } from "../extensions/patch";

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

/**
 * The user's body after `ops`; undefined when nothing changes. Operations on the directory's declared
 * extensions are applied by extensions/patch.ts, the others by SCIMMY on the body without them.
 */
export async function applyUserPatch(whole: UserRecord, ops: PatchOperation[], declared: DeclaredExtensions, maxIdentifierLength?: number): Promise<Json | undefined> {
  const { rest, objects } = splitDeclared(declared, whole.body);
  const rec: UserRecord = declared.empty ? whole : { ...whole, body: rest };
  const own: PatchOperation[] = [];
  const ready: PatchOperation[] = [];
  const current = async () => (ready.length ? (await patchWithScimmy(rec, ready)) ?? rec.body : rec.body);
  for (const op of ops) {
    if (!declared.empty && patchTarget(declared, op) === "declared") { own.push(op); continue; }
    const urn = op.op === "remove" ? wholeExtension("User", op.path) : undefined;
    if (urn) ready.push(...clearExtension(urn, await current()));
    else if (isValuePathAdd(op)) ready.push(addOnAbsentTarget("User", op, await current()));
    else ready.push(op);
  }
  if (ready.length === 0 && own.length === 0) return undefined;
  const patched = (ready.length ? await patchWithScimmy(rec, ready) : undefined) ?? { ...rec.body };
  delete patched.id;
  delete patched.meta;
  delete patched.groups;
  applyDeclaredOps(declared, objects, own);
  const body = withDeclaredSchemas(syncExtensionSchemas("User", Object.assign(patched, objects)), declared);
  if (JSON.stringify(body) === JSON.stringify(whole.body)) return undefined;
  checkBody("User", body, maxIdentifierLength);
  return body;
}
