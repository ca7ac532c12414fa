/**
 * Coerces a SCIM value to a platform user-attribute type. The contract: "`value` is a string, number,
 * array of strings, array of numbers, boolean, or null; its type must match the attribute definition's
 * `type`; null clears the value." A value that cannot be coerced becomes null (cleared) rather than a
 * request the platform refuses.
 */
import type { UserAttributeType, UserAttributeValue } from "../../platform";

function toNumber(v: unknown): number | null {
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v);
  if (typeof v === "boolean") return v ? 1 : 0;
  return null;
}

function toStr(v: unknown): string | null {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (v && typeof v === "object" && "value" in (v as object)) return toStr((v as { value: unknown }).value);
  return null;
}

function toBool(v: unknown): boolean | null {
  if (typeof v === "boolean") return v;
  if (typeof v === "string" && /^(true|false)$/i.test(v.trim())) return v.trim().toLowerCase() === "true";
  if (typeof v === "number") return v !== 0;
  return null;
}

/** Value for the platform, or null when absent or not convertible. */
export function coerceAttribute(value: unknown, type: UserAttributeType): UserAttributeValue {
  if (value === undefined || value === null) return null;
  const list = Array.isArray(value) ? value : [value];
  switch (type) {
    case "string": return toStr(list[0]);
    case "number": return toNumber(list[0]);
    case "boolean": return toBool(list[0]);
    case "string_array": {
      const out = list.map(toStr).filter((x): x is string => x !== null);
      return out;
    }
    case "number_array": {
      const out = list.map(toNumber).filter((x): x is number => x !== null);
      return out;
    }
  }
}
