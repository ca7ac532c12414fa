/**
 * A group's JSON answer; for a group whose members did not fit one bounded read, a sequence of text chunks,
 * its members read slice by slice (store memberSlices), so a request holds one slice of a large group at a
 * time, never the whole answer. The
 * concatenated chunks are byte for byte `JSON.stringify(project(groupResource(rec), projection))` of the
 * same members in the same order: the head is projected once with a stand-in member to learn where
 * `members` sits among the kept attributes, and each slice is projected with the request's projection.
 */
import type { GroupRecord, GroupStore, MemberRecord } from "../../store";
import { keepsAttribute, project, type Projection } from "../query/attributes";
import { groupResource } from "./representation";

type Json = Record<string, unknown>;

/** The projection that keeps `members` wherever `p` keeps some of it, with no filter or sub-attribute. */
function wholeMembers(p: Projection): Projection {
  if (p.mode === "all") return p;
  const isMembers = (x: { uri?: string; attr: string }) => !x.uri && x.attr === "members";
  if (p.mode === "exclude") return { mode: "exclude", paths: p.paths.filter((x) => !isMembers(x)) };
  return { mode: "include", paths: p.paths.map((x) => (isMembers(x) ? { attr: "members" } : x)) };
}

/** The projected group without members, split around where `members` goes: `{…head` and `…}`. */
function frame(rec: GroupRecord, base: string, p: Projection): { open: string; close: string } {
  const probe = project(groupResource({ ...rec, members: [{ value: "", type: "User" }] }, base), wholeMembers(p));
  const keys = Object.keys(probe);
  const at = keys.indexOf("members"); // present: the caller's projection keeps some members
  const part = (ks: string[]) => JSON.stringify(Object.fromEntries(ks.map((k) => [k, probe[k]])));
  const before = part(keys.slice(0, at));
  const after = part(keys.slice(at + 1));
  return { open: before.slice(0, -1), close: after === "{}" ? "}" : `,${after.slice(1)}` };
}

/** One slice of members as the projection shows them: each element's JSON. */
function sliceElements(rec: GroupRecord, base: string, p: Projection, members: MemberRecord[]): unknown[] {
  if (!members.length) return [];
  const shown = project(groupResource({ ...rec, body: {}, members }, base), p);
  return Array.isArray(shown.members) ? shown.members : [];
}

/**
 * `rec` as the answer shows it: its JSON when it came with its members or the projection leaves them out,
 * else the chunks of its text, its members read from the store in slices (`members` undefined and
 * memberCount > 0: the bounded read left them out).
 */
export function groupAnswer(groups: GroupStore, directoryId: string, rec: GroupRecord, base: string, p: Projection): Json | AsyncIterable<string> {
  if (rec.members || rec.memberCount === 0 || !keepsAttribute(p, "members")) return project(groupResource(rec, base), p);
  return memberChunks(groups, directoryId, rec, base, p);
}

async function* memberChunks(groups: GroupStore, directoryId: string, rec: GroupRecord, base: string, p: Projection): AsyncGenerator<string> {
  const { open, close } = frame(rec, base, p);
  yield open;
  let first = true;
  for await (const slice of groups.memberSlices(directoryId, rec.id)) {
    const els = sliceElements(rec, base, p, slice);
    if (!els.length) continue;
    const text = els.map((el) => JSON.stringify(el)).join(",");
    yield `${first ? ",\"members\":[" : ","}${text}`;
    first = false;
  }
  yield first ? close : `]${close}`;
}
