/**
 * /Schemas and /ResourceTypes documents, read from SCIMMY's definitions (the same ones that validate
 * request bodies, so what is published is what is implemented), with:
 * - `canonicalValues` put back where SCIMMY declares them (`emails.type` work/home/other, `members.type`
 *   User/Group, …): the bridge accepts other values too (schemas.ts), which [RFC7643§2.3.1] allows, and
 *   draft-zollner-scim-interop-profile (Canonical Values for Typed Attributes) asks that "Service Providers MUST declare the acceptable
 *   `type` values for each such attribute in that attribute's `canonicalValues` property";
 * - the directory's declared extensions (extensions/documents.ts) after the built-in schemas, and in the
 *   User resource type's `schemaExtensions`;
 * - `meta.location` under the directory's own base URL (scimmy-routers set a process-wide base path per
 *   request, so concurrent requests of two directories could swap them).
 */
import SCIMMY from "scimmy";
import { ScimError } from "../errors";
import { canonicalValuesOf, setupScimmy, type ResourceKind } from "../schemas";
import { declaredExtensions, type DeclaredExtensions } from "../extensions/declared";
import { declaredSchemaDocuments, withDeclaredExtensions } from "../extensions/documents";

const NO_EXTENSIONS = declaredExtensions([]);

type Json = Record<string, unknown>;

const KIND_OF_SCHEMA: Record<string, ResourceKind> = {
  "urn:ietf:params:scim:schemas:core:2.0:user": "User",
  "urn:ietf:params:scim:schemas:extension:enterprise:2.0:user": "User",
  "urn:ietf:params:scim:schemas:core:2.0:group": "Group",
};

let schemas: Json[] | undefined;
let resourceTypes: Json[] | undefined;

function withCanonicalValues(kind: ResourceKind, attributes: Json[], prefix: string): Json[] {
  return attributes.map((a) => {
    const path = `${prefix}${String(a.name).toLowerCase()}`;
    const out: Json = { ...a };
    const values = canonicalValuesOf(kind, path);
    if (values) out.canonicalValues = values;
    if (Array.isArray(a.subAttributes)) out.subAttributes = withCanonicalValues(kind, a.subAttributes as Json[], `${path}.`);
    return out;
  });
}

async function load(): Promise<{ schemas: Json[]; resourceTypes: Json[] }> {
  if (!schemas || !resourceTypes) {
    setupScimmy();
    const list = JSON.parse(JSON.stringify(await new SCIMMY.Resources.Schema().read())) as { Resources: Json[] };
    schemas = list.Resources.map((doc) => {
      const id = String(doc.id);
      const kind = KIND_OF_SCHEMA[id.toLowerCase()];
      const prefix = id.toLowerCase().includes(":extension:") ? `${id.toLowerCase()}:` : "";
      return kind && Array.isArray(doc.attributes) ? { ...doc, attributes: withCanonicalValues(kind, doc.attributes as Json[], prefix) } : doc;
    });
    resourceTypes = (JSON.parse(JSON.stringify(await new SCIMMY.Resources.ResourceType().read())) as { Resources: Json[] }).Resources;
  }
  return { schemas, resourceTypes };
}

function located(doc: Json, resourceType: string, location: string): Json {
  return { ...doc, meta: { ...(doc.meta as Json | undefined), resourceType, location } };
}

/** The built-in schemas and the directory's declared extensions (extensions/documents.ts). */
async function schemasOf(declared: DeclaredExtensions): Promise<Json[]> {
  const own = (await load()).schemas;
  return declared.empty ? own : [...own, ...declaredSchemaDocuments(declared)];
}

/** Every schema (the directory's declared extensions included), each with its location under `base`. */
export async function schemaList(base: string, declared: DeclaredExtensions = NO_EXTENSIONS): Promise<Json[]> {
  return (await schemasOf(declared)).map((d) => located(d, "Schema", `${base}/Schemas/${String(d.id)}`));
}

/** One schema by its URN (case-insensitive); 404 when there is none. */
export async function schemaById(id: string, base: string, declared: DeclaredExtensions = NO_EXTENSIONS): Promise<Json> {
  const doc = (await schemasOf(declared)).find((d) => String(d.id).toLowerCase() === id.toLowerCase());
  if (!doc) throw new ScimError(404, undefined, `Schema ${id} not found`);
  return located(doc, "Schema", `${base}/Schemas/${String(doc.id)}`);
}

/** Every resource type (User's `schemaExtensions` with the declared ones), each with its location under `base`. */
export async function resourceTypeList(base: string, declared: DeclaredExtensions = NO_EXTENSIONS): Promise<Json[]> {
  return (await load()).resourceTypes.map((d) => located(withDeclaredExtensions(d, declared), "ResourceType", `${base}/ResourceTypes/${String(d.id)}`));
}

/** One resource type by id (`User`, `Group`; case-insensitive); 404 when there is none. */
export async function resourceTypeById(id: string, base: string, declared: DeclaredExtensions = NO_EXTENSIONS): Promise<Json> {
  const doc = (await load()).resourceTypes.find((d) => String(d.id).toLowerCase() === id.toLowerCase());
  if (!doc) throw new ScimError(404, undefined, `ResourceType ${id} not found`);
  return located(withDeclaredExtensions(doc, declared), "ResourceType", `${base}/ResourceTypes/${String(doc.id)}`);
}
