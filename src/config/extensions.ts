/**
 * `directories[].extensions`: the User schema extensions a directory declares, so the custom attributes an
 * IdP maps (Entra's `urn:ietf:params:scim:schemas:extension:<Name>:2.0:User:<attr>`, Okta's profile-editor
 * attributes read from /Schemas) are stored, returned, patched, filtered and advertised like the
 * enterprise extension. Their size is bounded per extension so a declaration cannot make one user's
 * record grow without limit.
 */
import { z } from "zod";
import { strictObject } from "./strict-object";

/** Extensions one directory may declare. */
export const MAX_EXTENSIONS = 20;
/** Attributes one extension may declare. */
export const MAX_EXTENSION_ATTRIBUTES = 100;

/** URNs the bridge defines itself: not declarable. */
const OWN_URNS = [
  "urn:ietf:params:scim:schemas:core:2.0:user",
  "urn:ietf:params:scim:schemas:core:2.0:group",
  "urn:ietf:params:scim:schemas:extension:enterprise:2.0:user",
];

/** [RFC7643§2.1] `ATTRNAME = ALPHA *(nameChar)`, `nameChar = "-" / "_" / DIGIT / ALPHA`. */
const ATTRNAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

/** The attribute types a declared attribute may have ([RFC7643§2.3]; no complex, no binary). */
export const extensionAttributeType = z.enum(["string", "boolean", "integer", "decimal", "dateTime", "reference"]);

const extensionAttributeSchema = strictObject({
  /** The attribute's name as IdPs send it (case-insensitive on the way in, this spelling on the way out). */
  name: z.string().regex(ATTRNAME, "expected an attribute name of letters, digits, '-' and '_', starting with a letter (RFC 7643 §2.1)"),
  type: extensionAttributeType.default("string"),
  multiValued: z.boolean().default(false),
  /** Case-sensitive comparison in filters (RFC 7643 §2.2 caseExact). */
  caseExact: z.boolean().default(false),
  description: z.string().max(500).optional(),
});

export const extensionSchema = strictObject({
  /** The schema URN, e.g. `urn:ietf:params:scim:schemas:extension:CustomExtensionName:2.0:User`. */
  urn: z.string()
    .regex(/^urn:[A-Za-z0-9][A-Za-z0-9-]{0,31}:[A-Za-z0-9()+,\-.:=@;$_!*'%/?#]+$/, "expected a URN such as urn:ietf:params:scim:schemas:extension:CustomExtensionName:2.0:User")
    .refine((u) => !OWN_URNS.includes(u.toLowerCase()), { message: "the core and enterprise schemas are built in; declare only your own extension URNs" })
    .refine((u) => !u.endsWith(":"), { message: "a URN must not end with ':'" }),
  /** The schema's `name` in /Schemas (default: the URN's last name before `:2.0`, or the URN). */
  name: z.string().min(1).max(200).optional(),
  description: z.string().max(500).optional(),
  attributes: z.array(extensionAttributeSchema).min(1, "declare at least one attribute").max(MAX_EXTENSION_ATTRIBUTES),
  /** Characters one string value may hold (400 invalidValue beyond). */
  maxValueLength: z.number().int().positive().max(65536).default(1024),
  /** Values one multi-valued attribute may hold (400 invalidValue beyond). */
  maxValues: z.number().int().positive().max(1000).default(100),
}).superRefine((e, ctx) => {
  const seen = new Set<string>();
  e.attributes.forEach((a, i) => {
    const lower = a.name.toLowerCase();
    if (seen.has(lower)) ctx.addIssue({ code: "custom", path: ["attributes", i, "name"], message: `'${a.name}' is declared twice (attribute names are case-insensitive)` });
    seen.add(lower);
  });
});

export type ExtensionConfig = z.infer<typeof extensionSchema>;
export type ExtensionAttributeConfig = ExtensionConfig["attributes"][number];

/** The `extensions` key of a directory: at most MAX_EXTENSIONS, each URN once (case-insensitive). */
export const extensionsSchema = z.array(extensionSchema).max(MAX_EXTENSIONS).default([]).superRefine((list, ctx) => {
  const seen = new Set<string>();
  list.forEach((e, i) => {
    const lower = e.urn.toLowerCase();
    if (seen.has(lower)) ctx.addIssue({ code: "custom", path: [i, "urn"], message: `${e.urn} is declared twice` });
    seen.add(lower);
  });
});

/**
 * The extension URN a mapped SCIM path (`urn:…:2.0:User:costCenter`) names when the directory does not
 * declare it (and it is not the built-in enterprise extension); undefined for core paths and known URNs.
 */
export function undeclaredExtensionOf(path: string, declared: readonly ExtensionConfig[]): string | undefined {
  if (!path.toLowerCase().startsWith("urn:")) return undefined;
  const urn = path.slice(0, path.lastIndexOf(":"));
  const lower = urn.toLowerCase();
  if (OWN_URNS.includes(lower) || declared.some((e) => e.urn.toLowerCase() === lower)) return undefined;
  return urn;
}
