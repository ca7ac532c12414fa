/**
 * Values of declared extension attributes, checked against their declaration before they are stored:
 * the type ([RFC7643§2.3]), single or multi-valued, and the extension's size bounds (`maxValueLength`
 * characters per string, `maxValues` values per multi-valued attribute). A value that does not fit is
 * 400 invalidValue: [RFC7644§3.12] "invalidValue: A required value was missing, or the value specified
 * was not compatible with the operation or attribute type".
 *
 * As for core booleans (IDP-DIALECTS E3), Entra's string booleans "True"/"False" are read as booleans, and
 * a number written as a string is read as a number for integer and decimal attributes.
 */
import type { ExtensionAttributeConfig, ExtensionConfig } from "../../config/extensions";
import { ScimError } from "../errors";
import { parseInstant } from "../query/date-time";
import { stringToBoolean } from "../dialects/coerce-values";

type Scalar = string | number | boolean;

function bad(path: string, detail: string): ScimError {
  return new ScimError(400, "invalidValue", `Attribute '${path}' ${detail}`);
}

function scalar(ext: ExtensionConfig, attr: ExtensionAttributeConfig, path: string, v: unknown): Scalar {
  switch (attr.type) {
    case "boolean": {
      const b = stringToBoolean(v);
      if (typeof b !== "boolean") throw bad(path, "expects a boolean");
      return b;
    }
    case "integer":
    case "decimal": {
      const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
      if (typeof n !== "number" || !Number.isFinite(n)) throw bad(path, `expects a ${attr.type === "integer" ? "whole number" : "number"}`);
      if (attr.type === "integer" && !Number.isSafeInteger(n)) throw bad(path, "expects a whole number");
      return n;
    }
    case "dateTime":
      if (typeof v !== "string" || !parseInstant(v)) throw bad(path, "expects an xsd:dateTime such as 2024-05-01T09:30:00Z");
      return v;
    default: // string, reference
      if (typeof v !== "string") throw bad(path, "expects a string");
      if (v.length > ext.maxValueLength) throw bad(path, `holds more than ${ext.maxValueLength} characters (the extension's maxValueLength)`);
      return v;
  }
}

/**
 * The value to store for declared attribute `attr` at `path` (as the request named it): a scalar, or for
 * a multi-valued attribute an array (a single value becomes a one-element array); null/[] clear it (undefined).
 */
export function declaredValue(ext: ExtensionConfig, attr: ExtensionAttributeConfig, path: string, v: unknown): Scalar | Scalar[] | undefined {
  if (v === null || v === undefined) return undefined;
  if (!attr.multiValued) {
    if (Array.isArray(v)) throw bad(path, "is single-valued: expected one value, not an array");
    return scalar(ext, attr, path, v);
  }
  const items = Array.isArray(v) ? v : [v];
  if (items.length > ext.maxValues) throw bad(path, `holds more than ${ext.maxValues} values (the extension's maxValues)`);
  const out = items.map((x) => scalar(ext, attr, path, x));
  return out.length ? out : undefined;
}

/** Checks a multi-valued attribute's length after a PATCH added to it. */
export function assertValueCount(ext: ExtensionConfig, path: string, values: unknown[]): void {
  if (values.length > ext.maxValues) throw bad(path, `would hold more than ${ext.maxValues} values (the extension's maxValues)`);
}
