/**
 * What one simulated IdP sends, as Okta and Entra ID send it (IDP-DIALECTS rows in brackets). Each call
 * of `nextOperation` picks one operation by weight and returns it as HTTP exchanges with the statuses
 * they must get. The directory model is the IdP's own view (what it created), used only to pick targets:
 * the soak's final check compares the bridge with the platform, not with this model.
 *
 * Okta: lookup by `userName eq` before a create (O1), POST, PUT of the whole user on a profile change,
 *   deactivation as a no-path `replace` of `{active:false}` (O6), member add as a value array and removal
 *   by `members[value eq "…"]` (O8).
 * Entra: lookup by `userName eq` (E9), POST with the enterprise extension, capitalised ops (E1),
 *   `"False"`/`"True"` strings for active (E3), the work email by value-filter path (E6), group lookup by
 *   displayName without members (E9), member add and removal as value arrays (E7, E13).
 */

export type Dialect = "okta" | "entra";

/** One HTTP exchange and the statuses that are correct for it. */
export interface Exchange {
  method: "GET" | "POST" | "PUT" | "PATCH";
  path: string;
  body?: Record<string, unknown>;
  expect: number[];
  /** Runs with the parsed answer (to learn ids). */
  then?: (body: Record<string, unknown> | undefined) => void;
}

export interface ModelUser { id: string; userName: string; active: boolean; title: string }
export interface ModelGroup { id: string; displayName: string; members: Set<string> }

/** One directory as its IdP sees it. */
export class DirectoryModel {
  readonly users: ModelUser[] = [];
  readonly groups: ModelGroup[] = [];
  private seq = 0;
  constructor(readonly id: string, readonly dialect: Dialect) {}

  next(): number {
    return ++this.seq;
  }
}

const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const MAX_GROUPS = 12;

const pick = <T>(xs: T[]): T => xs[Math.floor(Math.random() * xs.length)];
const filterQ = (attr: string, v: string) => `filter=${encodeURIComponent(`${attr} eq "${v}"`)}`;

function userBody(m: DirectoryModel, u: Pick<ModelUser, "userName" | "active" | "title">): Record<string, unknown> {
  const [given, family] = u.userName.split("@")[0].split(".");
  const base = {
    userName: u.userName, active: u.active, title: u.title, displayName: `${given} ${family}`,
    name: { givenName: given, familyName: family }, emails: [{ value: u.userName, type: "work", primary: true }],
  };
  return m.dialect === "okta"
    ? { schemas: [USER], ...base }
    : { schemas: [USER, ENTERPRISE], ...base, externalId: `ext-${u.userName}`, [ENTERPRISE]: { department: "Sales" } };
}

function createUser(m: DirectoryModel): Exchange[] {
  const n = m.next();
  const u: ModelUser = { id: "", userName: `${m.dialect}.${m.id}-${n}@soak.example`, active: true, title: "Member" };
  return [
    { method: "GET", path: `/Users?${filterQ("userName", u.userName)}`, expect: [200] },
    { method: "POST", path: "/Users", body: userBody(m, u), expect: [201], then: (b) => { u.id = String(b?.id); m.users.push(u); } },
  ];
}

function updateUser(m: DirectoryModel, u: ModelUser): Exchange[] {
  u.title = `Title ${m.next()}`;
  if (m.dialect === "okta") return [{ method: "PUT", path: `/Users/${u.id}`, body: { ...userBody(m, u), id: u.id }, expect: [200] }];
  const ops = [{ op: "Replace", path: "title", value: u.title }];
  if (Math.random() < 0.3) ops.push({ op: "Replace", path: 'emails[type eq "work"].value', value: u.userName });
  return [{ method: "PATCH", path: `/Users/${u.id}`, body: { schemas: [PATCH], Operations: ops }, expect: [200] }];
}

function setActive(m: DirectoryModel, u: ModelUser, active: boolean): Exchange[] {
  u.active = active;
  const Operations = m.dialect === "okta"
    ? [{ op: "replace", value: { active } }]
    : [{ op: "Replace", path: "active", value: active ? "True" : "False" }];
  return [{ method: "PATCH", path: `/Users/${u.id}`, body: { schemas: [PATCH], Operations }, expect: [200] }];
}

function createGroup(m: DirectoryModel): Exchange[] {
  const g: ModelGroup = { id: "", displayName: `${m.id} team ${m.next()}`, members: new Set() };
  return [{ method: "POST", path: "/Groups", body: { schemas: [GROUP], displayName: g.displayName, members: [] }, expect: [201], then: (b) => { g.id = String(b?.id); m.groups.push(g); } }];
}

function addMember(m: DirectoryModel, g: ModelGroup, u: ModelUser): Exchange[] {
  g.members.add(u.id);
  const value = m.dialect === "okta" ? [{ value: u.id, display: u.userName }] : [{ value: u.id }];
  return [{ method: "PATCH", path: `/Groups/${g.id}`, body: { schemas: [PATCH], Operations: [{ op: m.dialect === "okta" ? "add" : "Add", path: "members", value }] }, expect: [204] }];
}

function removeMember(m: DirectoryModel, g: ModelGroup, id: string): Exchange[] {
  g.members.delete(id);
  const Operations = m.dialect === "okta"
    ? [{ op: "remove", path: `members[value eq "${id}"]` }]
    : [{ op: "Remove", path: "members", value: [{ value: id }] }];
  return [{ method: "PATCH", path: `/Groups/${g.id}`, body: { schemas: [PATCH], Operations }, expect: [204] }];
}

/** The next operation of this IdP, weighted as listed (a create while the directory is small, or when `only` says so). */
export function nextOperation(m: DirectoryModel, only?: "create user"): { name: string; exchanges: Exchange[] } {
  const users = m.users.filter((u) => u.id);
  const groups = m.groups.filter((g) => g.id);
  const r = Math.random() * 100;
  if (only || users.length < 20 || r < 25) return { name: "create user", exchanges: createUser(m) };
  if (r < 45) return { name: "lookup", exchanges: [{ method: "GET", path: `/Users?${filterQ("userName", pick(users).userName)}`, expect: [200] }] };
  if (r < 50 && groups.length) {
    const path = m.dialect === "entra" ? `/Groups?excludedAttributes=members&${filterQ("displayName", pick(groups).displayName)}` : `/Groups?${filterQ("displayName", pick(groups).displayName)}`;
    return { name: "group lookup", exchanges: [{ method: "GET", path, expect: [200] }] };
  }
  if (r < 65) return { name: "update user", exchanges: updateUser(m, pick(users)) };
  if (r < 72) {
    const u = pick(users);
    return { name: u.active ? "deactivate" : "reactivate", exchanges: setActive(m, u, !u.active) };
  }
  if (groups.length < MAX_GROUPS && (groups.length < 3 || r < 75)) return { name: "create group", exchanges: createGroup(m) };
  const g = pick(groups);
  if (r < 88 || g.members.size < 5) return { name: "add member", exchanges: addMember(m, g, pick(users)) };
  return { name: "remove member", exchanges: removeMember(m, g, pick([...g.members])) };
}
