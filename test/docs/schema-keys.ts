/**
 * Every key path of a zod 4 config schema with its default: read by the README configuration reference
 * test and the doc references test.
 */
import { z } from "zod";

/** A key path of the schema, and its default when it has one (prefault `{}` objects have none). */
interface KeyInfo {
  path: string;
  default?: unknown;
}

interface ZodDefLike {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  defaultValue?: unknown;
}

function defOf(schema: z.ZodType): ZodDefLike {
  return (schema as unknown as { _zod: { def: ZodDefLike } })._zod.def;
}

/**
 * Walks a zod 4 schema: objects by `def.shape`, arrays by `def.element` (an array of objects adds `[]` to
 * the path of its fields), wrappers (`default`, `prefault`, `optional`, `nullable`) by `def.innerType`.
 * Every key below the root is listed, objects and arrays included, with its `default`/`prefault` value.
 */
export function schemaKeys(schema: z.ZodType, prefix = "", out: KeyInfo[] = []): KeyInfo[] {
  const { inner, info } = unwrap(schema);
  if (prefix) out.push({ path: prefix, ...info });
  const def = defOf(inner);
  if (def.type === "object") fieldsOf(def, prefix, out);
  if (def.type === "array") {
    const element = defOf(unwrap(def.element!).inner);
    if (element.type === "object") fieldsOf(element, `${prefix}[]`, out);
  }
  return out;
}

function fieldsOf(objectDef: ZodDefLike, prefix: string, out: KeyInfo[]): void {
  for (const [k, v] of Object.entries(objectDef.shape!)) schemaKeys(v, prefix ? `${prefix}.${k}` : k, out);
}

/** Strips wrappers; the outermost `default` / `prefault` value is the key's default. */
function unwrap(schema: z.ZodType): { inner: z.ZodType; info: { default?: unknown } } {
  let s = schema;
  let info: { default?: unknown } = {};
  for (;;) {
    const def = defOf(s);
    if (!["default", "prefault", "optional", "nullable", "readonly"].includes(def.type)) return { inner: s, info };
    if ((def.type === "default" || def.type === "prefault") && !("default" in info)) {
      info = { default: typeof def.defaultValue === "function" ? (def.defaultValue as () => unknown)() : def.defaultValue };
    }
    s = def.innerType!;
  }
}

