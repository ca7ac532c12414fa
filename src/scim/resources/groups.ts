/**
 * /Groups of one directory. Membership lives apart from the group body: a member PATCH is a set delta
 * (its cost grows with the PATCH, not the group), `excludedAttributes=members` never loads members, and
 * concurrent member PATCHes never lose an update (each delta is one atomic script).
 * Group PATCH answers 204, Entra's guidance (IDP-DIALECTS E12), unless the request asks for attributes.
 */
import { Router, type Request, type Response } from "express";
import { StoreRetryError, encodeMemberOps, type EncodedMemberOps, type GroupRecord, type MemberOp } from "../../store";
import { scimContext, type ScimContext } from "../context";
import { ScimError } from "../errors";
import { normalisePatch } from "../dialects/patch-request";
import { keepsAttribute, parseProjection, project, type Projection } from "../query/attributes";
import { matches } from "../query/evaluate";
import { expectedVersion, notModified } from "./conditional";
import { groupBody } from "./input";
import { applyAttributes, planGroupPatch } from "./group-patch";
import { handleIgnored } from "../extensions/ignored";
import { ignoredGroupAttributes } from "../extensions/body";
import { groupSource } from "./list-sources";
import { sendListPage } from "./list-page";
import { listParams, searchParams, type ListParams } from "./query-params";
import { etag, groupResource } from "./representation";
import { groupAnswer } from "./group-answer";
import { sendChunks } from "./streamed-answer";
import { toScimError } from "./store-errors";

type Json = Record<string, unknown>;
const MAX_CAS_ATTEMPTS = 16;

function wantsMembers(p: Projection): boolean {
  return keepsAttribute(p, "members");
}

async function list(res: Response, p: ListParams): Promise<void> {
  const c = scimContext(res);
  await sendListPage(res, c, "Groups", [groupSource(c, wantsMembers(p.projection), p.filter)], p, (x) => groupAnswer(c.groups, c.directoryId, x.rec as GroupRecord, c.base, p.projection));
}

/**
 * A group; when `withMembers`, with its members if they fit one bounded read (else they are streamed,
 * group-answer.ts). Reading and sending a large group's members is heavy work: it waits for one of the
 * directory's heavy-request slots (query/scan-gate.ts), held until the answer has gone out, so one
 * directory's parallel reads of a big group take turns instead of taking Redis and the event loop from
 * every other directory.
 */
async function readGroup(res: Response, c: ScimContext, id: string, withMembers: boolean): Promise<GroupRecord | undefined> {
  if (!withMembers) return c.groups.get(c.directoryId, id, false);
  const head = await c.groups.get(c.directoryId, id, false);
  if (!head || head.memberCount < c.settings.heavyGroupMembers) return head && c.groups.get(c.directoryId, id, "sliced");
  const release = await c.scans.acquire(c.directoryId);
  res.once("close", release);
  // a client that went away while waiting for its turn: the slot goes to the next at once
  if (res.closed) release();
  try {
    return await c.groups.get(c.directoryId, id, "sliced");
  } catch (err) {
    release();
    throw err;
  }
}

async function respondWith(req: Request, res: Response, id: string, status: number): Promise<void> {
  const c = scimContext(res);
  const projection = parseProjection(req.query.attributes, req.query.excludedAttributes);
  // a large group's members are not read here but streamed slice by slice into the answer (group-answer.ts)
  const rec = await readGroup(res, c, id, wantsMembers(projection));
  if (!rec) throw new ScimError(404, undefined, `Resource ${id} not found`);
  if (status === 200 && req.method === "GET" && notModified(req, rec.version)) {
    res.setHeader("ETag", `W/"${rec.version}"`);
    res.status(304).end();
    return;
  }
  res.setHeader("ETag", etag(rec.version));
  if (status === 201) res.setHeader("Location", `${c.base}/Groups/${rec.id}`);
  await sendChunks(res, status, groupAnswer(c.groups, c.directoryId, rec, c.base, projection));
}

/** Validates a group body through SCIMMY (displayName required, types). */
function validBody(body: Json, maxIdentifierLength: number): Json {
  return groupBody(body, undefined, maxIdentifierLength).body;
}

/**
 * Notes member values a write left out for naming nothing (bare strings, ids that do not exist), for the
 * resource's activity trail and the log (src/activity/idp-activity.ts).
 */
function noteSkipped(res: Response, ...lists: Array<string[] | undefined>): void {
  const all = lists.flatMap((l) => l ?? []);
  if (all.length) res.locals.scimSkippedMembers = [...new Set([...(res.locals.scimSkippedMembers as string[] | undefined ?? []), ...all])];
}

/** A group PATCH's plan, its member deltas (filtered removals resolved) encoded for the write. */
async function plannedPatch(req: Request, c: ScimContext, id: string): Promise<{ memberOps: EncodedMemberOps; attributes: Map<string, unknown>; skipped: string[]; ignored: string[] }> {
  const plan = planGroupPatch(normalisePatch("Group", req.body, c.settings.maxPatchOperations), c.settings.maxFilterLength, c.writeOptions.skipUnknownMembers);
  if (plan.filteredRemovals.length) {
    // a filter other than `value eq` reads every member: they count against the request's scan budget
    const head = await c.groups.get(c.directoryId, id, false);
    if (!head) throw new ScimError(404, undefined, `Resource ${id} not found`);
    if (head.memberCount > c.settings.maxScanRecords) {
      throw new ScimError(400, "tooMany", `The member filter needs all ${head.memberCount} members of the group read, more than the ${c.settings.maxScanRecords} this server reads for one request; remove members by value (members[value eq "…"], or a value array)`);
    }
    const values = await c.scans.run(c.directoryId, () => c.groups.memberValues(c.directoryId, id));
    const hits = values.filter((value) => plan.filteredRemovals.some((f) => matches("Group", { value }, f)));
    plan.memberOps.push({ op: "remove", members: hits.map((value) => ({ value })) });
  }
  return { memberOps: encodeMemberOps(plan.memberOps), attributes: plan.attributes, skipped: plan.skipped, ignored: plan.ignored };
}

/** The /Groups router (mounted under the directory router). */
export function groupsRouter(): Router {
  const r = Router({ mergeParams: true });

  r.get("/", async (req, res) => list(res, listParams(req.query as Record<string, unknown>, scimContext(res).settings)));
  r.post("/.search", async (req, res) => list(res, searchParams(req.body, scimContext(res).settings)));
  r.get("/:id", async (req, res) => respondWith(req, res, req.params.id, 200));

  r.post("/", async (req, res) => {
    const c = scimContext(res);
    const skipped: string[] = [];
    handleIgnored(res, ignoredGroupAttributes(req.body), "invalidSyntax");
    const { body, members } = groupBody(req.body, c.writeOptions.skipUnknownMembers ? skipped : undefined, c.settings.maxIdentifierLength);
    let id: string;
    try {
      ({ id } = await c.lostCreates.create(c.directoryId, "g", req.body, async (g) => !!(await c.groups.get(c.directoryId, g, false)), async (g) => {
        const r = await c.groups.write(c.directoryId, g, { ...c.writeOptions, mode: "create", body, memberOps: members?.length ? [{ op: "replace", members }] : [] });
        noteSkipped(res, skipped, r.skippedMembers);
      }));
    } catch (err) { throw toScimError(err); }
    await respondWith(req, res, id, 201);
  });

  r.put("/:id", async (req, res) => {
    const c = scimContext(res);
    const skipped: string[] = [];
    handleIgnored(res, ignoredGroupAttributes(req.body), "invalidSyntax");
    const { body, members } = groupBody(req.body, c.writeOptions.skipUnknownMembers ? skipped : undefined, c.settings.maxIdentifierLength);
    // [O11, ory/polis #3136] memberships sent in a PUT replace the group's; a PUT without members keeps them
    const memberOps: MemberOp[] = members ? [{ op: "replace", members }] : [];
    try {
      const r = await c.groups.write(c.directoryId, req.params.id, { ...c.writeOptions, mode: "update", body, memberOps, expectedVersion: expectedVersion(req) });
      noteSkipped(res, skipped, r.skippedMembers);
    } catch (err) { throw toScimError(err); }
    await respondWith(req, res, req.params.id, 200);
  });

  r.patch("/:id", async (req, res) => {
    const c = scimContext(res);
    const expected = expectedVersion(req);
    const { memberOps, attributes, skipped, ignored } = await plannedPatch(req, c, req.params.id);
    noteSkipped(res, skipped);
    handleIgnored(res, ignored, "invalidPath");
    // From here the request holds its members as one flat string, not as the parsed body and a member object
    // and id string per member: those stay alive while the write waits on Redis, and V8 would copy them at
    // every young-generation collection.
    req.body = undefined;
    for (let attempt = 1; ; attempt++) {
      let body: Json | undefined;
      let basedOn: Json | undefined;
      if (attributes.size) {
        const rec = await c.groups.get(c.directoryId, req.params.id, false);
        if (!rec) throw new ScimError(404, undefined, `Resource ${req.params.id} not found`);
        const next = validBody(applyAttributes(rec.body, attributes), c.settings.maxIdentifierLength);
        // Okta re-sends the group name on every membership change (O9): an unchanged body is no write
        if (JSON.stringify(next) !== JSON.stringify(rec.body)) { body = next; basedOn = rec.body; }
      }
      try {
        if (body || memberOps.count || expected !== undefined || !attributes.size) {
          const r = await c.groups.write(c.directoryId, req.params.id, { ...c.writeOptions, mode: "update", body, basedOn, memberOps, expectedVersion: expected });
          noteSkipped(res, r.skippedMembers);
        }
        break;
      } catch (err) {
        if (err instanceof StoreRetryError && attempt < MAX_CAS_ATTEMPTS) continue;
        throw toScimError(err);
      }
    }
    if (req.query.attributes !== undefined || req.query.excludedAttributes !== undefined) return respondWith(req, res, req.params.id, 200);
    res.status(204).end();
  });

  r.delete("/:id", async (req, res) => {
    const c = scimContext(res);
    try {
      await c.groups.delete(c.directoryId, req.params.id, expectedVersion(req));
    } catch (err) { throw toScimError(err); }
    res.status(204).end();
  });

  r.all("/{*rest}", (req) => {
    throw new ScimError(405, undefined, `Method ${req.method} is not supported on this endpoint`);
  });
  return r;
}

