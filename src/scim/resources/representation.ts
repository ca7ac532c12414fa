/**
 * Turns stored records into SCIM resources. The stored body was validated by SCIMMY on the way in, so
 * the way out is a cheap assembly: meta (absolute `location`, `version` = the ETag), derived attributes
 * (`User.groups`, `Group.members` with `$ref`), no second schema pass.
 */
import type { GroupRecord, UserRecord } from "../../store";
import { GROUP_SCHEMA, USER_SCHEMA } from "../schemas";

type Json = Record<string, unknown>;

/** `W/"<version>"`: the ETag header and `meta.version` ([RFC7644§3.14]). */
export function etag(version: number): string {
  return `W/"${version}"`;
}

function meta(resourceType: string, rec: { created: string; lastModified: string; version: number }, location: string): Json {
  return { resourceType, created: rec.created, lastModified: rec.lastModified, location, version: etag(rec.version) };
}

function head(body: Json, fallbackSchema: string, id: string): Json {
  const { schemas, externalId } = body;
  return { schemas: Array.isArray(schemas) && schemas.length ? schemas : [fallbackSchema], id, ...(externalId !== undefined ? { externalId } : {}) };
}

function rest(body: Json): Json {
  const { schemas: _s, externalId: _e, id: _i, meta: _m, members: _mm, groups: _g, ...others } = body;
  return others;
}

/** A user as SCIM sees it; `base` is `<publicBaseUrl>/scim/v2/<directory>`. */
export function userResource(rec: UserRecord, base: string): Json {
  const out: Json = { ...head(rec.body, USER_SCHEMA, rec.id), meta: meta("User", rec, `${base}/Users/${rec.id}`), ...rest(rec.body) };
  if (rec.groups.length) {
    // [RFC7643§4.1.2] groups: "A list of groups to which the user belongs … type: direct"
    out.groups = rec.groups.map((g) => ({ value: g.value, $ref: `${base}/Groups/${g.value}`, display: g.display, type: "direct" }));
  }
  return out;
}

/**
 * A group as SCIM sees it; members are present only when the record was read with them and there are
 * some. [RFC7643§2.5](https://datatracker.ietf.org/doc/html/rfc7643#section-2.5): "Unassigned attributes,
 * the null value, or empty array (in the case of a multi-valued attribute) SHALL be considered to be
 * equivalent in "state"… unassigned attributes… MAY be omitted for compactness."
 */
export function groupResource(rec: GroupRecord, base: string): Json {
  const out: Json = { ...head(rec.body, GROUP_SCHEMA, rec.id), meta: meta("Group", rec, `${base}/Groups/${rec.id}`), ...rest(rec.body) };
  if (rec.members?.length) {
    out.members = rec.members.map((m) => ({
      value: m.value,
      $ref: `${base}/${m.type === "Group" ? "Groups" : "Users"}/${m.value}`,
      ...(m.display ? { display: m.display } : {}),
      type: m.type,
    }));
  }
  return out;
}
