/**
 * Recognises text the JavaScript engine wrote (a TypeError's "Cannot read properties of undefined", a
 * RangeError's "Maximum call stack size exceeded", JSON.parse's "Unexpected token"), as opposed to a
 * sentence SCIMMY or this code wrote for a client. Such text never goes into a SCIM error's `detail`.
 */

/** Messages written by the JavaScript engine (TypeError, RangeError, SyntaxError), not by SCIMMY or us. */
const ENGINE_MESSAGE = new RegExp([
  "Cannot (?:convert|read|set|create|assign|add|delete|define|redefine|destructure|access|use 'in')",
  "is not (?:a function|iterable|a constructor|defined|extensible|an object)",
  "not extensible", "Maximum call stack", "Invalid (?:array|string) length", "Unexpected (?:token|end of)", "in JSON at position",
  "circular structure", "Reduce of empty", "Class constructor", "\\(reading '", "(?:undefined|null) is not",
].join("|"));

/** True when `message` holds text the JavaScript engine wrote. */
export function isEngineMessage(message: string): boolean {
  return ENGINE_MESSAGE.test(message);
}

