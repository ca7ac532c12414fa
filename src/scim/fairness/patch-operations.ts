/**
 * The cap on operations per PATCH (`scim.maxPatchOperations`), looked at in the raw bytes before the
 * body is parsed: a refused 1 MB PATCH of 5,000 operations otherwise cost its JSON.parse (~7 ms of the
 * event loop every directory shares) for an answer that changes nothing, and a client that sends it
 * again at once kept that up. The parsed body is counted again exactly (dialects/patch-request.ts).
 *
 * Every operation has one member named "op" (any case). Keys named so are counted where the bytes
 * hold `"op"` followed by `:`: inside a JSON string a quote is escaped, so that text is always a key.
 * A count above the cap can only overstate when operations' values hold objects with an "op" key of
 * their own, by the thousand — no resource this server serves has such attributes.
 */
import { ScimError } from "../errors";

const SPELLINGS = ['"op"', '"Op"', '"oP"', '"OP"'].map((s) => Buffer.from(s));
const COLON = 0x3a;

function isJsonSpace(b: number | undefined): boolean {
  return b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
}

/** Keys named "op" in the raw JSON `buf`, counted up to `stopAt`. */
export function countOpKeys(buf: Buffer, stopAt: number): number {
  let n = 0;
  for (const needle of SPELLINGS) {
    for (let at = buf.indexOf(needle); at >= 0 && n < stopAt; at = buf.indexOf(needle, at + needle.length)) {
      let j = at + needle.length;
      while (isJsonSpace(buf[j])) j++;
      if (buf[j] === COLON) n++;
    }
  }
  return n;
}

/** The 400 tooMany of a PATCH over the cap. */
export function tooManyOperations(max: number, held?: number): ScimError {
  // [RFC7644§3.12] "tooMany: The specified filter yields many more results than the server is willing to
  // calculate or process": a PATCH of thousands of operations is work no IdP sends (Okta pushes up to 256
  // members in one operation, IDP-DIALECTS O16; Entra a few operations per user)
  const holds = held === undefined ? "" : ` ${held} operations,`;
  return new ScimError(400, "tooMany", `PATCH holds${holds} more than the ${max} operations this server applies in one request; send them in several PATCH requests (several members fit in one operation's value array)`);
}

/** Refuses a PATCH body holding more than `max` operations, before it is parsed. */
export function checkPatchBytes(buf: Buffer, max: number): void {
  if (countOpKeys(buf, max + 1) > max) throw tooManyOperations(max);
}
