/**
 * Reads a value out of a SCIM user body by attribute path, as a directory's attribute mapping names it:
 * `title`, `name.givenName`, `emails.value` (primary first), `emails[type eq "work"].value`,
 * `urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department`, `…:manager.value`.
 * Names are case-insensitive ([RFC7643§2.1]). Returns undefined when absent.
 */
type Json = Record<string, unknown>;

function getCI(obj: unknown, key: string): unknown {
  if (!obj || typeof obj !== "object" || Array.isArray(obj)) return undefined;
  const lower = key.toLowerCase();
  for (const k of Object.keys(obj as Json)) if (k.toLowerCase() === lower) return (obj as Json)[k];
  return undefined;
}

/** Multi-valued complex values, primary first. */
function primaryFirst(items: unknown[]): unknown[] {
  return [...items].sort((a, b) => Number(getCI(b, "primary") === true) - Number(getCI(a, "primary") === true));
}

/** The value at `path` in `body`; for multi-valued attributes an array (primary first). */
export function attributeValue(body: Json, path: string): unknown {
  let container: unknown = body;
  let rest = path;
  if (path.toLowerCase().startsWith("urn:")) {
    const cut = path.lastIndexOf(":");
    container = getCI(body, path.slice(0, cut));
    rest = path.slice(cut + 1);
  }
  const m = /^([^.[\]]+)(?:\[\s*(\w+)\s+eq\s+"([^"]*)"\s*\])?(?:\.(\w+))?$/i.exec(rest);
  if (!m) return undefined;
  const [, attr, filterAttr, filterValue, sub] = m;
  let value = getCI(container, attr);
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) {
    let items = primaryFirst(value);
    if (filterAttr) items = items.filter((it) => String(getCI(it, filterAttr) ?? "").toLowerCase() === filterValue.toLowerCase());
    const vals = sub ? items.map((it) => getCI(it, sub)).filter((v) => v !== undefined && v !== null) : items;
    return vals.length ? vals : undefined;
  }
  if (sub) value = getCI(value, sub);
  return value === null ? undefined : value;
}

/** The first scalar of a value (the primary one of a multi-valued attribute). */
export function firstScalar(v: unknown): unknown {
  return Array.isArray(v) ? v[0] : v;
}
