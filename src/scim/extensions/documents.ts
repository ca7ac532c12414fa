/**
 * The /Schemas and /ResourceTypes entries of a directory's declared extensions, in the shape SCIMMY gives
 * the built-in schemas ([RFC7643§7]: "id", "name", "description", "attributes" with each attribute's
 * characteristics). Okta's schema discovery reads them to offer the attributes in its profile editor
 * (IDP-DIALECTS O17): "Okta reads /Schemas and /ResourceTypes … schemaExtensions" for custom attributes.
 */
import type { ExtensionConfig } from "../../config/extensions";
import type { DeclaredExtensions } from "./declared";

type Json = Record<string, unknown>;

const SCHEMA_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Schema";

/** The schema's name: configured, else the URN's name before its version (`CustomExtensionName`). */
function nameOf(ext: ExtensionConfig): string {
  if (ext.name) return ext.name;
  const m = /:([^:]+):\d+(?:\.\d+)*:[^:]+$/.exec(ext.urn);
  return m ? m[1] : ext.urn;
}

/** One declared extension as a Schema resource (without `meta`, which the discovery router adds). */
export function extensionSchemaDocument(ext: ExtensionConfig): Json {
  return {
    schemas: [SCHEMA_SCHEMA],
    id: ext.urn,
    name: nameOf(ext),
    description: ext.description ?? `${nameOf(ext)} (declared by this directory)`,
    attributes: ext.attributes.map((a) => ({
      name: a.name,
      type: a.type,
      multiValued: a.multiValued,
      ...(a.description ? { description: a.description } : {}),
      required: false,
      caseExact: a.caseExact,
      mutability: "readWrite",
      returned: "default",
      uniqueness: "none",
      ...(a.type === "reference" ? { referenceTypes: ["external"] } : {}),
    })),
  };
}

/** The declared extensions as Schema resources. */
export function declaredSchemaDocuments(declared: DeclaredExtensions): Json[] {
  return declared.list.map(extensionSchemaDocument);
}

/** A ResourceType document with the declared extensions added to the User type's `schemaExtensions`. */
export function withDeclaredExtensions(resourceType: Json, declared: DeclaredExtensions): Json {
  if (declared.empty || resourceType.id !== "User") return resourceType;
  const own = Array.isArray(resourceType.schemaExtensions) ? resourceType.schemaExtensions as Json[] : [];
  return { ...resourceType, schemaExtensions: [...own, ...declared.list.map((e) => ({ schema: e.urn, required: false }))] };
}
