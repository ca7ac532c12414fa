/**
 * SCIMMY set-up: the User (with the enterprise extension) and Group resource types, and a table of
 * attribute characteristics (type, caseExact, multiValued) read from SCIMMY's schema definitions, which
 * the filter evaluator, sorter and dialect normalisers use.
 *
 * A directory's own declared extensions are not SCIMMY's (extensions/declared.ts says why).
 * SCIMMY's definitions are process-wide; `setupScimmy` is idempotent and must run before scimmy-routers
 * is constructed (STACK.md §6).
 */
import SCIMMY from "scimmy";
import { currentExtensions } from "./extensions/declared";

export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
export const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
export const ENTERPRISE_SCHEMA = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
export const PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
export const LIST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
export const SEARCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:SearchRequest";

/** What the evaluator needs to know of one attribute. */
export interface AttrInfo {
  type: string;
  caseExact: boolean;
  multiValued: boolean;
}

export type ResourceKind = "User" | "Group";

let done = false;
const tables: Record<ResourceKind, Map<string, AttrInfo>> = { User: new Map(), Group: new Map() };
/** Complex attributes (lower-cased paths) with at least one boolean sub-attribute, e.g. `emails` (`emails.primary`). */
const withBooleanSubs: Record<ResourceKind, Set<string>> = { User: new Set(), Group: new Set() };

interface ScimmyAttribute { name: string; type: string; config: { caseExact?: boolean; multiValued?: boolean; canonicalValues?: unknown }; subAttributes?: ScimmyAttribute[] }
interface ScimmyDefinition { id: string; attributes: Array<ScimmyAttribute | ScimmyDefinition> }

function isDefinition(a: ScimmyAttribute | ScimmyDefinition): a is ScimmyDefinition {
  return typeof (a as ScimmyDefinition).id === "string" && Array.isArray((a as ScimmyDefinition).attributes);
}

/** The canonical values SCIMMY's definitions declare, by lower-cased path (`emails.type`, `members.type`). */
const canonical: Record<ResourceKind, Map<string, string[]>> = { User: new Map(), Group: new Map() };

/**
 * Canonical values are suggestions: [RFC7643§2.3.1] "service providers MAY ... accept other values".
 * IdPs send their own `type`s (Entra's "WindowsAzureActiveDirectoryRole" roles, "Work" emails), and
 * [E15] values must be stored as sent, so no attribute of ours restricts itself to canonical values.
 * They are still published: /Schemas lists them (`canonicalValues`), read from `canonicalValuesOf`.
 */
function relaxCanonicalValues(kind: ResourceKind, attr: ScimmyAttribute, path: string): void {
  if (Array.isArray(attr.config.canonicalValues)) {
    canonical[kind].set(path, [...(attr.config.canonicalValues as string[])]);
    attr.config.canonicalValues = false;
  }
  for (const sub of attr.subAttributes ?? []) relaxCanonicalValues(kind, sub, `${path}.${sub.name.toLowerCase()}`);
}

function collect(kind: ResourceKind, def: ScimmyDefinition, table: Map<string, AttrInfo>, booleanParents: Set<string>, prefix = ""): void {
  for (const a of def.attributes) {
    if (isDefinition(a)) {
      collect(kind, a, table, booleanParents, `${a.id.toLowerCase()}:`);
      continue;
    }
    const base = `${prefix}${a.name.toLowerCase()}`;
    relaxCanonicalValues(kind, a, base);
    table.set(base, { type: a.type, caseExact: !!a.config.caseExact, multiValued: !!a.config.multiValued });
    for (const s of a.subAttributes ?? []) {
      table.set(`${base}.${s.name.toLowerCase()}`, { type: s.type, caseExact: !!s.config.caseExact, multiValued: !!s.config.multiValued });
      if (s.type === "boolean") booleanParents.add(base);
    }
  }
}

/** Declares User (+ enterprise extension) and Group with SCIMMY once per process and builds the tables. */
export function setupScimmy(): void {
  if (done) return;
  done = true;
  if (!SCIMMY.Resources.declared("User")) SCIMMY.Resources.declare(SCIMMY.Resources.User);
  if (!SCIMMY.Resources.declared("Group")) SCIMMY.Resources.declare(SCIMMY.Resources.Group);
  SCIMMY.Resources.User.extend(SCIMMY.Schemas.EnterpriseUser, false);
  collect("User", SCIMMY.Schemas.User.definition as unknown as ScimmyDefinition, tables.User, withBooleanSubs.User);
  collect("Group", SCIMMY.Schemas.Group.definition as unknown as ScimmyDefinition, tables.Group, withBooleanSubs.Group);
  for (const t of Object.values(tables)) {
    // common attributes ([RFC7643§3.1]) every resource has, which filters may name
    t.set("schemas", { type: "reference", caseExact: true, multiValued: true });
    t.set("meta", { type: "complex", caseExact: false, multiValued: false });
    t.set("id", { type: "string", caseExact: true, multiValued: false });
    t.set("externalid", { type: "string", caseExact: true, multiValued: false });
    t.set("meta.created", { type: "dateTime", caseExact: false, multiValued: false });
    t.set("meta.lastmodified", { type: "dateTime", caseExact: false, multiValued: false });
    t.set("meta.version", { type: "string", caseExact: true, multiValued: false });
    t.set("meta.resourcetype", { type: "string", caseExact: true, multiValued: false });
    t.set("meta.location", { type: "reference", caseExact: true, multiValued: false });
  }
}

/** The canonical values SCIMMY declares for `path` (lower-cased: `emails.type`), for /Schemas; undefined when none. */
export function canonicalValuesOf(kind: ResourceKind, path: string): string[] | undefined {
  setupScimmy();
  return canonical[kind].get(path);
}

/**
 * Attribute characteristics by lower-cased path (`name.givenname`, `<urn>:department`), or undefined. A
 * User path outside SCIMMY's definitions is looked up in the current request's declared extensions.
 */
export function attrInfo(kind: ResourceKind, path: string): AttrInfo | undefined {
  setupScimmy();
  return tables[kind].get(path) ?? (kind === "User" ? currentExtensions().info(path) : undefined);
}

/** True when the complex attribute at `path` (lower-cased) has a boolean sub-attribute (`emails` → `emails.primary`). */
export function hasBooleanSubAttribute(kind: ResourceKind, path: string): boolean {
  setupScimmy();
  return withBooleanSubs[kind].has(path);
}
