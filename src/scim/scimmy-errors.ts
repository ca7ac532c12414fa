/**
 * What SCIMMY throws, made safe to show. SCIMMY's own messages name the attribute and the operation
 * ("Attribute 'active' expected value type 'boolean' … for 'replace' op of operation 1 in PatchOp request
 * body"), but when its code trips over an input it did not expect, the JavaScript engine's message goes
 * into the same sentence: "Cannot convert undefined or null to object for 'remove' op of operation 1 …",
 * "Cannot add property x, object is not extensible …". No engine text reaches a client's `detail`: such an
 * error keeps its status and the operation it names, with a sentence of ours; the original goes to the log.
 */
import { ScimError, type ScimType } from "./errors";
import { isEngineMessage } from "./engine-message";

const OPERATION = /for '(\w+)' op of operation (\d+) in PatchOp request body/;

/**
 * `err` (thrown by SCIMMY while coercing a body or applying a PatchOp) as a ScimError: SCIMMY's own
 * message as it is, an engine message replaced (kept in `internal`, which the error handler logs).
 */
export function fromScimmy(err: unknown, what: string): ScimError {
  if (err instanceof ScimError) return err;
  const e = err as { status?: unknown; scimType?: unknown; message?: unknown };
  const message = typeof e?.message === "string" ? e.message : "";
  const status = typeof e?.status === "number" && e.status >= 400 && e.status < 500 ? e.status : 400;
  const scimType = (typeof e?.scimType === "string" ? e.scimType : "invalidValue") as ScimType;
  if (message && !isEngineMessage(message)) return new ScimError(status, scimType, message);
  const op = OPERATION.exec(message);
  const detail = op
    ? `Operation ${op[2]} ('${op[1]}') cannot be applied: its path or value does not fit the resource's schema`
    : `${what} does not fit the resource's schema`;
  const safe = new ScimError(status, scimType === "invalidSyntax" ? "invalidSyntax" : "invalidValue", detail);
  safe.internal = message || String(err);
  return safe;
}
